#pragma once
// The one place samples and generated tokens are counted, per step and in all, so that
// every strategy is compared at the same budget.

#include <cstdint>
#include <map>

namespace adarl {

/// Samples and generated tokens, the budget unit every strategy spends from.
struct budget_totals {
  uint64_t samples = 0;
  uint64_t tokens = 0;
};

/// A step's spending and everything spent through it, in step order.
struct budget_point {
  budget_totals step;     ///< What the step spent.
  budget_totals through;  ///< What the steps up to and including it spent.
};

/// The one place where the sampling budget is counted: per step and cumulative, for
/// steps that overlap in time (asynchronous generation runs ahead of the learner).
/// The caller charges each accepted result once (strategies report duplicates, which
/// must not be charged). Not thread-safe; O(log open steps) per call.
class budget_ledger {
 public:
  /// Charges `samples` and `tokens` to `step`, opening it if needed.
  void charge(uint64_t step, uint64_t samples, uint64_t tokens);
  /// What an open step has spent so far (zeros for an unknown step).
  budget_totals step_totals(uint64_t step) const;
  /// Closes a step and returns its totals; later charges to it open it again.
  budget_totals close_step(uint64_t step);
  /// Closes `step` as the next step in step order (every earlier step is committed):
  /// its totals join committed(). Returns the step's totals and the committed totals
  /// through it: what a step record and a checkpoint say was spent.
  budget_point commit_step(uint64_t step);
  /// Everything charged to committed steps (plus what restore() set).
  budget_totals committed() const { return committed_; }
  /// Everything charged since construction (or restore), open steps included.
  budget_totals cumulative() const { return total_; }
  /// Samples left under a cumulative limit (0 when spent or overspent).
  uint64_t samples_left(uint64_t limit) const {
    return limit > total_.samples ? limit - total_.samples : 0;
  }
  /// Restores the cumulative and committed counters (resume from a checkpoint: what the
  /// committed steps spent); open steps are dropped.
  void restore(budget_totals cumulative) {
    open_.clear();
    total_ = committed_ = cumulative;
  }

 private:
  std::map<uint64_t, budget_totals> open_;
  budget_totals total_;
  budget_totals committed_;
};

}  // namespace adarl
