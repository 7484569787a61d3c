#pragma once
// Grouped-query attention of decoding tokens over a slot KV cache (LibTorch), for the
// HF decoder. Include only from models/ sources and torch tests.

#include <torch/torch.h>

namespace adarl {

/// slot_attention (models/slot_attention.hpp) with fewer key/value heads than query
/// heads: query head h reads key/value head h / (Hq / Hkv), and the cache holds only the
/// Hkv heads. q [N, Hq, Dh] and k, v [N, Hkv, Dh] are each token's rotated query, rotated
/// key and value; slots and positions [N] int64; k_cache and v_cache [capacity, Hkv,
/// max_len, Dh]. First every token's key and value are written at its (slot, position),
/// then each query attends to keys [0, position] of its slot. Returns [N, Hq * Dh].
/// Preconditions as slot_attention's; indices out of range fail fast. CPU float tensors
/// take a fused kernel (parallel over tokens and query heads; a token's result does not
/// depend on the other tokens of the call); other devices take the reference.
/// Not thread-safe for one cache. O(N * Hq * Dh * (1 + max position)).
torch::Tensor gqa_slot_attention(const torch::Tensor& q, const torch::Tensor& k,
                                 const torch::Tensor& v, const torch::Tensor& slots,
                                 const torch::Tensor& positions, torch::Tensor& k_cache,
                                 torch::Tensor& v_cache);

/// gqa_slot_attention with tensor operations on any device: the reference the fused
/// kernel is tested against. Copies each token's slot (O(N * Hq * max_len * Dh)).
torch::Tensor gqa_slot_attention_reference(const torch::Tensor& q, const torch::Tensor& k,
                                           const torch::Tensor& v, const torch::Tensor& slots,
                                           const torch::Tensor& positions,
                                           torch::Tensor& k_cache, torch::Tensor& v_cache);

}  // namespace adarl
