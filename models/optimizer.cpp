#include "models/optimizer.hpp"

#include <algorithm>

namespace adarl {

policy_optimizer::policy_optimizer(transformer& model, optimizer_config config)
    : model_(model), config_(config) {
  auto opts = torch::optim::AdamWOptions(config.lr)
                  .betas({config.beta1, config.beta2})
                  .eps(config.eps)
                  .weight_decay(config.weight_decay);
  adamw_ = std::make_unique<torch::optim::AdamW>(model_->parameters(), opts);
}

void policy_optimizer::zero_grad() { adamw_->zero_grad(); }

double policy_optimizer::next_lr() const {
  if (config_.warmup_steps <= 0) return config_.lr;
  const double ramp = double(steps_ + 1) / double(config_.warmup_steps);
  return config_.lr * std::min(1.0, ramp);
}

double policy_optimizer::step() {
  const double max_norm = config_.grad_clip > 0 ? config_.grad_clip
                                                : std::numeric_limits<double>::infinity();
  const double norm = torch::nn::utils::clip_grad_norm_(model_->parameters(), max_norm);
  const double lr = next_lr();
  for (auto& group : adamw_->param_groups())
    static_cast<torch::optim::AdamWOptions&>(group.options()).lr(lr);
  adamw_->step();
  ++steps_;
  return norm;
}

}  // namespace adarl
