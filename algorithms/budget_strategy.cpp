#include "algorithms/budget_strategy.hpp"

#include <algorithm>
#include <cmath>
#include <queue>
#include <utility>

#include "algorithms/budget_allocation.hpp"
#include "algorithms/group_math.hpp"
#include "algorithms/signal_chance.hpp"

namespace adarl {

namespace {

// Spreads `total` samples over the prompts `which` in proportion to `weights`, each in
// [lo, hi]; the total is clamped to what the bounds allow.
void spread(const std::vector<size_t>& which, std::span<const double> weights, uint32_t lo,
            uint32_t hi, uint64_t total, std::vector<uint32_t>& out) {
  if (which.empty()) return;
  total = std::clamp<uint64_t>(total, uint64_t(lo) * which.size(), uint64_t(hi) * which.size());
  std::vector<double> w;
  std::vector<allocation_bounds> bounds(which.size(), allocation_bounds{lo, hi});
  for (size_t i : which) w.push_back(weights[i]);
  const auto shares = allocate_budget(w, bounds, total);
  for (size_t k = 0; k < which.size(); ++k) out[which[k]] = shares ? (*shares)[k] : lo;
}

// Greedy knapsack on the chance of a mixed group: every prompt starts at lo, then each
// sample goes to the prompt whose chance grows most by it, while the gain is positive.
std::vector<uint32_t> knapsack(const budget_config& c, std::span<const beta_posterior> beliefs,
                               uint32_t lo, uint64_t total, const std::vector<bool>& hard,
                               uint64_t hard_cap) {
  std::vector<uint32_t> n(beliefs.size(), lo);
  uint64_t spent = uint64_t(lo) * beliefs.size(), hard_spent = 0;
  for (size_t i = 0; i < beliefs.size(); ++i) hard_spent += hard[i] ? lo : 0;
  const auto gain = [&](size_t i) {
    return mixed_chance(beliefs[i], n[i] + 1) - mixed_chance(beliefs[i], n[i]);
  };
  std::priority_queue<std::pair<double, size_t>> best;  // ties: the higher slot first
  for (size_t i = 0; i < beliefs.size(); ++i)
    if (n[i] < c.n_max) best.push({gain(i), i});
  while (spent < total && !best.empty()) {
    const auto [g, i] = best.top();
    best.pop();
    if (g <= 1e-12) break;
    if (hard[i] && hard_spent >= hard_cap) continue;  // the hard prompts' share is spent
    ++n[i];
    ++spent;
    hard_spent += hard[i] ? 1 : 0;
    if (n[i] < c.n_max) best.push({gain(i), i});
  }
  return n;
}

}  // namespace

std::vector<uint32_t> plan_first_waves(const budget_config& c,
                                       std::span<const beta_posterior> beliefs,
                                       uint64_t total) {
  const size_t count = beliefs.size();
  if (count == 0) return {};
  const uint32_t lo = uint32_t(std::min<uint64_t>(c.n_min, total / count));
  const uint32_t hi = std::max(lo, c.n_max);
  std::vector<bool> hard(count);
  std::vector<size_t> all, hard_ones, others;
  for (size_t i = 0; i < count; ++i) {
    hard[i] = beliefs[i].mean() < c.hard_below;
    all.push_back(i);
    (hard[i] ? hard_ones : others).push_back(i);
  }
  const uint64_t hard_cap =
      std::max(uint64_t(std::floor(c.hard_share * double(total))), uint64_t(lo) * hard_ones.size());
  if (c.allocation == allocation_rule::knapsack) return knapsack(c, beliefs, lo, total, hard, hard_cap);

  std::vector<double> weights(count, 1.0);
  if (c.allocation == allocation_rule::sqrt)
    for (size_t i = 0; i < count; ++i) {
      const double p = std::clamp(beliefs[i].mean(), 1e-3, 1 - 1e-3);
      weights[i] = std::sqrt((1 - p) / p);
    }
  std::vector<uint32_t> n(count, lo);
  spread(all, weights, lo, hi, total, n);
  uint64_t hard_sum = 0;
  for (size_t i : hard_ones) hard_sum += n[i];
  if (hard_ones.empty() || others.empty() || hard_sum <= hard_cap) return n;
  // The hard prompts took more than their share: cap them, give the rest to the others.
  spread(hard_ones, weights, lo, hi, hard_cap, n);
  spread(others, weights, lo, hi, total - std::min(total, hard_cap), n);
  return n;
}

budget_strategy::budget_strategy(budget_config config) : config_(config) {}

void budget_strategy::start(std::span<const prompt_entry> prompts, decisions& out) {
  prompts_.clear();
  prompts_.reserve(prompts.size());
  waves_.clear();
  planned_ = false;
  active_ = 0;
  requested_ = 0;
  budget_ = config_.step_budget(uint32_t(prompts.size()));
  average_n_ = prompts.empty() ? 0 : uint32_t(budget_ / prompts.size());
  draws_.start(config_.skip_extra_factor, prompts.size(), config_.skip_below > 0);
  for (const auto& e : prompts) add(e, out);
  if (draws_.wanted() == 0) plan(out);
  if (done()) out.step_done = true;
}

void budget_strategy::add(const prompt_entry& e, decisions& out) {
  const auto slot = static_cast<prompt_slot>(prompts_.size());
  auto& p = prompts_.emplace_back();
  p.id = e.id;
  p.prior = e.prior;
  if (config_.skip_below <= 0 || explored_visit(e.visit_key, config_.explore) ||
      mixed_chance(p.prior, average_n_) >= config_.skip_below)
    return;
  p.skipped = p.finished = true;
  finished_group g;
  g.slot = slot;
  g.prompt_id = p.id;
  g.exit = exit_kind::skipped;
  out.finished.push_back(std::move(g));
  draws_.skipped(out);
}

void budget_strategy::add_prompts(std::span<const prompt_entry> extra, decisions& out) {
  if (planned_) return;  // the plan is made: a late call changes nothing
  const auto take = draws_.begin(extra.size());
  for (size_t i = 0; i < take.given; ++i) add(extra[i], out);
  draws_.done(take, out);
  if (draws_.wanted() == 0) plan(out);
  if (done()) out.step_done = true;
}

void budget_strategy::plan(decisions& out) {
  planned_ = true;
  std::vector<size_t> kept;
  std::vector<beta_posterior> beliefs;
  for (size_t s = 0; s < prompts_.size(); ++s)
    if (!prompts_[s].skipped) {
      kept.push_back(s);
      beliefs.push_back(prompts_[s].prior);
    }
  waves_.assign(prompts_.size(), 0);
  if (kept.empty()) return;
  // The first waves get the budget less the reserve, but at least n_min per prompt.
  const uint64_t reserve = uint64_t(std::floor(config_.reserve * double(budget_)));
  const uint64_t floor = std::min<uint64_t>(budget_, uint64_t(config_.n_min) * kept.size());
  const auto n = plan_first_waves(config_, beliefs, std::max(budget_ - reserve, floor));
  for (size_t k = 0; k < kept.size(); ++k) {
    const auto slot = static_cast<prompt_slot>(kept[k]);
    auto& p = prompts_[slot];
    waves_[slot] = n[k];
    if (n[k] == 0) {  // a budget below one sample per prompt: nothing to draw
      p.finished = true;
      out.finished.push_back(make_group(slot));
      continue;
    }
    ++active_;
    requested_ += n[k];
    out.requests.push_back(p.pool.request(slot, n[k]));
  }
}

result_status budget_strategy::on_result(const sample_result& r, decisions& out) {
  const auto status = record_result(prompts_, r, accepted_);
  if (status != result_status::accepted) return status;
  auto& p = prompts_[r.slot];
  if (p.pool.complete()) pool_complete(r.slot, out);
  return status;
}

void budget_strategy::pool_complete(prompt_slot slot, decisions& out) {
  auto& p = prompts_[slot];
  const auto rewards = p.pool.rewards();
  const auto size = static_cast<uint32_t>(rewards.size());
  const uint32_t pos = count_positives(rewards, config_.threshold);
  const uint64_t left = budget_ - requested_;
  if ((pos == 0 || pos == size) && left > 0 && size < config_.n_max) {
    const auto more = static_cast<uint32_t>(
        std::min<uint64_t>({config_.reserve_wave, left, config_.n_max - size}));
    // Worth a top-up only while it may still turn the pool mixed.
    if (signal_chance(p.prior.with(size, pos), pos, size - pos, more, 1, 1) >=
        config_.skip_below) {
      ++p.top_ups;
      requested_ += more;
      out.requests.push_back(p.pool.request(slot, more));
      return;
    }
  }
  p.finished = true;
  --active_;
  out.finished.push_back(make_group(slot));
  if (done()) out.step_done = true;
}

finished_group budget_strategy::make_group(prompt_slot slot) const {
  const auto& p = prompts_[slot];
  const auto pool = p.pool.rewards();
  const auto size = static_cast<uint32_t>(pool.size());
  finished_group g;
  g.slot = slot;
  g.prompt_id = p.id;
  g.exit = exit_kind::allocated;
  for (uint32_t i = 0; i < size; ++i) g.kept.push_back(i);  // every sample drawn is trained
  g.rewards.assign(pool.begin(), pool.end());
  g.samples_used = size;
  g.positives = count_positives(pool, config_.threshold);
  g.rounds = 1 + p.top_ups;
  g.tokens = p.pool.tokens();
  g.first_round_reward = static_cast<float>(mean_of(pool.first(std::min(size, waves_[slot]))));
  const double mean = mean_of(pool);
  g.baseline = static_cast<float>(mean);
  if (config_.std_norm)
    g.advantages = scaled(g.rewards, mean, std::max(unbiased_std(pool), 1e-6) + 1e-6);
  else
    g.advantages = centered(g.rewards, mean);
  if (config_.grad_weight) {
    // Guard a pool without a positive: one success in the pool instead.
    const double p_pool = indicator_mean(g.positives, size);
    const double p_safe = std::max(p_pool, 1.0 / std::max<uint32_t>(size, 1));
    g.weight = static_cast<float>(config_.weight_objective.weight(p_safe));
  }
  return g;
}

}  // namespace adarl
