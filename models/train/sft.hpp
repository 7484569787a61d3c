#pragma once
// Supervised warm start: teach the base policy to answer, so that RL starts from a
// spread of pass rates as it does from a pretrained model.

#include <atomic>
#include <cstdint>
#include <functional>
#include <vector>

#include "models/train/optimizer.hpp"
#include "models/train/sft_example.hpp"

namespace adarl {

/// Training-loop settings (the optimizer has its own).
struct sft_config {
  int64_t steps = 300;      ///< Optimizer steps.
  int64_t batch_size = 32;  ///< Examples per step.
  uint64_t seed = 1;        ///< Order of the examples.
  int64_t log_every = 25;   ///< Progress callback period, in steps.
};

/// What the progress callback receives.
struct sft_progress {
  int64_t step = 0;
  double loss = 0;           ///< Mean token cross-entropy of the last step's batch.
  double grad_norm = 0;
  double tokens_per_s = 0;   ///< Trained completion tokens per second since the last report.
};

/// Trains with teacher forcing on the completion tokens (token-mean cross-entropy).
/// Examples are visited in seeded random order, epoch after epoch. Returns the loss
/// of every step taken: all config.steps, or fewer when `stop` was set (it is read
/// before each step; the weights are then those of the last step taken). Blocks.
/// Precondition: examples is not empty.
std::vector<double> run_sft(transformer& model, policy_optimizer& opt,
                            const std::vector<sft_example>& examples,
                            const sft_config& config,
                            const std::function<void(const sft_progress&)>& on_progress,
                            const std::atomic<bool>* stop = nullptr);

/// Mean token cross-entropy of the completions under the current weights (no grad),
/// in batches of `batch_size`.
double sft_loss(transformer& model, const std::vector<sft_example>& examples,
                int64_t batch_size = 64);

}  // namespace adarl
