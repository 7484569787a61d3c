#pragma once
// The learner's objective (ALGORITHM.md section 6), in LibTorch.

#include <torch/torch.h>

namespace adarl {

/// Clipped-surrogate parameters. Defaults: clip-higher (0.2 below, 0.28 above), dual
/// clip c = 10 for negative advantages, log-ratio clamped to [-20, 20].
struct loss_config {
  double clip_low = 0.2;
  double clip_high = 0.28;
  double dual_clip = 10.0;
  double log_ratio_clamp = 20.0;
};

/// One batch of completions, token-aligned: [B, T] tensors and per-sample advantages.
struct loss_batch {
  torch::Tensor logp;        ///< Log-probs under the current weights (with grad).
  torch::Tensor old_logp;    ///< Behaviour log-probs from the generator (no grad).
  torch::Tensor advantages;  ///< [B]: advantage * per-prompt weight, per sample.
  torch::Tensor mask;        ///< [B, T] bool: real completion tokens.
};

/// The loss and what to log about it.
struct loss_result {
  torch::Tensor loss;         ///< Scalar: token-mean of the clipped surrogate.
  double clip_fraction = 0;   ///< Share of tokens where the clipped branch was taken.
  double mean_ratio = 0;      ///< Token-mean of the importance ratio.
};

/// PPO-style clipped surrogate with clip-higher and dual clip, aggregated as a
/// token-mean over the whole batch: ratio = exp(clamp(logp - old_logp)); per token
/// l = max(-A r, -A clip(r, 1 - low, 1 + high)), and for A < 0, min(l, -A c). With
/// logp == old_logp (ratio 1) its gradient is REINFORCE's, -A grad logp / tokens.
loss_result clipped_surrogate(const loss_batch& b, const loss_config& c);

/// Mean per-token entropy of the distributions `logits` [B, T, V] where `mask` is
/// true, for logging (no grad).
double mean_entropy(const torch::Tensor& logits, const torch::Tensor& mask);

}  // namespace adarl
