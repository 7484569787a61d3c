#pragma once
// The budget allocation kept up to date one prompt at a time (online Est at the speed
// of the other strategies).

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "algorithms/budget_allocation.hpp"
#include "algorithms/indexed_heap.hpp"
#include "algorithms/plan_groups.hpp"

namespace adarl {

/// allocate_budget's answer kept up to date while prompts change one at a time (online
/// Est, docs/algorithm.md "Online Est"), for a few heap and group operations per change instead of a
/// bisection and a sort over every prompt.
///
/// The scale c solves S(c) = sum_x clip(c w_x, lo_x, hi_x) = total, a piecewise-linear
/// function: each prompt is below lo, free or above hi, the clipped bounds and the free
/// weights are summed, and two heaps hold where each prompt next changes side, so a
/// small change of c crosses only the breakpoints in between. Largest-remainder
/// rounding is then the plan N whose residuals x - N all lie in one window of length
/// below 1 that holds 0 (at length exactly 1, equal fractions, the lower id is the one
/// rounded up); a change leaves a few prompts outside it, and moving one sample from the
/// largest residual to the smallest until none is restores it.
///
/// Exact or nothing: update() says true only when it has proven that allocate_budget
/// returns plan() for the current inputs, whichever scale c' its solver stops at. Any
/// such c' has |S(c') - total| within the solver's tolerance plus the rounding of its
/// sum; every x is nondecreasing in c, so from our c to c' the x move by no more than
/// that in all (and each by its share w / W within one linear piece), and residuals
/// that keep twice that margin from the window's ends round the same at c'. The one
/// exception, residuals exactly at both ends, is accepted only between equal weights,
/// whose x are bit-identical at every scale and which allocate_budget orders by id.
/// Otherwise (a residual within about 1e-9 of a tie with a different weight, in
/// practice) it says false and the caller re-plans with allocate_budget and reset().
/// The proof assumes allocate_budget's solver ends by its tolerance test, which it
/// does unless it uses up its 200 iterations; when its tolerance is too tight for its
/// bracket to be sure to pass it (huge batches or bounds), update() always says false.
///
/// Not thread-safe. Memory O(P). P = prompts, G = distinct plan values (at most
/// n_max - n_min + 1), g = prompts sharing a plan value.
class incremental_allocation {
 public:
  /// Starts over from inputs and a plan within the bounds that sums to `total` (for
  /// example what allocate_budget returned). O(P log P).
  void reset(std::span<const double> weights, std::span<const allocation_bounds> bounds,
             uint64_t total, std::span<const uint32_t> plan);
  /// Changes prompt i's weight. Precondition: finite and >= 0. O(log P + g).
  void set_weight(uint32_t i, double weight);
  /// Changes prompt i's bounds. Precondition: lo <= plan()[i] <= hi. O(log P + g).
  void set_bounds(uint32_t i, allocation_bounds bounds);

  /// Re-plans for the current inputs. True when plan() is now exactly allocate_budget's
  /// answer for them; false when that could not be proven: plan() then still sums to
  /// total within the bounds, and the caller should reset() from allocate_budget.
  /// O((1 + k) (G + log P + g)) for k breakpoints crossed and samples moved.
  bool update();

  /// The plan, by prompt.
  const std::vector<uint32_t>& plan() const { return plan_; }
  /// The prompts whose plan the last update() changed (some possibly twice).
  std::span<const uint32_t> changed() const { return changed_; }

 private:
  /// Where a prompt's clip(c w, lo, hi) is at the current scale; fixed when lo == hi.
  enum class regime : uint8_t { detached, fixed, at_lo, free, at_hi };
  struct item {
    double w = 0;
    uint32_t lo = 0;
    uint32_t hi = 0;
    regime reg = regime::detached;
    bool off_bound = false;  ///< Invariant: listed in off_bound_.
  };
  /// A prompt's residual x - N at the current scale.
  struct candidate {
    double residual = 0;
    uint32_t id = UINT32_MAX;
  };

  void set_limits();
  void rebuild();
  regime classify(const item& it) const;
  double up_key(const item& it) const;
  double down_key(const item& it) const;
  uint32_t bound(const item& it) const;
  void count(const item& it, int sign);
  void enter(uint32_t i, regime r);
  void leave(uint32_t i);
  void mark(uint32_t i);
  void cross(uint32_t i, bool up);
  void shift(uint32_t i, int delta);
  bool solve();
  bool rebalance(candidate& top, candidate& bottom);
  bool proven(const candidate& top, const candidate& bottom) const;
  bool window_holds(const candidate& top, const candidate& bottom, double margin) const;
  candidate highest(const double* skip_weight) const;
  candidate lowest(const double* skip_weight) const;

  std::vector<item> items_;
  std::vector<uint32_t> plan_;  ///< Invariant: sums to total_, each within its bounds.
  /// Per prompt, the scale above the current one where its regime changes (+inf: none).
  indexed_heap<std::less<>> up_;
  /// Per prompt, the scale below the current one where its regime changes (-inf: none).
  indexed_heap<std::greater<>> down_;
  plan_groups free_;                 ///< Invariant: exactly the free prompts, by plan.
  std::vector<uint32_t> off_bound_;  ///< Invariant: the clipped prompts whose plan is
                                     ///< not their bound (residual <= -1 or >= 1).
  std::vector<uint32_t> changed_;
  uint64_t total_ = 0;
  double c_ = 0;           ///< The scale; a root of S after a successful solve().
  int64_t clipped_ = 0;    ///< Invariant: sum of the bounds of non-free prompts.
  double w_free_ = 0;      ///< Invariant: within w_err_ of the sum of free weights.
  double w_err_ = 0;       ///< A bound on the rounding accumulated in w_free_.
  uint32_t n_free_ = 0;    ///< Invariant: number of free prompts.
  uint32_t hi_cap_ = 0;    ///< Invariant: >= every hi.
  double slack_ = 0;       ///< How far allocate_budget's S(c) may be from total.
  bool provable_ = false;  ///< False when the solver's tolerance is too tight to prove.
};

}  // namespace adarl
