#include "algorithms/budget_allocation.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

namespace adarl {
namespace {

// sum_i clip(c * w_i, lo_i, hi_i), and its slope in c (the weights not clipped at c).
struct sum_and_slope {
  double sum = 0;
  double slope = 0;
};

sum_and_slope clipped_sum(std::span<const double> w, std::span<const allocation_bounds> b,
                          double c) {
  sum_and_slope r;
  for (size_t i = 0; i < w.size(); ++i) {
    const double x = c * w[i], lo = b[i].lo, hi = b[i].hi;
    if (x <= lo) {
      r.sum += lo;
    } else if (x >= hi) {
      r.sum += hi;
    } else {
      r.sum += x;
      r.slope += w[i];
    }
  }
  return r;
}

// The scale c with clipped_sum(c) == total. The sum is monotone and piecewise linear in
// c, so Newton steps land exactly on the root once inside the right linear piece; a
// bracket keeps every step safe (bisection when Newton would leave it). A handful of
// O(P) passes in practice, which matters to online Est that re-plans per result.
double solve_scale(std::span<const double> w, std::span<const allocation_bounds> b,
                   double total) {
  double lo = 0, hi = 1;
  while (clipped_sum(w, b, hi).sum < total && hi < 1e300) hi *= 2;
  double c = hi;
  for (int it = 0; it < 200 && hi - lo > 1e-15 * hi; ++it) {
    const auto s = clipped_sum(w, b, c);
    if (std::fabs(s.sum - total) <= allocation_sum_tolerance * std::max(1.0, total))
      return c;
    (s.sum < total ? lo : hi) = c;
    double next = s.slope > 0 ? c + (total - s.sum) / s.slope : 0.5 * (lo + hi);
    if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);
    c = next;
  }
  return c;
}

}  // namespace

result<std::vector<uint32_t>> allocate_budget(std::span<const double> weights,
                                              std::span<const allocation_bounds> bounds,
                                              uint64_t total) {
  const size_t n = weights.size();
  if (bounds.size() != n) return error{"allocate_budget: weights and bounds differ in size"};
  uint64_t sum_lo = 0, sum_hi = 0;
  for (size_t i = 0; i < n; ++i) {
    if (!std::isfinite(weights[i]) || weights[i] < 0)
      return error{"allocate_budget: weight " + std::to_string(i) +
                   " is negative or not finite"};
    if (bounds[i].lo > bounds[i].hi)
      return error{"allocate_budget: bounds of prompt " + std::to_string(i) +
                   " have lo > hi"};
    sum_lo += bounds[i].lo;
    sum_hi += bounds[i].hi;
  }
  if (sum_lo > total || sum_hi < total)
    return error{"allocate_budget: a budget of " + std::to_string(total) +
                 " samples cannot be split within the bounds (they allow " +
                 std::to_string(sum_lo) + " to " + std::to_string(sum_hi) + ")"};

  const double c = solve_scale(weights, bounds, static_cast<double>(total));
  std::vector<uint32_t> out(n);
  std::vector<double> frac(n);
  int64_t residue = static_cast<int64_t>(total);
  for (size_t i = 0; i < n; ++i) {
    const double x = std::clamp(c * weights[i], static_cast<double>(bounds[i].lo),
                                static_cast<double>(bounds[i].hi));
    out[i] = static_cast<uint32_t>(std::floor(x));
    frac[i] = x - out[i];
    residue -= out[i];
  }
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return frac[a] > frac[b]; });
  // Repeated passes: at most a few are needed since the bisection is near exact, but a
  // pass can skip prompts at their bound.
  while (residue > 0) {
    for (size_t i : order)
      if (residue > 0 && out[i] < bounds[i].hi) ++out[i], --residue;
  }
  while (residue < 0) {
    for (auto it = order.rbegin(); it != order.rend(); ++it)
      if (residue < 0 && out[*it] > bounds[*it].lo) --out[*it], ++residue;
  }
  return out;
}

}  // namespace adarl
