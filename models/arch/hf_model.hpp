#pragma once
// LibTorch internals of the Hugging Face decoder (Qwen2 / Llama family), assembled from
// the shared blocks of models/arch/ (rms_norm, gated_mlp, rotary, attention and the slot
// attention kernel). Include only from models/ sources and torch tests: <torch/torch.h>
// costs ~20 s per translation unit.
//
// Parameter names are the checkpoint's own ("model.layers.0.self_attn.q_proj.weight",
// "lm_head.weight"), so weights, snapshots and optimizer state map one to one onto a
// model.safetensors file.

#include <torch/torch.h>

#include <utility>
#include <vector>

#include "formats/hf_config.hpp"
#include "models/arch/gated_mlp.hpp"
#include "models/arch/policy_model.hpp"
#include "models/arch/rms_norm.hpp"

namespace adarl {

/// Grouped-query attention's projections (q, k, v with the config's biases; o) and,
/// for Qwen3 (hf_config::qk_norm), the RMSNorms of each head's q and k.
class hf_attention_impl : public torch::nn::Module {
 public:
  explicit hf_attention_impl(const hf_config& c);
  torch::nn::Linear q_proj{nullptr}, k_proj{nullptr}, v_proj{nullptr}, o_proj{nullptr};
  /// Over the last dimension (head_dim) of [..., heads, head_dim]; null without qk_norm.
  hf_rms_norm q_norm{nullptr}, k_norm{nullptr};
  /// q or k of shape [..., heads, head_dim], normed when the model has q/k norms.
  torch::Tensor norm_q(const torch::Tensor& q) { return q_norm ? q_norm(q) : q; }
  torch::Tensor norm_k(const torch::Tensor& k) { return k_norm ? k_norm(k) : k; }
};
TORCH_MODULE_IMPL(hf_attention, hf_attention_impl);

/// One pre-RMSNorm block: x + attn(norm1(x)), then x + mlp(norm2(x)).
class hf_layer_impl : public torch::nn::Module {
 public:
  explicit hf_layer_impl(const hf_config& c);
  hf_attention self_attn{nullptr};
  hf_mlp mlp{nullptr};
  hf_rms_norm input_layernorm{nullptr}, post_attention_layernorm{nullptr};
};
TORCH_MODULE_IMPL(hf_layer, hf_layer_impl);

/// Embeddings, blocks and the final norm ("model." in the checkpoint's names).
class hf_backbone_impl : public torch::nn::Module {
 public:
  explicit hf_backbone_impl(const hf_config& c);
  torch::nn::Embedding embed_tokens{nullptr};
  torch::nn::ModuleList layers{nullptr};  ///< Of hf_layer, named "0", "1", ...
  hf_rms_norm norm{nullptr};
  std::vector<hf_layer> blocks;           ///< The same layers, typed.
};
TORCH_MODULE_IMPL(hf_backbone, hf_backbone_impl);

/// The decoder of config.json: rotary positions (per token, so left-padded rows and
/// slots of a continuous batch get each token's own position), grouped-query attention
/// whose cache holds num_key_value_heads, SwiGLU MLP, tied or untied output. Rows may be
/// left-padded: `mask` marks real tokens and each row's positions count its real tokens
/// from 0, as transformers' generate() does. Weights start random (normal 0.02);
/// models/weights/hf_weights.hpp loads a checkpoint. Not thread-safe: one owner.
class hf_model_impl : public torch::nn::Module, public policy_model {
 public:
  /// A model of `c` whose slots hold `context_length` positions (<= the config's
  /// max_position_embeddings; the caller checks).
  hf_model_impl(const hf_config& c, int64_t context_length);

  /// Final-norm hidden states [B, T, D] of left-padded tokens [B, T] int64 with mask
  /// [B, T] bool (causal). O(B * T * params + B * T^2 * D).
  torch::Tensor hidden(const torch::Tensor& tokens, const torch::Tensor& mask) override;
  /// Logits [..., V] of hidden states [..., D].
  torch::Tensor logits(const torch::Tensor& hidden, bool invariant = false) override;
  /// logits(hidden(tokens, mask)).
  torch::Tensor forward(const torch::Tensor& tokens, const torch::Tensor& mask);

  /// cos and sin [..., head_dim] of the rotation at `positions` (int64, any shape),
  /// computed in float32 as transformers does.
  std::pair<torch::Tensor, torch::Tensor> rotary(const torch::Tensor& positions) const;

  // policy_model (models/arch/policy_model.hpp): the cache is
  // [capacity, kv heads, context_length, head_dim] per layer, keys cached after RoPE.
  int64_t context_length() const override { return context_; }
  int64_t vocab_size() const override { return config_.vocab_size; }
  torch::Device device() const override;
  slot_cache make_slot_cache(int64_t capacity) override;
  torch::Tensor decode_slots(const torch::Tensor& tokens, const torch::Tensor& slots,
                             const torch::Tensor& positions, const torch::Tensor& wanted,
                             slot_cache& cache, bool invariant) override;

  const hf_config& config() const { return config_; }

 private:
  // x + attention of layer `l` over left-padded rows (additive bias [B, 1, T, T]).
  torch::Tensor attend(hf_layer_impl& l, const torch::Tensor& x, const torch::Tensor& cos,
                       const torch::Tensor& sin, const torch::Tensor& bias);

  hf_config config_;
  int64_t context_;
  torch::Tensor inv_freq_;  ///< [head_dim / 2] float32, scaling applied; not a parameter.

 public:
  hf_backbone model{nullptr};
  torch::nn::Linear lm_head{nullptr};  ///< Only when the embeddings are untied.
};
TORCH_MODULE_IMPL(hf_model, hf_model_impl);

}  // namespace adarl
