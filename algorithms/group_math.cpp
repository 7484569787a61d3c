#include "algorithms/group_math.hpp"

#include <cmath>

namespace adarl {

uint32_t count_positives(std::span<const float> rewards, float threshold) {
  uint32_t k = 0;
  for (float r : rewards) k += r > threshold ? 1u : 0u;
  return k;
}

double mean_of(std::span<const float> rewards) {
  if (rewards.empty()) return 0.0;
  double s = 0;
  for (float r : rewards) s += r;
  return s / static_cast<double>(rewards.size());
}

double unbiased_std(std::span<const float> rewards) {
  const auto n = rewards.size();
  if (n < 2) return 0.0;
  const double m = mean_of(rewards);
  double ss = 0;
  for (float r : rewards) ss += (r - m) * (r - m);
  return std::sqrt(ss / static_cast<double>(n - 1));
}

double indicator_std(uint32_t k, uint32_t n) {
  if (n <= 1) return 1.0;
  const double nn = n;
  return std::sqrt(static_cast<double>(k) * (nn - k) / (nn * (nn - 1)));
}

double indicator_mean(uint32_t k, uint32_t n) {
  return n == 0 ? 0.0 : static_cast<double>(k) / n;
}

std::vector<float> centered(std::span<const float> rewards, double baseline) {
  return scaled(rewards, baseline, 1.0);
}

std::vector<float> scaled(std::span<const float> rewards, double baseline, double scale) {
  std::vector<float> out;
  out.reserve(rewards.size());
  for (float r : rewards) out.push_back(static_cast<float>((r - baseline) / scale));
  return out;
}

}  // namespace adarl
