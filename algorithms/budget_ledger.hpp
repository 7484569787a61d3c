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
  /// Everything charged since construction (or restore).
  budget_totals cumulative() const { return total_; }
  /// Samples left under a cumulative limit (0 when spent or overspent).
  uint64_t samples_left(uint64_t limit) const {
    return limit > total_.samples ? limit - total_.samples : 0;
  }
  /// Restores the cumulative counters (resume from a checkpoint).
  void restore(budget_totals cumulative) { total_ = cumulative; }

 private:
  std::map<uint64_t, budget_totals> open_;
  budget_totals total_;
};

}  // namespace adarl
