#pragma once
// Budget-first Reinforce-Ada: a hard per-step budget planned from the tracker's memory.

#include <vector>

#include "algorithms/sample_pool.hpp"
#include "algorithms/step_strategy.hpp"
#include "algorithms/visit_skips.hpp"

namespace adarl {

/// Budget-first Reinforce-Ada (docs/algorithm.md "Budget-first Reinforce-Ada"). The
/// step draws at most budget_config::step_budget(prompts) samples, the budget of a
/// uniform baseline, and spends them by the prompts' pass-rate posteriors:
/// - a visit whose chance of a mixed group is below skip_below is skipped (except with
///   probability explore) and replaced by another prompt, so that the step still trains
///   its number of prompts;
/// - once the step's prompts are known, (1 - reserve) of the budget goes to first waves
///   by the allocation rule, each in [n_min, n_max], prompts with p below hard_below
///   taking at most hard_share of it;
/// - the reserve is spent as results arrive: a prompt whose pool is complete and
///   one-sided draws reserve_wave more (up to n_max) while the reserve lasts and its
///   chance of turning mixed is at least skip_below; no round waits for other prompts;
/// - every sample drawn is trained (no down-sampling): advantage r - mean of the pool
///   (divided by its std with std_norm), times f'(p_pool) with grad_weight.
/// A reserve not spent by the step's end is not drawn: the step may use fewer samples
/// than its budget, never more. O(1) per result; O(P log P) planning for P prompts
/// (knapsack: O(B log P) for a budget of B).
class budget_strategy final : public step_strategy {
 public:
  explicit budget_strategy(budget_config config);

  void start(std::span<const prompt_entry> prompts, decisions& out) override;
  result_status on_result(const sample_result& r, decisions& out) override;
  /// Replacements for skipped prompts, as DAPO's extra prompts.
  void add_prompts(std::span<const prompt_entry> extra, decisions& out) override;
  bool done() const override { return planned_ && active_ == 0; }
  uint64_t samples_accepted() const override { return accepted_; }

  /// The step's budget (fixed at start from the step's prompt count).
  uint64_t budget() const { return budget_; }
  /// Samples requested so far in the step (first waves and top-ups): at most budget().
  uint64_t requested() const { return requested_; }
  /// First-wave samples per slot (0 for a skipped prompt); empty until planned.
  const std::vector<uint32_t>& first_waves() const { return waves_; }

 private:
  struct prompt_state {
    uint64_t id = 0;
    beta_posterior prior;  ///< The tracker's belief at step start.
    sample_pool pool;
    bool skipped = false;
    bool finished = false;
    uint32_t top_ups = 0;
  };

  void add(const prompt_entry& e, decisions& out);
  /// Spreads the first waves over the kept prompts and requests them.
  void plan(decisions& out);
  void pool_complete(prompt_slot slot, decisions& out);
  finished_group make_group(prompt_slot slot) const;

  budget_config config_;
  uint64_t budget_ = 0;
  uint32_t average_n_ = 0;  ///< The budget's samples per prompt, for the skip test.
  std::vector<prompt_state> prompts_;
  std::vector<uint32_t> waves_;
  replacement_draws draws_;
  bool planned_ = false;
  uint32_t active_ = 0;  ///< Kept prompts not finished (after planning).
  uint64_t requested_ = 0;
  uint64_t accepted_ = 0;
};

/// The first waves of ada-budget for prompts whose pass-rate beliefs are `beliefs`:
/// `total` samples at most (fewer when the bounds or the knapsack's gains stop
/// earlier), each in [n_min, n_max] (n_min lowered to total / prompts when the budget
/// cannot give every prompt n_min), prompts with mean below hard_below taking at most
/// max(hard_share * total, their n_min) together. Pure; O(P log P), knapsack O(total log P).
std::vector<uint32_t> plan_first_waves(const budget_config& c,
                                       std::span<const beta_posterior> beliefs,
                                       uint64_t total);

}  // namespace adarl
