#pragma once
// Attention of decoding tokens over a slot KV cache (LibTorch). Include only from
// models/ sources and torch tests.

#include <torch/torch.h>

namespace adarl {

/// Attention of a flat batch of tokens, each at its own (slot, position) of a KV cache,
/// for continuous batching: the running rows' newest tokens and the prompts of newly
/// admitted rows go through one call, without padding.
///
/// qkv [N, 3 * D] holds each token's query, key and value (heads x head_dim each);
/// slots and positions [N] int64; k_cache and v_cache [capacity, heads, max_len,
/// head_dim]. First every token's key and value are written at its (slot, position),
/// then each query attends to keys [0, position] of its slot. Returns [N, D] (heads
/// concatenated, the layout of the output projection's input).
/// Preconditions: (slot, position) pairs are distinct, and each position below a token's
/// own in its slot is already cached or written by this call (fails fast otherwise only
/// for indices out of range). CPU float tensors take a fused kernel (parallel over tokens
/// and heads with torch's threads); other devices take slot_attention_reference.
/// Not thread-safe for one cache. O(N * D * (1 + max position)).
torch::Tensor slot_attention(const torch::Tensor& qkv, const torch::Tensor& slots,
                             const torch::Tensor& positions, torch::Tensor& k_cache,
                             torch::Tensor& v_cache);

/// slot_attention with tensor operations on any device: the reference that the fused
/// kernel is tested against. Copies each token's slot (O(N * heads * max_len *
/// head_dim)).
torch::Tensor slot_attention_reference(const torch::Tensor& qkv,
                                       const torch::Tensor& slots,
                                       const torch::Tensor& positions,
                                       torch::Tensor& k_cache, torch::Tensor& v_cache);

}  // namespace adarl
