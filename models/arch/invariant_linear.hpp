#pragma once
// A linear layer whose result for one row does not depend on the other rows (LibTorch),
// and the two linear-layer helpers every architecture uses.
// Include only from models/ sources and torch tests.

#include <torch/torch.h>

namespace adarl {

/// x [N, in] times w [out, in] transposed, plus b [out] (undefined = none), computed so
/// that each output element is the same sum in the same order whatever N is and
/// wherever the row sits: 8 interleaved partial sums over `in`, folded by a fixed tree,
/// then the bias. BLAS GEMM does not promise that (its blocking and kernels change with
/// N, so a row's rounding depends on the batch it shares), and a continuous-batching
/// decoder's batches depend on timing; with this kernel a deterministic run's tokens and
/// log-probs do not. CPU float32 contiguous inputs use it, parallel over rows on
/// torch's threads; any other input falls back to torch::linear (no such promise).
/// O(N * in * out); about a third of OpenBLAS's speed here.
torch::Tensor invariant_linear(const torch::Tensor& x, const torch::Tensor& w,
                               const torch::Tensor& b);

/// A linear layer in -> out, with or without a bias (torch's default has one).
torch::nn::Linear linear_layer(int64_t in, int64_t out, bool bias);

/// `lin`(x), by invariant_linear when `invariant` (a deterministic decoder's layers).
torch::Tensor linear_of(torch::nn::Linear& lin, const torch::Tensor& x, bool invariant);

}  // namespace adarl
