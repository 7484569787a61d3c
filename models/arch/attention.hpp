#pragma once
// Causal attention over whole left-padded rows (LibTorch), the training and scoring path
// of both architectures (decoding goes through models/arch/slot_attention.hpp). Include
// only from models/ sources and torch tests.

#include <torch/torch.h>

namespace adarl {

/// softmax(q k^T / sqrt(Dh) + bias) v for q [B, H, Tq, Dh], k and v [B, H, Tk, Dh] (as
/// many key/value heads as query heads: grouped-query callers repeat them first) and an
/// additive bias broadcasting to [B, H, Tq, Tk] (models/arch/padded_rows.hpp). The
/// softmax runs in float32 when q is half or bfloat16 (under autocast), in q's own type
/// otherwise. Returns [B, H, Tq, Dh]. O(B * H * Tq * Tk * Dh).
torch::Tensor padded_attention(const torch::Tensor& q, const torch::Tensor& k,
                               const torch::Tensor& v, const torch::Tensor& bias);

}  // namespace adarl
