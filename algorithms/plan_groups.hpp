#pragma once
// Prompts grouped by planned sample count and sorted by weight, for incremental_allocation.

#include <cstdint>
#include <span>
#include <vector>

namespace adarl {

/// Prompts grouped by their planned sample count, each group sorted by weight, for
/// incremental_allocation: at a scale c a prompt of weight w planned N samples has the
/// residual c w - N, so a group's heaviest member has its largest residual and its
/// lightest the smallest, and equal weights have equal residuals.
///
/// Order within a group: ascending weight, equal weights by descending id. So back() is
/// the heaviest member with the lowest id and front() the lightest with the highest id,
/// the ends largest-remainder rounding's tie-break (the lower id first) picks.
/// Not thread-safe. A change is O(log g + g) for a group of g members (a sorted vector:
/// groups are small, a few dozen prompts, and stay contiguous in memory).
class plan_groups {
 public:
  /// One prompt in a group.
  struct member {
    double weight = 0;
    uint32_t id = 0;
  };

  /// Empties every group; plans may then range over 0..max_plan. O(max_plan).
  void clear(uint32_t max_plan);
  /// Adds a member to group `plan`. Precondition: not already there.
  void insert(uint32_t plan, member m);
  /// Removes a member from group `plan`. Precondition: it is there.
  void erase(uint32_t plan, member m);
  /// Inserts many members at once: O(n log n) rather than O(n g).
  void insert_all(std::span<const uint32_t> plans, std::span<const member> members);

  /// The plans with a non-empty group, in no particular order.
  std::span<const uint32_t> plans() const { return plans_; }
  /// Group `plan` in the order above.
  std::span<const member> group(uint32_t plan) const { return groups_[plan]; }

  /// The first member of `g` with weight >= w / > w (g in the order above). O(log g).
  static const member* lower_bound(std::span<const member> g, double w);
  static const member* upper_bound(std::span<const member> g, double w);

 private:
  void note_size(uint32_t plan);

  std::vector<std::vector<member>> groups_;  ///< Invariant: each in the order above.
  std::vector<uint32_t> plans_;  ///< Invariant: exactly the plans of non-empty groups.
  std::vector<int32_t> where_;   ///< Invariant: plans_[where_[p]] == p, or -1 when empty.
};

}  // namespace adarl
