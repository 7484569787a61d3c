#pragma once
// Rotary position embeddings (RoPE) as transformers computes them (LibTorch): the
// inverse frequencies of a config's rope scaling, the cos and sin at token positions,
// and the rotation of queries and keys. Include only from models/ sources and torch tests.

#include <torch/torch.h>

#include <utility>

#include "formats/hf_config.hpp"

namespace adarl {

/// x * cos + rotate_half(x) * sin over the last dimension (transformers'
/// apply_rotary_pos_emb); cos and sin broadcast against x.
torch::Tensor apply_rotary(const torch::Tensor& x, const torch::Tensor& cos,
                           const torch::Tensor& sin);

/// The inverse frequencies [head_dim / 2] of `rope` (none, linear, llama3), float32.
torch::Tensor rope_inverse_frequencies(const hf_rope& rope, int64_t head_dim);

/// cos and sin [..., head_dim] of the rotation at `positions` (int64, any shape) for the
/// inverse frequencies `inv_freq` [head_dim / 2], in float32 as transformers does.
std::pair<torch::Tensor, torch::Tensor> rotary_cos_sin(const torch::Tensor& inv_freq,
                                                       const torch::Tensor& positions);

}  // namespace adarl
