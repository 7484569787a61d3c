#include "algorithms/est_strategy.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "algorithms/group_math.hpp"

namespace adarl {

est_strategy::est_strategy(est_config config, bool online, replan_mode mode)
    : config_(config), online_(online), mode_(mode) {}

double est_strategy::sampling_weight(double p) const {
  return std::pow(config_.weight_objective.weight(p + config_.eps), config_.sample_share);
}

double est_strategy::posterior_weight(prompt_slot slot) const {
  const auto& p = prompts_[slot];
  // The posterior takes in this step's outcomes so far; the budget follows it.
  return sampling_weight(p.prior.with(p.pool.received(), p.positives).mean());
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
  if (incremental()) {
    // The bounds the first re-plan sees. The weights are those of posterior_weight:
    // with(0, 0) adds zeros, which leaves a and b as they are.
    for (prompt_slot s = 0; s < n; ++s)
      bounds_[s].lo = std::max(config_.n_min, prompts_[s].pool.requested());
    alloc_.reset(weights_, bounds_, budget_, plan_);
    visit_all_ = true;
  }
  if (active_ == 0) out.step_done = true;
}

bool est_strategy::top_up(prompt_slot slot, decisions& out) {
  auto& p = prompts_[slot];
  const uint32_t in_flight = p.pool.requested() - p.pool.received();
  const uint32_t room = online_ ? config_.wave - std::min(config_.wave, in_flight)
                                : plan_[slot];
  const uint32_t count = std::min(room, plan_[slot] - p.pool.requested());
  if (count > 0) out.requests.push_back(p.pool.request(slot, count));
  return count > 0;
}

result_status est_strategy::on_result(const sample_result& r, decisions& out) {
  const auto status = record_result(prompts_, r, accepted_);
  if (status != result_status::accepted) return status;
  auto& p = prompts_[r.slot];
  if (r.reward > config_.threshold) ++p.positives;
  if (!online_) {
    try_finish(r.slot, out);
  } else if (mode_ == replan_mode::full) {
    replan_full();
    // re-planning can finish prompts other than r.slot
    for (prompt_slot s = 0; s < prompts_.size(); ++s) visit(s, out);
  } else {
    replan_incremental(r.slot);
    for (const prompt_slot s : visit_) visit(s, out);
  }
  return status;
}

void est_strategy::visit(prompt_slot slot, decisions& out) {
  if (!prompts_[slot].finished && top_up(slot, out) && incremental()) {
    bounds_[slot].lo = std::max(config_.n_min, prompts_[slot].pool.requested());
    alloc_.set_bounds(slot, bounds_[slot]);
  }
  if (try_finish(slot, out) && incremental()) {
    bounds_[slot] = {plan_[slot], plan_[slot]};
    alloc_.set_bounds(slot, bounds_[slot]);
  }
}

// The reference: every prompt's weight and bounds from scratch, then allocate_budget.
void est_strategy::replan_full() {
  ++replans_.full;
  for (prompt_slot s = 0; s < prompts_.size(); ++s) {
    const auto& p = prompts_[s];
    if (p.finished) {
      bounds_[s] = {plan_[s], plan_[s]};
      continue;
    }
    weights_[s] = posterior_weight(s);
    bounds_[s] = {std::max(config_.n_min, p.pool.requested()), config_.n_max};
  }
  // Always feasible: the previous plan satisfies the new bounds.
  plan_ = *allocate_budget(weights_, bounds_, budget_);
}

// Only r.slot's weight changed since the last re-plan (other bounds changed as they
// were requested or finished). A slot that keeps its plan and did not get the result
// has nothing to top up or finish: its last visit left it waiting on a full wave or on
// its whole plan. So only r.slot and the slots whose plan moved are visited.
void est_strategy::replan_incremental(prompt_slot slot) {
  weights_[slot] = posterior_weight(slot);
  alloc_.set_weight(slot, weights_[slot]);
  visit_.clear();
  if (alloc_.update()) {
    ++replans_.incremental;
    for (const uint32_t s : alloc_.changed()) {
      plan_[s] = alloc_.plan()[s];
      visit_.push_back(s);
    }
  } else {
    ++replans_.full;
    auto plan = *allocate_budget(weights_, bounds_, budget_);  // feasible, as above
    for (prompt_slot s = 0; s < plan.size(); ++s)
      if (plan[s] != plan_[s]) visit_.push_back(s);
    plan_ = std::move(plan);
    alloc_.reset(weights_, bounds_, budget_, plan_);
  }
  if (visit_all_) {
    visit_all_ = false;
    visit_.resize(prompts_.size());
    std::iota(visit_.begin(), visit_.end(), prompt_slot{0});
    return;
  }
  visit_.push_back(slot);
  std::sort(visit_.begin(), visit_.end());
  visit_.erase(std::unique(visit_.begin(), visit_.end()), visit_.end());
}

bool est_strategy::try_finish(prompt_slot slot, decisions& out) {
  auto& p = prompts_[slot];
  if (p.finished || !p.pool.complete() || p.pool.requested() < plan_[slot]) return false;
  p.finished = true;
  --active_;
  out.finished.push_back(make_group(slot));
  if (active_ == 0) out.step_done = true;
  return true;
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
  if (config_.std_norm) {
    // GRPO's scale, clamped as the reference does: max(std, 1e-6) + 1e-6.
    g.advantages = scaled(pool, rbar, std::max(unbiased_std(pool), 1e-6) + 1e-6);
  } else {
    g.advantages = centered(pool, rbar);
  }
  g.weight = config_.grad_weight
                 ? static_cast<float>(std::pow(config_.weight_objective.weight(rbar + config_.eps),
                                               1.0 - config_.sample_share))
                 : 1.f;
  g.samples_used = static_cast<uint32_t>(pool.size());
  g.positives = p.positives;
  g.first_round_reward = static_cast<float>(rbar);
  g.tokens = p.pool.tokens();
  return g;
}

}  // namespace adarl
