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

}  // namespace adarl
