#pragma once
// AdamW with linear warm-up and gradient-norm clipping (ALGORITHM.md section 6).

#include <torch/torch.h>

#include <memory>

#include "models/transformer.hpp"
#include "models/train_config.hpp"

namespace adarl {

/// AdamW over a model's parameters with warm-up and clipping. Not thread-safe.
class policy_optimizer {
 public:
  policy_optimizer(transformer& model, optimizer_config config);

  /// Clears gradients.
  void zero_grad();
  /// Clips the gradients, steps with the scheduled learning rate, advances the schedule.
  /// Returns the global gradient norm before clipping (what to log).
  double step();
  /// The learning rate the next step() uses.
  double next_lr() const;
  /// Optimizer steps taken.
  int64_t steps() const { return steps_; }
  void set_steps(int64_t s) { steps_ = s; }
  torch::optim::AdamW& adamw() { return *adamw_; }

 private:
  transformer model_;
  optimizer_config config_;
  std::unique_ptr<torch::optim::AdamW> adamw_;
  int64_t steps_ = 0;
};

}  // namespace adarl
