#include "algorithms/step_summary.hpp"

#include <algorithm>

namespace adarl {

void step_summary::add(const finished_group& g) {
  ++prompts;
  samples += g.samples_used;
  tokens += g.tokens;
  max_samples = std::max(max_samples, g.samples_used);
  first_round_sum += g.first_round_reward;
  ++exits[static_cast<size_t>(g.exit)];
  if (rounds.size() <= g.rounds) rounds.resize(g.rounds + 1, 0);
  ++rounds[g.rounds];
  if (!g.trainable()) return;
  ++trainable;
  kept_samples += g.kept.size();
  if (g.zero_gradient()) ++zero_gradient;
}

void step_summary::add_pass_rate(double pass_rate, uint32_t samples) {
  const double p = std::clamp(pass_rate, 0.0, 1.0);
  const size_t bin = std::min(rate_bins - 1, static_cast<size_t>(p * rate_bins));
  ++rate_prompts[bin];
  rate_samples[bin] += samples;
}

}  // namespace adarl
