#pragma once
// Paired comparisons over seeds for `adarl compare`: a strategy's metric minus the
// reference strategy's on the same seed, their mean and a 95% Student-t interval, and
// the area under a learning curve. Pure (standard library only).

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

namespace adarl {

/// The mean of paired differences and its two-sided 95% t-interval over seeds.
struct paired_summary {
  size_t n = 0;                 ///< Seeds with both values.
  std::optional<double> mean;   ///< nullopt when n == 0.
  std::optional<double> low;    ///< mean - t(0.975, n-1) * sd / sqrt(n); nullopt when n < 2.
  std::optional<double> high;   ///< mean + the same.
  std::vector<std::optional<double>> differences;  ///< Per seed, in input order.
};

/// Student's t quantile t(0.975, df) for df >= 1 (table to 30, then a Cornish-Fisher
/// expansion around 1.95996); 0 for df == 0. Exact to 4 decimals.
double t_quantile_975(size_t df);

/// Differences mine[i] - reference[i] (nullopt where either is missing) and their mean
/// and 95% t-interval over the seeds where both exist. Precondition: equal sizes.
/// O(seeds).
paired_summary paired_differences(std::span<const std::optional<double>> mine,
                                  std::span<const std::optional<double>> reference);

/// A point of a curve (x ascending).
struct xy {
  double x = 0, y = 0;
};

/// The mean of y over [0, x_end] by the trapezoid rule on the points, the curve cut at
/// x_end by linear interpolation (the area divided by x_end, so it reads as an
/// accuracy). nullopt when x_end <= 0, there are no points, the first point is after 0,
/// or the points end before x_end. O(points).
std::optional<double> mean_under_curve(std::span<const xy> points, double x_end);

}  // namespace adarl
