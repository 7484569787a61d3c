#pragma once
// Reinforce-Ada-Est and online Est: samples allocated from the pass-rate estimates.

#include <vector>

#include "algorithms/budget_allocation.hpp"
#include "algorithms/incremental_allocation.hpp"
#include "algorithms/sample_pool.hpp"
#include "algorithms/step_strategy.hpp"

namespace adarl {

/// Reinforce-Ada-Est (docs/algorithm.md "Reinforce-Ada-Est") and adarl's online variant (4b).
///
/// Offline: at start, N_x ~ f'(p_hat_x + eps)^s (1/sqrt(p_hat) for the default log
/// objective and s = 0.5), clipped to [n_min, n_max], summing exactly to the step
/// budget; all N_x are requested at once and every sample is trained on, with advantage
/// r - rbar_x and weight f'(rbar_x + eps)^(1-s) (1/sqrt(rbar) by default).
///
/// Online: the same plan, but at most `wave` requests per prompt are in flight; after
/// each accepted result the prompt's posterior takes in this step's outcomes so far and
/// the step budget is re-planned among unfinished prompts (never below what a prompt was
/// already given, never above n_max). A prompt whose plan is all verified is finished.
/// The step spends its budget exactly in both modes.
///
/// Offline: O(1) per result. Online, replan_mode::full: O(P log P) per result (every
/// weight and allocate_budget). Online, replan_mode::incremental (the default): the same
/// plans and decisions, from incremental_allocation, in O(G + log P + g) per result,
/// where G <= n_max - n_min + 1 is the number of distinct plan values and g the number
/// of prompts sharing one; O(P log P) at start, O(P) at the first result, and O(P log P)
/// on the rare results whose plan it cannot prove (allocate_budget decides those).
class est_strategy final : public step_strategy {
 public:
  /// How online Est re-plans after a result; both give the same plans and decisions.
  enum class replan_mode {
    incremental,  ///< incremental_allocation, allocate_budget when it cannot prove.
    full,         ///< Every prompt's weight and allocate_budget: the reference.
  };
  /// Online re-plans so far, by who answered them.
  struct replan_counts {
    uint64_t incremental = 0;  ///< Proven by incremental_allocation.
    uint64_t full = 0;         ///< allocate_budget over every prompt.
  };

  /// Offline or online Est; `mode` only matters online.
  est_strategy(est_config config, bool online,
               replan_mode mode = replan_mode::incremental);

  void start(std::span<const prompt_entry> prompts, decisions& out) override;
  result_status on_result(const sample_result& r, decisions& out) override;
  bool done() const override { return active_ == 0; }
  uint64_t samples_accepted() const override { return accepted_; }

  /// The step's budget (set by start).
  uint64_t budget() const { return budget_; }
  /// The current plan: samples each prompt will get.
  const std::vector<uint32_t>& plan() const { return plan_; }
  /// How the online re-plans of this step were made.
  const replan_counts& replans() const { return replans_; }

 private:
  struct prompt_state {
    uint64_t id = 0;
    beta_posterior prior;
    sample_pool pool;
    uint32_t positives = 0;  ///< Accepted results with reward > threshold.
    bool finished = false;
  };

  bool incremental() const { return online_ && mode_ == replan_mode::incremental; }
  double sampling_weight(double p) const;
  double posterior_weight(prompt_slot slot) const;
  void replan_full();
  void replan_incremental(prompt_slot slot);
  void visit(prompt_slot slot, decisions& out);
  bool top_up(prompt_slot slot, decisions& out);
  bool try_finish(prompt_slot slot, decisions& out);
  finished_group make_group(prompt_slot slot) const;

  est_config config_;
  bool online_ = false;
  replan_mode mode_ = replan_mode::incremental;
  uint64_t budget_ = 0;
  std::vector<prompt_state> prompts_;
  std::vector<uint32_t> plan_;  ///< Invariant: sums to budget_; plan_[x] >= requested.
  /// Invariant (incremental): the weights and bounds replan_full would give the next
  /// re-plan, and the ones alloc_ holds.
  std::vector<double> weights_;
  std::vector<allocation_bounds> bounds_;
  incremental_allocation alloc_;    ///< Invariant (incremental): its plan is plan_.
  std::vector<prompt_slot> visit_;  ///< Slots the current result may top up or finish.
  bool visit_all_ = false;  ///< The first result visits every slot, as start() did not.
  replan_counts replans_;
  uint32_t active_ = 0;
  uint64_t accepted_ = 0;
};

}  // namespace adarl
