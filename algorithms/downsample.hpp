#pragma once
// Balanced down-sampling of a prompt's pool to the group the learner trains on (Seq).

#include <cstdint>
#include <span>
#include <vector>

namespace adarl {

/// Balanced down-sampling of a pool to `take` samples (docs/algorithm.md "Reinforce-Ada-Seq"): take up to
/// `target_pos` positives (reward > threshold), the first in generation order; then
/// negatives, first first, to fill `take`; then fill what is left from whichever class
/// has extras. Returns the chosen indices into `pool`, ascending.
/// Postcondition: the size is min(take, pool.size()). Pure; O(pool size).
std::vector<uint32_t> balanced_downsample(std::span<const float> pool, float threshold,
                                          uint32_t take, uint32_t target_pos);

/// The positive target of a pos-exit fallback group: ceil(positives / pool * take),
/// clipped to [1, take - 1].
uint32_t proportional_positive_target(uint32_t positives, uint32_t pool, uint32_t take);

}  // namespace adarl
