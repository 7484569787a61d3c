#include "algorithms/step_summary.hpp"

#include <algorithm>
#include <cmath>

namespace adarl {
namespace {

constexpr double fixed_scale = 18446744073709551616.0;  // 2^64: one unit of exact_sum

}  // namespace

void exact_sum::add(double term) {
  constexpr double limit = 4.0e18;  // |term| * 2^64 stays below 2^126
  if (std::isnan(term)) {  // a broken prediction shows in the figure, never vanishes
    nan_ = true;
    return;
  }
  fixed_ += static_cast<fixed_t>(std::clamp(term, -limit, limit) * fixed_scale);
}

exact_sum::operator double() const {
  if (nan_) return std::nan("");
  return static_cast<double>(fixed_) / fixed_scale;
}

void step_summary::add(const finished_group& g) {
  if (g.exit == exit_kind::skipped) {  // never drawn: no samples, no first round
    ++exits[static_cast<size_t>(g.exit)];
    return;
  }
  ++prompts;
  samples += g.samples_used;
  tokens += g.tokens;
  max_samples = std::max(max_samples, g.samples_used);
  first_round_sum.add(g.first_round_reward);
  ++exits[static_cast<size_t>(g.exit)];
  exit_samples[static_cast<size_t>(g.exit)] += g.samples_used;
  if (rounds.size() <= g.rounds) rounds.resize(g.rounds + 1, 0);
  ++rounds[g.rounds];
  if (!g.trainable()) return;
  ++trainable;
  kept_samples += g.kept.size();
  if (g.zero_gradient())
    ++zero_gradient;
  else
    signal_samples += g.samples_used;
}

void calibration_sums::add(double p, uint32_t n, uint32_t k) {
  const double q = std::clamp(p, 1e-6, 1.0 - 1e-6);
  const double pos = k, neg = double(n) - double(k);
  brier.add(pos * (1 - q) * (1 - q) + neg * q * q);
  log_loss.add(-(pos * std::log(q) + neg * std::log(1 - q)));
  samples += n;
  ++prompts;
}

void step_summary::add_prior_fit(double p, uint32_t n, uint32_t k, bool first_seen,
                                 double ema_p) {
  if (n == 0) return;
  prior_fit.add(p, n, k);
  if (first_seen) {
    prior_fit_first_seen.add(p, n, k);
    ema_fit_first_seen.add(ema_p, n, k);
  }
  const double q = std::clamp(p, 0.0, 1.0);
  const size_t bin = std::min(rate_bins - 1, static_cast<size_t>(q * rate_bins));
  reliability_predicted[bin].add(q * n);
  reliability_observed[bin] += k;
  reliability_samples[bin] += n;
}

void step_summary::add_pass_rate(double pass_rate, uint32_t samples) {
  const double p = std::clamp(pass_rate, 0.0, 1.0);
  const size_t bin = std::min(rate_bins - 1, static_cast<size_t>(p * rate_bins));
  ++rate_prompts[bin];
  rate_samples[bin] += samples;
}

}  // namespace adarl
