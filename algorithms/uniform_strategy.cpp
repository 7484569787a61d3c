#include "algorithms/uniform_strategy.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "algorithms/group_math.hpp"

namespace adarl {

uniform_strategy::uniform_strategy(uniform_config config, strategy_kind kind)
    : config_(config), kind_(kind) {}

void uniform_strategy::start(std::span<const prompt_entry> prompts, decisions& out) {
  prompts_.clear();
  active_ = 0;
  wanted_ = 0;
  // ceil(factor * batch), capped so that the cast stays defined for a huge factor.
  const double extra =
      prompts.empty() ? 0.0 : std::ceil(config_.dapo_extra_factor * prompts.size());
  extra_left_ = kind_ == strategy_kind::dapo
                    ? static_cast<uint32_t>(
                          std::min(extra, double{std::numeric_limits<uint32_t>::max()}))
                    : 0;
  add(prompts, out);
  if (done()) out.step_done = true;
}

void uniform_strategy::add(std::span<const prompt_entry> prompts, decisions& out) {
  for (const auto& entry : prompts) {
    const auto slot = static_cast<prompt_slot>(prompts_.size());
    prompts_.push_back({entry.id, {}});
    out.requests.push_back(prompts_.back().pool.request(slot, config_.group_size));
    ++active_;
  }
}

void uniform_strategy::add_prompts(std::span<const prompt_entry> extra, decisions& out) {
  // Nothing asked for (GRPO, Dr.GRPO, or a late call): ignore it, so that a finished
  // step never announces step_done twice.
  if (wanted_ == 0) return;
  const auto given = std::min<size_t>(extra.size(), wanted_);
  add(extra.first(given), out);
  // Fewer than wanted: the prompt source is exhausted for this step.
  if (given < wanted_) extra_left_ = 0;
  wanted_ = 0;
  if (done()) out.step_done = true;
}

result_status uniform_strategy::on_result(const sample_result& r, decisions& out) {
  const auto status = record_result(prompts_, r, accepted_);
  if (status != result_status::accepted) return status;
  auto& p = prompts_[r.slot];
  if (!p.pool.complete()) return status;
  --active_;
  auto g = make_group(r.slot);
  if (g.exit == exit_kind::dropped && extra_left_ > 0) {
    --extra_left_;
    ++wanted_;
    ++out.prompts_wanted;
  }
  out.finished.push_back(std::move(g));
  if (done()) out.step_done = true;
  return status;
}

finished_group uniform_strategy::make_group(prompt_slot slot) const {
  const auto& p = prompts_[slot];
  const auto pool = p.pool.rewards();
  finished_group g;
  g.slot = slot;
  g.prompt_id = p.id;
  g.kept.resize(pool.size());
  for (uint32_t i = 0; i < pool.size(); ++i) g.kept[i] = i;
  g.rewards.assign(pool.begin(), pool.end());
  const double mean = mean_of(pool);
  g.baseline = static_cast<float>(mean);
  const auto [lo, hi] = std::minmax_element(pool.begin(), pool.end());
  const bool all_equal = *lo == *hi;
  if (kind_ == strategy_kind::dr_grpo)
    g.advantages = centered(pool, mean);
  else
    g.advantages = scaled(pool, mean, unbiased_std(pool) + config_.std_eps);
  g.exit = kind_ == strategy_kind::dapo && all_equal ? exit_kind::dropped
                                                      : exit_kind::uniform;
  g.samples_used = static_cast<uint32_t>(pool.size());
  g.positives = count_positives(pool, config_.threshold);
  g.first_round_reward = static_cast<float>(mean);
  g.tokens = p.pool.tokens();
  return g;
}

}  // namespace adarl
