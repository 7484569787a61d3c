#pragma once
// LibTorch internals of the built-in policy. Include only from models/ sources and
// torch tests: <torch/torch.h> costs ~20 s per translation unit.

#include <torch/torch.h>

#include <vector>

#include "models/model_config.hpp"

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

 private:
  int64_t heads_, head_dim_;
  torch::nn::LayerNorm ln1_{nullptr}, ln2_{nullptr};
  torch::nn::Linear qkv_{nullptr}, out_{nullptr}, fc1_{nullptr}, fc2_{nullptr};
};
TORCH_MODULE_IMPL(block, block_impl);

/// Decoder-only transformer with learned positions. Rows may be left-padded: `mask`
/// marks real tokens, and each row's positions count its real tokens from 0, so a
/// sequence gets the same positions (and logits) alone or in a padded batch.
class transformer_impl : public torch::nn::Module {
 public:
  explicit transformer_impl(const model_config& c);

  /// Logits [B, T, V] of tokens [B, T] int64 with mask [B, T] bool (causal).
  torch::Tensor forward(const torch::Tensor& tokens, const torch::Tensor& mask);
  /// Runs left-padded prompts, fills `cache`, returns the last position's logits [B, V].
  torch::Tensor prefill(const torch::Tensor& tokens, const torch::Tensor& mask,
                        kv_cache& cache);
  /// Appends one token per row [B] and returns its logits [B, V].
  torch::Tensor step(const torch::Tensor& tokens, kv_cache& cache);

  const model_config& config() const { return config_; }

 private:
  torch::Tensor run(const torch::Tensor& tokens, const torch::Tensor& positions,
                    const torch::Tensor& bias, kv_cache* cache);

  model_config config_;
  torch::nn::Embedding tok_{nullptr}, pos_{nullptr};
  std::vector<block> blocks_;
  torch::nn::LayerNorm ln_f_{nullptr};
  torch::nn::Linear head_{nullptr};  ///< Only when the output is untied.
};
TORCH_MODULE_IMPL(transformer, transformer_impl);

/// Position ids of left-padded rows: the count of real tokens before each position.
torch::Tensor positions_of(const torch::Tensor& mask);

}  // namespace adarl
