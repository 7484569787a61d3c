#pragma once
// AdamW with linear warm-up and gradient-norm clipping (docs/algorithm.md "Asynchrony and the loss").

#include <torch/torch.h>

#include <memory>

#include "base/result.hpp"
#include "engines/train_config.hpp"
#include "models/arch/transformer.hpp"
#include "models/torch_compat.hpp"
#include "models/weights/optimizer_state.hpp"

namespace adarl {

/// The key of AdamW's state map for a parameter (it differs between LibTorch 1.13 and 2.x:
/// models/torch_compat.hpp).
using adamw_state_key = torch_compat::optimizer_state_key<torch::optim::AdamW>;
adamw_state_key adamw_key_of(const torch::Tensor& p);

/// AdamW over a model's parameters with warm-up and clipping. Not thread-safe.
class policy_optimizer : public optimizer_state {
 public:
  policy_optimizer(transformer& model, optimizer_config config);
  /// Over any module's parameters (the HF model); its state is saved by parameter name.
  policy_optimizer(std::shared_ptr<torch::nn::Module> module, optimizer_config config);

  /// Clears gradients.
  void zero_grad();
  /// Clips the gradients, steps with the scheduled learning rate, advances the schedule.
  /// Returns the global gradient norm before clipping (what to log). A non-finite norm
  /// (a NaN or infinite gradient) applies nothing: the gradients are cleared, the
  /// weights, the moments and the schedule stay as they were.
  double step();
  /// The learning rate the next step() uses.
  double next_lr() const;
  /// Optimizer steps taken.
  int64_t steps() const { return steps_; }
  void set_steps(int64_t s) override { steps_ = s; }
  torch::optim::AdamW& adamw() { return *adamw_; }

  /// Writes the AdamW state (each parameter's step count and moments, by parameter
  /// name) and the schedule's step as a safetensors file, atomically. The bytes depend
  /// on the state alone (torch::save's archive names tensors by memory address), so two
  /// equal optimizers write equal files. Errors name the file.
  result<bool> save_state(const std::string& path) override;
  /// Loads save_state()'s file into this optimizer (same parameter names and shapes);
  /// on error the optimizer is unchanged and the error names the file and tensor.
  result<bool> load_state(const std::string& path) override;
  /// Loads a torch::save archive of the AdamW state (optimizer.pt, checkpoints before 0.2).
  result<bool> load_legacy_state(const std::string& path) override;

 private:
  std::shared_ptr<torch::nn::Module> model_;
  optimizer_config config_;
  std::unique_ptr<torch::optim::AdamW> adamw_;
  int64_t steps_ = 0;
};

}  // namespace adarl
