#include "algorithms/downsample.hpp"

#include <algorithm>
#include <cmath>

namespace adarl {

std::vector<uint32_t> balanced_downsample(std::span<const float> pool, float threshold,
                                          uint32_t take, uint32_t target_pos) {
  uint32_t n_pos_total = 0;
  for (float r : pool) n_pos_total += r > threshold ? 1u : 0u;
  const auto size = static_cast<uint32_t>(pool.size());
  const uint32_t n_neg_total = size - n_pos_total;
  take = std::min(take, size);
  uint32_t want_pos = std::min(target_pos, n_pos_total);
  const uint32_t want_neg = std::min(take - std::min(want_pos, take), n_neg_total);
  want_pos = std::min(n_pos_total, take - want_neg);  // fill from the class with extras
  std::vector<uint32_t> out;
  out.reserve(take);
  uint32_t got_pos = 0, got_neg = 0;
  for (uint32_t i = 0; i < size; ++i) {
    const bool positive = pool[i] > threshold;
    if (positive && got_pos < want_pos) {
      out.push_back(i);
      ++got_pos;
    } else if (!positive && got_neg < want_neg) {
      out.push_back(i);
      ++got_neg;
    }
  }
  return out;
}

uint32_t proportional_positive_target(uint32_t positives, uint32_t pool, uint32_t take) {
  if (pool == 0 || take < 2) return std::min<uint32_t>(1, take);
  const auto t = static_cast<uint32_t>(
      std::ceil(static_cast<double>(positives) / pool * take - 1e-12));
  return std::clamp<uint32_t>(t, 1, take - 1);
}

}  // namespace adarl
