#include "algorithms/convergence.hpp"

#include <algorithm>
#include <limits>

namespace adarl {

std::optional<double> first_reach(std::span<const curve_point> points, double target) {
  for (const auto& p : points)
    if (p.y >= target) return p.x;
  return std::nullopt;
}

std::vector<double> moving_average(std::span<const double> y, size_t window) {
  std::vector<double> out(y.begin(), y.end());
  if (window <= 1) return out;
  double sum = 0;
  for (size_t i = 0; i < y.size(); ++i) {
    sum += y[i];
    if (i >= window) sum -= y[i - window];
    out[i] = sum / double(std::min(i + 1, window));
  }
  return out;
}

reach_summary summarize_reach(std::span<const std::optional<double>> values) {
  constexpr double never = std::numeric_limits<double>::infinity();
  std::vector<double> v;
  v.reserve(values.size());
  for (const auto& x : values) v.push_back(x ? *x : never);
  std::sort(v.begin(), v.end());
  reach_summary s;
  s.runs = uint32_t(v.size());
  s.reached = uint32_t(std::count_if(v.begin(), v.end(), [&](double x) { return x != never; }));
  if (v.empty()) return s;
  auto finite = [&](double x) { return x == never ? std::nullopt : std::optional<double>(x); };
  s.min = finite(v.front());
  s.max = finite(v.back());
  const size_t n = v.size();
  if (n % 2) {
    s.median = finite(v[n / 2]);
  } else if (v[n / 2] != never) {  // v[n/2 - 1] <= v[n/2]
    s.median = (v[n / 2 - 1] + v[n / 2]) / 2;
  }
  return s;
}

reach_summary summarize(std::span<const double> values) {
  std::vector<std::optional<double>> v(values.begin(), values.end());
  return summarize_reach(v);
}

std::optional<double> speedup(const reach_summary& baseline, const reach_summary& s) {
  if (!baseline.median || !s.median) return std::nullopt;
  if (*s.median <= 0) return *baseline.median <= 0 ? std::optional<double>(1.0) : std::nullopt;
  return *baseline.median / *s.median;
}

int difficulty_bucket(double p) {
  if (p <= 0) return 0;
  if (p <= 0.2) return 1;
  if (p <= 0.5) return 2;
  return 3;
}

std::vector<std::optional<double>> bucket_means(std::span<const double> base,
                                                std::span<const double> accuracy) {
  std::vector<double> sum(difficulty_buckets, 0);
  std::vector<uint32_t> n(difficulty_buckets, 0);
  for (size_t i = 0; i < base.size() && i < accuracy.size(); ++i) {
    const int b = difficulty_bucket(base[i]);
    sum[b] += accuracy[i];
    ++n[b];
  }
  std::vector<std::optional<double>> out(difficulty_buckets);
  for (int b = 0; b < difficulty_buckets; ++b)
    if (n[b]) out[b] = sum[b] / n[b];
  return out;
}

std::vector<uint32_t> bucket_counts(std::span<const double> base) {
  std::vector<uint32_t> n(difficulty_buckets, 0);
  for (double p : base) ++n[difficulty_bucket(p)];
  return n;
}

}  // namespace adarl
