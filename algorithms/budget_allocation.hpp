#pragma once
// Spreading a step's sample budget over prompts by weight, within each prompt's bounds
// (the allocation of Est).

#include <cstdint>
#include <span>
#include <vector>

#include "base/result.hpp"

namespace adarl {

/// The scale solver of allocate_budget stops once |sum_x clip(c w_x) - total| is at most
/// this times max(1, total). incremental_allocation's proofs depend on it.
inline constexpr double allocation_sum_tolerance = 1e-9;

/// Bounds of one prompt's allocation. Invariant: lo <= hi.
struct allocation_bounds {
  uint32_t lo = 0;
  uint32_t hi = 0;
};

/// Splits exactly `total` samples among prompts in proportion to `weights`, each within
/// its bounds (docs/algorithm.md "Reinforce-Ada-Est"): N_x = clip(c * w_x, lo_x, hi_x), with the scale c
/// found by bisection so that the real-valued sum is `total`.
///
/// Rounding is settled by largest remainder: every N_x is first rounded down, then the
/// residue goes one sample at a time to the prompts with the largest fractional parts
/// (ties to the lower index) that are still below hi; symmetrically, an excess is taken
/// from the smallest fractional parts still above lo. The result sums to `total` exactly
/// and stays within the bounds.
///
/// Fails when sum(lo) > total or sum(hi) < total, or when a weight is negative or not
/// finite. Pure; O(P log(1/tol) + P log P) for P prompts. incremental_allocation keeps
/// this answer up to date under one-prompt changes.
result<std::vector<uint32_t>> allocate_budget(std::span<const double> weights,
                                              std::span<const allocation_bounds> bounds,
                                              uint64_t total);

}  // namespace adarl
