#include "algorithms/est_strategy.hpp"

#include <algorithm>
#include <cmath>

#include "algorithms/group_math.hpp"

namespace adarl {

est_strategy::est_strategy(est_config config, bool online)
    : config_(config), online_(online) {}

double est_strategy::sampling_weight(double p) const {
  return std::pow(config_.weight_objective.weight(p + config_.eps), config_.sample_share);
}

void est_strategy::start(std::span<const prompt_entry> prompts, decisions& out) {
  const auto n = static_cast<uint32_t>(prompts.size());
  prompts_.assign(n, {});
  weights_.assign(n, 1.0);
  bounds_.assign(n, {config_.n_min, config_.n_max});
  active_ = n;
  const uint64_t lo = uint64_t{n} * config_.n_min, hi = uint64_t{n} * config_.n_max;
  budget_ = config_.budget > 0
                ? config_.budget
                : static_cast<uint64_t>(std::llround(config_.samples_per_prompt * n));
  // validate() makes this a no-op for samples_per_prompt; an explicit budget is
  // brought within what the batch allows (est_config::budget).
  budget_ = std::clamp(budget_, lo, hi);
  for (prompt_slot s = 0; s < n; ++s) {
    prompts_[s].id = prompts[s].id;
    prompts_[s].prior = prompts[s].prior;
    weights_[s] = sampling_weight(prompts[s].prior.mean());
  }
  plan_ = *allocate_budget(weights_, bounds_, budget_);
  for (prompt_slot s = 0; s < n; ++s) top_up(s, out);
  if (active_ == 0) out.step_done = true;
}

void est_strategy::top_up(prompt_slot slot, decisions& out) {
  auto& p = prompts_[slot];
  const uint32_t in_flight = p.pool.requested() - p.pool.received();
  const uint32_t room = online_ ? config_.wave - std::min(config_.wave, in_flight)
                                : plan_[slot];
  const uint32_t count = std::min(room, plan_[slot] - p.pool.requested());
  if (count > 0) out.requests.push_back(p.pool.request(slot, count));
}

result_status est_strategy::on_result(const sample_result& r, decisions& out) {
  if (r.slot >= prompts_.size()) return result_status::unknown_slot;
  auto& p = prompts_[r.slot];
  const auto status = p.pool.record(r.index, r.reward, r.tokens);
  if (status != result_status::accepted) return status;
  ++accepted_;
  if (r.reward > config_.threshold) ++p.positives;
  if (online_) {
    replan();
    for (prompt_slot s = 0; s < prompts_.size(); ++s) {
      if (!prompts_[s].finished) top_up(s, out);
      try_finish(s, out);  // re-planning can finish prompts other than r.slot
    }
  } else {
    try_finish(r.slot, out);
  }
  return status;
}

void est_strategy::replan() {
  for (prompt_slot s = 0; s < prompts_.size(); ++s) {
    const auto& p = prompts_[s];
    if (p.finished) {
      bounds_[s] = {plan_[s], plan_[s]};
      continue;
    }
    // The posterior takes in this step's outcomes so far; the budget follows it.
    const auto post = p.prior.with(p.pool.received(), p.positives);
    weights_[s] = sampling_weight(post.mean());
    bounds_[s] = {std::max(config_.n_min, p.pool.requested()), config_.n_max};
  }
  // Always feasible: the previous plan satisfies the new bounds.
  plan_ = *allocate_budget(weights_, bounds_, budget_);
}

void est_strategy::try_finish(prompt_slot slot, decisions& out) {
  auto& p = prompts_[slot];
  if (p.finished || !p.pool.complete() || p.pool.requested() < plan_[slot]) return;
  p.finished = true;
  --active_;
  out.finished.push_back(make_group(slot));
  if (active_ == 0) out.step_done = true;
}

finished_group est_strategy::make_group(prompt_slot slot) const {
  const auto& p = prompts_[slot];
  const auto pool = p.pool.rewards();
  finished_group g;
  g.slot = slot;
  g.prompt_id = p.id;
  g.exit = exit_kind::allocated;
  g.kept.resize(pool.size());
  for (uint32_t i = 0; i < pool.size(); ++i) g.kept[i] = i;
  g.rewards.assign(pool.begin(), pool.end());
  const double rbar = mean_of(pool);
  g.baseline = static_cast<float>(rbar);
  g.advantages = centered(pool, rbar);
  g.weight = static_cast<float>(std::pow(
      config_.weight_objective.weight(rbar + config_.eps), 1.0 - config_.sample_share));
  g.samples_used = static_cast<uint32_t>(pool.size());
  g.positives = p.positives;
  g.first_round_reward = static_cast<float>(rbar);
  g.tokens = p.pool.tokens();
  return g;
}

}  // namespace adarl
