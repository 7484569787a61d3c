#pragma once
// Positions and attention masks of left-padded rows, shared by both architectures
// (LibTorch). Include only from models/ sources and torch tests.

#include <torch/torch.h>

namespace adarl {

/// Position ids of left-padded rows: the count of real tokens before each position.
torch::Tensor positions_of(const torch::Tensor& mask);

/// Additive attention bias [B, 1, Tq, Tk] of `allowed` [B, Tq, Tk] bool: 0 where query i
/// may see key j, -inf elsewhere.
torch::Tensor attention_bias(const torch::Tensor& allowed);

/// The causal bias [B, 1, T, T] of left-padded rows with `mask` [B, T] (true at real
/// tokens): a query sees the real tokens up to itself, and always itself, so that a
/// padded row never takes the softmax of nothing.
torch::Tensor causal_padded_bias(const torch::Tensor& mask);

}  // namespace adarl
