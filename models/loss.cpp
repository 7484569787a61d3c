#include "models/loss.hpp"

namespace adarl {

loss_result clipped_surrogate(const loss_batch& b, const loss_config& c) {
  const auto mask = b.mask.to(b.logp.scalar_type());
  const auto tokens = mask.sum().clamp_min(1.0);
  const auto log_ratio =
      (b.logp - b.old_logp).clamp(-c.log_ratio_clamp, c.log_ratio_clamp);
  const auto ratio = torch::exp(log_ratio);
  const auto adv = b.advantages.to(b.logp.scalar_type()).unsqueeze(1).expand_as(ratio);
  const auto unclipped = -adv * ratio;
  const auto clipped = -adv * ratio.clamp(1.0 - c.clip_low, 1.0 + c.clip_high);
  auto per_token = torch::max(unclipped, clipped);
  per_token = torch::where(adv < 0, torch::min(per_token, -adv * c.dual_clip), per_token);

  loss_result r;
  r.loss = (per_token * mask).sum() / tokens;
  torch::NoGradGuard no_grad;
  r.clip_fraction = (((clipped > unclipped).to(mask.scalar_type()) * mask).sum() / tokens)
                        .item<double>();
  r.mean_ratio = ((ratio * mask).sum() / tokens).item<double>();
  return r;
}

double mean_entropy(const torch::Tensor& logits, const torch::Tensor& mask) {
  torch::NoGradGuard no_grad;
  const auto logp = torch::log_softmax(logits.to(torch::kDouble), -1);
  const auto h = -(logp.exp() * logp).sum(-1);
  const auto m = mask.to(torch::kDouble);
  return ((h * m).sum() / m.sum().clamp_min(1.0)).item<double>();
}

}  // namespace adarl
