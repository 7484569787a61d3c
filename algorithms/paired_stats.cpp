#include "algorithms/paired_stats.hpp"

#include <cmath>

namespace adarl {

double t_quantile_975(size_t df) {
  static constexpr double table[] = {
      0,      12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.3060, 2.2622,
      2.2281, 2.2010,  2.1788, 2.1604, 2.1448, 2.1314, 2.1199, 2.1098, 2.1009, 2.0930,
      2.0860, 2.0796,  2.0739, 2.0687, 2.0639, 2.0595, 2.0555, 2.0518, 2.0484, 2.0452,
      2.0423};
  if (df < std::size(table)) return table[df];
  // Cornish-Fisher expansion of the t quantile in 1/df around the normal's.
  const double z = 1.959963985, v = double(df);
  const double z3 = z * z * z, z5 = z3 * z * z;
  return z + (z3 + z) / (4 * v) + (5 * z5 + 16 * z3 + 3 * z) / (96 * v * v);
}

paired_summary paired_differences(std::span<const std::optional<double>> mine,
                                  std::span<const std::optional<double>> reference) {
  paired_summary s;
  double sum = 0;
  for (size_t i = 0; i < mine.size() && i < reference.size(); ++i) {
    std::optional<double> d;
    if (mine[i] && reference[i]) {
      d = *mine[i] - *reference[i];
      sum += *d;
      ++s.n;
    }
    s.differences.push_back(d);
  }
  if (s.n == 0) return s;
  const double mean = sum / double(s.n);
  s.mean = mean;
  if (s.n < 2) return s;
  double ss = 0;
  for (const auto& d : s.differences)
    if (d) ss += (*d - mean) * (*d - mean);
  const double se = std::sqrt(ss / double(s.n - 1)) / std::sqrt(double(s.n));
  const double half = t_quantile_975(s.n - 1) * se;
  s.low = mean - half;
  s.high = mean + half;
  return s;
}

std::optional<double> mean_under_curve(std::span<const xy> p, double x_end) {
  if (!(x_end > 0) || p.empty() || p.front().x > 0 || p.back().x < x_end) return std::nullopt;
  double area = 0;
  for (size_t i = 1; i < p.size(); ++i) {
    const xy a = p[i - 1];
    xy b = p[i];
    if (a.x >= x_end) break;
    if (b.x > x_end) {  // cut the last segment at x_end
      const double f = (x_end - a.x) / (b.x - a.x);
      b = {x_end, a.y + f * (b.y - a.y)};
    }
    area += (b.x - a.x) * (a.y + b.y) / 2;
  }
  return area / x_end;
}

}  // namespace adarl
