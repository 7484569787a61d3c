#include "models/train/loss.hpp"

#include <algorithm>
#include <sstream>

namespace adarl {

loss_result clipped_surrogate(const loss_batch& b, const loss_config& c) {
  const double tokens = std::max(1.0, b.mask.sum().item<double>());
  return clipped_surrogate_part(b, c, tokens);
}

std::string train_sample_problem(const train_sample& s, size_t i, int64_t vocab,
                                 int64_t max_len) {
  std::ostringstream out;
  out << "train sample " << i << " (prompt " << s.prompt_id << "): ";
  if (s.behaviour_logprobs.size() != s.completion.size()) {
    out << s.behaviour_logprobs.size() << " behaviour log-probs for " << s.completion.size()
        << " completion tokens";
    return out.str();
  }
  if (s.prompt.empty()) return out.str() + "empty prompt";
  const size_t len = s.prompt.size() + s.completion.size();
  if (int64_t(len) > max_len) {
    out << "prompt + completion is " << len << " tokens, model.max_len " << max_len;
    return out.str();
  }
  for (const auto* part : {&s.prompt, &s.completion})
    for (int32_t t : *part)
      if (t < 0 || t >= vocab) {
        out << "token id " << t << " outside the vocabulary [0, " << vocab << ")";
        return out.str();
      }
  return "";
}

micro_batch gather_micro_batch(const std::vector<const train_sample*>& samples, size_t begin,
                               size_t end) {
  micro_batch m;
  size_t cmax = 1;
  for (size_t i = begin; i < end; ++i) {
    m.prompts.push_back(samples[i]->prompt);
    m.completions.push_back(samples[i]->completion);
    cmax = std::max(cmax, samples[i]->completion.size());
  }
  const auto n = int64_t(end - begin);
  m.old_logp = torch::zeros({n, int64_t(cmax)}, torch::kFloat);
  m.advantages = torch::zeros({n}, torch::kFloat);
  auto o = m.old_logp.accessor<float, 2>();
  auto a = m.advantages.accessor<float, 1>();
  for (int64_t i = 0; i < n; ++i) {
    const auto& s = *samples[begin + size_t(i)];
    for (size_t j = 0; j < s.behaviour_logprobs.size(); ++j) o[i][j] = s.behaviour_logprobs[j];
    a[i] = s.advantage;
  }
  return m;
}

loss_result clipped_surrogate_part(const loss_batch& b, const loss_config& c,
                                   double batch_tokens) {
  const auto mask = b.mask.to(b.logp.scalar_type());
  // A behaviour log-prob the generator could not give (NaN: llama-server drops those of
  // tokens that end inside a UTF-8 character) is taken as the learner's own: ratio 1.
  const auto old_logp = torch::where(torch::isnan(b.old_logp), b.logp.detach(), b.old_logp);
  const auto log_ratio =
      (b.logp - old_logp).clamp(-c.log_ratio_clamp, c.log_ratio_clamp);
  const auto ratio = torch::exp(log_ratio);
  const auto adv = b.advantages.to(b.logp.scalar_type()).unsqueeze(1).expand_as(ratio);
  const auto unclipped = -adv * ratio;
  const auto clipped = -adv * ratio.clamp(1.0 - c.clip_low, 1.0 + c.clip_high);
  auto per_token = torch::max(unclipped, clipped);
  per_token = torch::where(adv < 0, torch::min(per_token, -adv * c.dual_clip), per_token);

  loss_result r;
  r.loss = (per_token * mask).sum() / batch_tokens;
  torch::NoGradGuard no_grad;
  r.clip_fraction =
      ((clipped > unclipped).to(mask.scalar_type()) * mask).sum().item<double>() /
      batch_tokens;
  r.mean_ratio = (ratio * mask).sum().item<double>() / batch_tokens;
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
