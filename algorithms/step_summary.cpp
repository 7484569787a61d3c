#include "algorithms/step_summary.hpp"

#include <algorithm>
#include <cmath>

namespace adarl {
namespace {

// Per-step sums of doubles come from groups that finish in any order (async rounds, a
// resumed run). Each term is rounded to a multiple of 2^-28 first: such sums are exact,
// hence independent of the order, while they stay below 2^25 (33 million), far above a
// step's total. The rounding (under 4e-9 per group) is far below what the figures show.
void add_exact(double& sum, double term) {
  constexpr double grid = 268435456.0;  // 2^28
  sum += std::nearbyint(term * grid) / grid;
}

}  // namespace

void step_summary::add(const finished_group& g) {
  if (g.exit == exit_kind::skipped) {  // never drawn: no samples, no first round
    ++exits[static_cast<size_t>(g.exit)];
    return;
  }
  ++prompts;
  samples += g.samples_used;
  tokens += g.tokens;
  max_samples = std::max(max_samples, g.samples_used);
  add_exact(first_round_sum, g.first_round_reward);
  ++exits[static_cast<size_t>(g.exit)];
  exit_samples[static_cast<size_t>(g.exit)] += g.samples_used;
  if (rounds.size() <= g.rounds) rounds.resize(g.rounds + 1, 0);
  ++rounds[g.rounds];
  if (!g.trainable()) return;
  ++trainable;
  kept_samples += g.kept.size();
  if (g.zero_gradient()) ++zero_gradient;
}

void calibration_sums::add(double p, uint32_t n, uint32_t k) {
  const double q = std::clamp(p, 1e-6, 1.0 - 1e-6);
  const double pos = k, neg = double(n) - double(k);
  add_exact(brier, pos * (1 - q) * (1 - q) + neg * q * q);
  add_exact(log_loss, -(pos * std::log(q) + neg * std::log(1 - q)));
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
  add_exact(reliability_predicted[bin], q * n);
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
