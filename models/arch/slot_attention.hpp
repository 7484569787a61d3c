#pragma once
// Attention of decoding tokens over a slot KV cache (LibTorch), one kernel for every
// architecture: grouped-query attention, of which the built-in transformer's multi-head
// attention (as many key/value heads as query heads, q, k and v packed) is the special
// case. Include only from models/ sources and torch tests.

#include <torch/torch.h>

namespace adarl {

/// The kernel of both architectures: slot_attention with q, k and v apart and with
/// fewer (or as many) key/value heads than query heads (grouped-query attention): query
/// head h reads key/value head h / (Hq / Hkv), and the cache holds only the Hkv heads.
/// q [N, Hq, Dh] and k, v [N, Hkv, Dh] are each token's rotated query, rotated key and
/// value; slots and positions [N] int64; k_cache and v_cache [capacity, Hkv,
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

/// Attention of a flat batch of tokens, each at its own (slot, position) of a KV cache,
/// for continuous batching: the running rows' newest tokens and the prompts of newly
/// admitted rows go through one call, without padding.
///
/// qkv [N, 3 * D] holds each token's query, key and value (heads x head_dim each);
/// slots and positions [N] int64; k_cache and v_cache [capacity, heads, max_len,
/// head_dim]. First every token's key and value are written at its (slot, position),
/// then each query attends to keys [0, position] of its slot. Returns [N, D] (heads
/// concatenated, the layout of the output projection's input). gqa_slot_attention of
/// qkv's three parts.
/// Preconditions: (slot, position) pairs are distinct, and each position below a token's
/// own in its slot is already cached or written by this call (fails fast otherwise only
/// for indices out of range). CPU float tensors take a fused kernel (parallel over tokens
/// and heads with torch's threads); other devices take slot_attention_reference.
/// Not thread-safe for one cache. O(N * D * (1 + max position)).
torch::Tensor slot_attention(const torch::Tensor& qkv, const torch::Tensor& slots,
                             const torch::Tensor& positions, torch::Tensor& k_cache,
                             torch::Tensor& v_cache);

/// slot_attention by gqa_slot_attention_reference.
torch::Tensor slot_attention_reference(const torch::Tensor& qkv,
                                       const torch::Tensor& slots,
                                       const torch::Tensor& positions,
                                       torch::Tensor& k_cache, torch::Tensor& v_cache);

}  // namespace adarl
