#pragma once
// LibTorch internals of the built-in policy. Include only from models/ sources and
// torch tests: <torch/torch.h> costs ~20 s per translation unit.

#include <torch/torch.h>

#include <vector>

#include "engines/model_config.hpp"
#include "models/arch/policy_model.hpp"

namespace adarl {

/// Keys and values of every layer for incremental decoding, plus which cached
/// positions hold real tokens (prompts are left-padded to a common length).
struct kv_cache {
  std::vector<torch::Tensor> k;  ///< Per layer: [B, heads, T, head_dim].
  std::vector<torch::Tensor> v;
  torch::Tensor key_mask;        ///< [B, T] bool: true where a real token sits.
  torch::Tensor next_position;   ///< [B] int64: position id of each row's next token.
};

/// One pre-LayerNorm block: x + attn(ln1(x)), then x + mlp(ln2(x)).
class block_impl : public torch::nn::Module {
 public:
  explicit block_impl(const model_config& c);
  /// x [B, T, D]; bias [B, 1, T, Tk] additive (0 or -inf). With a cache slot, the new
  /// keys and values are appended to it and attention covers the whole cache.
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& bias,
                        torch::Tensor* k_cache, torch::Tensor* v_cache);
  /// Tokens of a flat batch x [N, D], each at its (slot, position) of the slot cache
  /// k_cache/v_cache [capacity, heads, max_len, Dh]: writes their keys and values there
  /// and attends each to keys [0, position] of its slot (models/arch/slot_attention.hpp).
  /// O(N * (params + max position * D)).
  /// `invariant`: linear layers by invariant_linear (models/arch/invariant_linear.hpp).
  torch::Tensor decode(const torch::Tensor& x, const torch::Tensor& slots,
                       const torch::Tensor& positions, torch::Tensor& k_cache,
                       torch::Tensor& v_cache, bool invariant);

 private:
  // Attention of q [B, H, Tq, Dh] over k, v [B, H, Tk, Dh], then the MLP.
  torch::Tensor attend(const torch::Tensor& x, const torch::Tensor& q, const torch::Tensor& k,
                       const torch::Tensor& v, const torch::Tensor& bias);
  // h + mlp(ln2(h)), the second half of the block.
  torch::Tensor mlp_residual(const torch::Tensor& h, bool invariant = false);

  int64_t heads_, head_dim_;
  torch::nn::LayerNorm ln1_{nullptr}, ln2_{nullptr};
  torch::nn::Linear qkv_{nullptr}, out_{nullptr}, fc1_{nullptr}, fc2_{nullptr};
};
TORCH_MODULE_IMPL(block, block_impl);

/// Decoder-only transformer with learned positions. Rows may be left-padded: `mask`
/// marks real tokens, and each row's positions count its real tokens from 0, so a
/// sequence gets the same positions (and logits) alone or in a padded batch.
class transformer_impl : public torch::nn::Module, public policy_model {
 public:
  explicit transformer_impl(const model_config& c);

  /// Logits [B, T, V] of tokens [B, T] int64 with mask [B, T] bool (causal).
  torch::Tensor forward(const torch::Tensor& tokens, const torch::Tensor& mask);
  /// Final-LayerNorm hidden states [B, T, D] of tokens [B, T] with mask [B, T] (causal).
  torch::Tensor hidden(const torch::Tensor& tokens, const torch::Tensor& mask) override;
  /// The output projection of final-LayerNorm hidden states [..., D]: logits [..., V].
  torch::Tensor logits(const torch::Tensor& hidden, bool invariant = false) override;
  /// Runs left-padded prompts, fills `cache`, returns the last position's logits [B, V].
  torch::Tensor prefill(const torch::Tensor& tokens, const torch::Tensor& mask,
                        kv_cache& cache);
  /// Appends one token per row [B] and returns its logits [B, V].
  torch::Tensor step(const torch::Tensor& tokens, kv_cache& cache);

  // policy_model: slots of max_len positions on the model's device.
  int64_t context_length() const override { return config_.max_len; }
  int64_t vocab_size() const override { return config_.vocab_size; }
  torch::Device device() const override;
  /// A zeroed slot cache of `capacity` rows of max_len positions on the model's device.
  slot_cache make_slot_cache(int64_t capacity) override;
  /// One decoding pass of continuous batching: tokens, slots and positions [N] int64
  /// give each token's id and its (slot, position) in `cache`; running rows contribute
  /// their newest token, newly admitted rows their whole prompt at positions 0..P-1,
  /// packed without padding. Writes every token's keys and values, attends each to its
  /// slot's keys [0, position], and returns the logits [W, V] of the tokens at indices
  /// `wanted` [W] int64. Positions < max_len; preconditions of slot_attention.
  /// `invariant`: a token's logits do not depend on the other tokens of the pass (see
  /// models/arch/invariant_linear.hpp). O(N * (params + max position * d_model)).
  torch::Tensor decode_slots(const torch::Tensor& tokens, const torch::Tensor& slots,
                             const torch::Tensor& positions, const torch::Tensor& wanted,
                             slot_cache& cache, bool invariant = false) override;

  const model_config& config() const { return config_; }

 private:
  torch::Tensor run(const torch::Tensor& tokens, const torch::Tensor& positions,
                    const torch::Tensor& bias, kv_cache* cache);
  // The residual stream after the last block (before the final LayerNorm).
  torch::Tensor trunk(const torch::Tensor& tokens, const torch::Tensor& positions,
                      const torch::Tensor& bias, kv_cache* cache);
  // Final LayerNorm and output projection of hidden states [..., D].
  torch::Tensor head(const torch::Tensor& x, bool invariant = false);

  model_config config_;
  torch::nn::Embedding tok_{nullptr}, pos_{nullptr};
  std::vector<block> blocks_;
  torch::nn::LayerNorm ln_f_{nullptr};
  torch::nn::Linear head_{nullptr};  ///< Only when the output is untied.
};
TORCH_MODULE_IMPL(transformer, transformer_impl);

}  // namespace adarl
