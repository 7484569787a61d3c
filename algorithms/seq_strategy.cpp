#include "algorithms/seq_strategy.hpp"

#include <algorithm>
#include <cmath>

#include "algorithms/downsample.hpp"
#include "algorithms/group_math.hpp"
#include "algorithms/signal_chance.hpp"

namespace adarl {

seq_strategy::seq_strategy(seq_config config)
    : config_(config), k_pos_(config.effective_k_pos()), k_neg_(config.effective_k_neg()) {}

void seq_strategy::start(std::span<const prompt_entry> prompts, decisions& out) {
  prompts_.clear();
  prompts_.reserve(prompts.size());
  active_ = 0;
  draws_.start(config_.skip_extra_factor, prompts.size(), config_.skip_below > 0);
  for (const auto& e : prompts) add(e, out);
  if (done()) out.step_done = true;
}

double seq_strategy::chance(const prompt_state& p, uint32_t rounds_left) const {
  const auto rewards = p.pool.rewards();
  const uint32_t pos = count_positives(rewards, config_.threshold);
  const uint32_t neg = uint32_t(rewards.size()) - pos;
  return signal_chance(p.prior.with(rewards.size(), pos), pos, neg,
                       rounds_left * config_.round_size, k_pos_, std::max<uint32_t>(k_neg_, 1));
}

void seq_strategy::add(const prompt_entry& e, decisions& out) {
  const auto slot = static_cast<prompt_slot>(prompts_.size());
  auto& p = prompts_.emplace_back();
  p.id = e.id;
  p.prior = e.prior;
  // Informed: a visit that will not show a signal is skipped, but a share `explore`
  // of such visits is drawn anyway (keyed by the visit: the same in every run).
  const bool explored = explored_visit(e.visit_key, config_.explore);
  if (config_.skip_below > 0 && !explored && chance(p, config_.max_rounds) < config_.skip_below) {
    p.finished = true;
    finished_group g;
    g.slot = slot;
    g.prompt_id = p.id;
    g.exit = exit_kind::skipped;
    out.finished.push_back(std::move(g));
    draws_.skipped(out);
    return;
  }
  ++active_;
  p.rounds = 1;
  out.requests.push_back(p.pool.request(slot, config_.round_size));
}

void seq_strategy::add_prompts(std::span<const prompt_entry> extra, decisions& out) {
  const auto take = draws_.begin(extra.size());
  for (size_t i = 0; i < take.given; ++i) add(extra[i], out);
  draws_.done(take, out);
  if (done()) out.step_done = true;
}

result_status seq_strategy::on_result(const sample_result& r, decisions& out) {
  const auto status = record_result(prompts_, r, accepted_);
  if (status != result_status::accepted) return status;
  auto& p = prompts_[r.slot];
  // The exit test runs only on whole rounds: a round is complete when every
  // requested sample is back, since the next round is requested only after that.
  if (p.pool.complete()) round_complete(r.slot, out);
  return status;
}

void seq_strategy::round_complete(prompt_slot slot, decisions& out) {
  auto& p = prompts_[slot];
  const auto rewards = p.pool.rewards();
  const uint32_t pos = count_positives(rewards, config_.threshold);
  const uint32_t neg = static_cast<uint32_t>(rewards.size()) - pos;
  const bool exits = pos >= k_pos_ && neg >= k_neg_;
  // Informed: no further round when the rest of them would likely show no signal.
  const bool hopeless = config_.min_signal_chance > 0 && !exits &&
                        chance(p, config_.max_rounds - std::min(p.rounds, config_.max_rounds)) <
                            config_.min_signal_chance;
  if (!exits && !hopeless && p.rounds < config_.max_rounds) {
    ++p.rounds;
    out.requests.push_back(p.pool.request(slot, config_.round_size));
    return;
  }
  exit_kind exit = config_.exit == exit_rule::pos ? exit_kind::pos : exit_kind::balance;
  if (!exits)
    exit = pos < k_pos_ ? exit_kind::fallback_missing_positives
                        : exit_kind::fallback_missing_negatives;
  p.finished = true;
  --active_;
  out.finished.push_back(make_group(slot, exit));
  if (done()) out.step_done = true;
}

finished_group seq_strategy::make_group(prompt_slot slot, exit_kind exit) const {
  const auto& p = prompts_[slot];
  const auto pool = p.pool.rewards();
  const auto size = static_cast<uint32_t>(pool.size());
  const uint32_t pos = count_positives(pool, config_.threshold);
  const uint32_t n = config_.group_size;

  uint32_t target_pos = n / 2;
  if (is_fallback(exit) && config_.exit == exit_rule::pos)
    target_pos = proportional_positive_target(pos, size, std::min(n, size));

  finished_group g;
  g.slot = slot;
  g.prompt_id = p.id;
  g.exit = exit;
  if (config_.downsample) {
    g.kept = balanced_downsample(pool, config_.threshold, n, target_pos);
  } else {
    for (uint32_t i = 0; i < size; ++i) g.kept.push_back(i);  // every sample of the pool
  }
  for (auto i : g.kept) g.rewards.push_back(pool[i]);
  g.samples_used = size;
  g.positives = pos;
  g.rounds = p.rounds;
  g.tokens = p.pool.tokens();
  g.first_round_reward =
      static_cast<float>(mean_of(pool.first(std::min(size, config_.round_size))));

  // Baseline over the WHOLE pool of this step (global statistics), from the 0/1
  // indicators of positivity; the advantage itself uses the raw reward.
  const double p_hat = indicator_mean(pos, size);
  g.baseline = static_cast<float>(p_hat);
  const uint32_t kept_pos = count_positives(g.rewards, config_.threshold);
  const bool one_class = kept_pos == 0 || kept_pos == g.rewards.size();
  if (is_fallback(exit) && one_class) {
    // A fallback group with one class only carries no signal; it is kept (the batch
    // shape and the token-mean denominator stay fixed) with zero advantages.
    g.advantages.assign(g.kept.size(), 0.f);
  } else if (config_.std_norm) {
    // The reference clamps the std, then adds the epsilon: max(std, 1e-6) + 1e-6.
    const double sd = std::max(indicator_std(pos, size), 1e-6) + 1e-6;
    g.advantages = scaled(g.rewards, p_hat, sd);
  } else {
    g.advantages = centered(g.rewards, p_hat);
  }
  if (config_.explicit_weight) {
    // Guard p_hat = 0 (no positive in the pool): use one success in the pool instead.
    const double p_safe = std::max(p_hat, 1.0 / std::max<uint32_t>(size, 1));
    g.weight = static_cast<float>(config_.weight_objective.weight(p_safe));
  }
  return g;
}

}  // namespace adarl
