#pragma once
// Settings of sampling, the loss and the optimizer: torch-free, so that configs and
// actors can hold them without including LibTorch.

#include <cstdint>

namespace adarl {

/// How completions are drawn.
struct sampling_params {
  float temperature = 1.f;      ///< Logits are divided by this (> 0).
  float top_p = 1.f;            ///< Nucleus: smallest set of tokens with mass >= top_p.
  int32_t max_new_tokens = 32;  ///< Completion length cap (also capped by max_len).
  bool greedy = false;          ///< Argmax instead of sampling (evaluation).
  /// Decode with batch-invariant arithmetic: a row's logits (and so its tokens and
  /// log-probs) are bit-identical whatever other rows share its decoding steps
  /// (deterministic runs; slower: models/arch/invariant_linear.hpp).
  bool batch_invariant = false;
};

/// Clipped-surrogate parameters. Defaults: clip-higher (0.2 below, 0.28 above), dual
/// clip c = 10 for negative advantages, log-ratio clamped to [-20, 20].
struct loss_config {
  double clip_low = 0.2;
  double clip_high = 0.28;
  double dual_clip = 10.0;
  double log_ratio_clamp = 20.0;
};

/// Optimizer settings of the learner.
struct optimizer_config {
  double lr = 1e-3;            ///< Peak learning rate.
  double weight_decay = 0.0;   ///< AdamW decoupled weight decay.
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
  int64_t warmup_steps = 10;   ///< lr ramps linearly from lr/warmup to lr.
  double grad_clip = 1.0;      ///< Max global gradient norm; <= 0 disables clipping.
};

}  // namespace adarl
