#pragma once
// How fast a run converges, measured on cumulative samples (or tokens) rather than
// steps: the first point of a curve at a target, summaries over seeds that keep runs
// which never got there, the speed-up against a baseline, and accuracy by difficulty
// bucket of the base model (the paper's buckets). Pure; used by `adarl compare`.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace adarl {

/// One point of a learning curve: x = cumulative samples (or tokens), y = the metric.
struct curve_point {
  double x = 0;
  double y = 0;
};

/// The x of the first point whose y reaches `target` (y >= target), walking the points
/// in the given order (ascending x); nullopt when no point does. O(points).
std::optional<double> first_reach(std::span<const curve_point> points, double target);

/// Trailing moving average: out[i] = mean of y[max(0, i - window + 1) .. i]. A window of
/// 0 or 1 returns y unchanged. O(size).
std::vector<double> moving_average(std::span<const double> y, size_t window);

/// Median, min and max over seeds of "x at which a run reached the target", where a
/// run that never reached it counts as +infinity: the median is nullopt when the middle
/// run(s) never reached it, max is nullopt when any run never did, min is nullopt when
/// none did.
struct reach_summary {
  std::optional<double> median;
  std::optional<double> min;
  std::optional<double> max;
  uint32_t reached = 0;   ///< Runs that reached the target.
  uint32_t runs = 0;      ///< Runs summarised.
};

/// O(runs log runs). For an even number of runs the median is the mean of the two
/// middle values (nullopt if either is +infinity).
reach_summary summarize_reach(std::span<const std::optional<double>> values);

/// Plain median, min and max of finite values; all nullopt for an empty input.
reach_summary summarize(std::span<const double> values);

/// How many times fewer samples than the baseline: baseline median / this median.
/// nullopt when either median is missing (never reached) or only this median is 0;
/// 1 when both are 0 (both at the target from the start).
std::optional<double> speedup(const reach_summary& baseline, const reach_summary& s);

/// The paper's difficulty buckets of the base model's pass rate p:
/// 0 -> 0, (0, 0.2] -> 1, (0.2, 0.5] -> 2, (0.5, 1] -> 3.
inline constexpr int difficulty_buckets = 4;
int difficulty_bucket(double pass_rate);

/// Mean of `accuracy[i]` over the prompts i of each bucket of `base_pass_rate[i]`;
/// nullopt for an empty bucket. Precondition: equal sizes. O(prompts).
std::vector<std::optional<double>> bucket_means(std::span<const double> base_pass_rate,
                                                std::span<const double> accuracy);

/// Prompts per bucket of `base_pass_rate`.
std::vector<uint32_t> bucket_counts(std::span<const double> base_pass_rate);

}  // namespace adarl
