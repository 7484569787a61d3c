#include "algorithms/lag_gate.hpp"

#include <algorithm>

namespace adarl {

uint64_t lag_gate::pinned(uint64_t step) const {
  return std::max(config.floor_version, step > config.max_lag ? step - config.max_lag : 0);
}

gate_verdict lag_gate::check(uint64_t step, uint64_t learner_version,
                             uint64_t admitted) const {
  if (step < learner_version) return gate_verdict::stale;  // already trained
  if (config.exact) {
    const uint64_t version = pinned(step);
    if (learner_version < version) return gate_verdict::wait_for_learner;
    if (learner_version > version) return gate_verdict::stale;
  } else if (step - learner_version > config.max_lag) {
    return gate_verdict::wait_for_learner;
  }
  if (config.max_step_samples > 0 && admitted >= config.max_step_samples)
    return gate_verdict::step_full;
  return gate_verdict::admit;
}

bool lag_gate::may_publish(uint64_t learner_version, int64_t generated_through) const {
  if (!config.exact) return true;
  return generated_through >= static_cast<int64_t>(learner_version + config.max_lag);
}

}  // namespace adarl
