// Paired differences over seeds (mean and 95% t-interval) and the mean under a curve,
// against values computed by hand.
#include "algorithms/paired_stats.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace adarl {
namespace {

using o = std::optional<double>;

TEST(PairedStatsTest, FiveSeedsGiveTheMeanAndTheTInterval) {
  // Differences 0.01..0.05: mean 0.03, sd sqrt(0.001 / 4) = 0.0158114, se 0.0070711,
  // t(0.975, 4) = 2.7764: half-width 0.019632.
  const std::vector<o> mine{0.51, 0.42, 0.63, 0.34, 0.55};
  const std::vector<o> ref{0.50, 0.40, 0.60, 0.30, 0.50};
  const auto p = paired_differences(mine, ref);
  EXPECT_EQ(p.n, 5u);
  ASSERT_TRUE(p.mean && p.low && p.high);
  EXPECT_NEAR(*p.mean, 0.03, 1e-12);
  EXPECT_NEAR(*p.low, 0.03 - 0.019632, 1e-5);
  EXPECT_NEAR(*p.high, 0.03 + 0.019632, 1e-5);
  ASSERT_EQ(p.differences.size(), 5u);
  EXPECT_NEAR(*p.differences[3], 0.04, 1e-12);
}

TEST(PairedStatsTest, AnIntervalCanStraddleZero) {
  // Differences +0.02, -0.01, +0.02, -0.01, +0.03: mean 0.01, sd sqrt(0.0014/4) =
  // 0.0187083, se 0.0083666, half-width 2.7764 * 0.0083666 = 0.023229.
  const std::vector<o> mine{0.52, 0.49, 0.52, 0.49, 0.53};
  const std::vector<o> ref{0.5, 0.5, 0.5, 0.5, 0.5};
  const auto p = paired_differences(mine, ref);
  EXPECT_NEAR(*p.mean, 0.01, 1e-12);
  EXPECT_NEAR(*p.low, 0.01 - 0.023229, 1e-5);
  EXPECT_NEAR(*p.high, 0.01 + 0.023229, 1e-5);
  EXPECT_LT(*p.low, 0.0);
}

TEST(PairedStatsTest, MissingValuesDropTheirSeedOnly) {
  // Seed 2 lacks the strategy's value, seed 4 the reference's: 3 pairs remain,
  // differences 1, 2, 3: mean 2, sd 1, se 1/sqrt(3), t(0.975, 2) = 4.3027.
  const std::vector<o> mine{2, std::nullopt, 5, 7, 9};
  const std::vector<o> ref{1, 1, 3, std::nullopt, 6};
  const auto p = paired_differences(mine, ref);
  EXPECT_EQ(p.n, 3u);
  EXPECT_NEAR(*p.mean, 2.0, 1e-12);
  EXPECT_NEAR(*p.high - *p.mean, 4.3027 / std::sqrt(3.0), 1e-4);
  EXPECT_FALSE(p.differences[1]);
  EXPECT_FALSE(p.differences[3]);
}

TEST(PairedStatsTest, OnePairHasAMeanButNoInterval) {
  const std::vector<o> mine{0.7}, ref{0.5};
  const auto p = paired_differences(mine, ref);
  EXPECT_NEAR(*p.mean, 0.2, 1e-12);
  EXPECT_FALSE(p.low);
  EXPECT_FALSE(p.high);
  EXPECT_FALSE(paired_differences(std::vector<o>{}, std::vector<o>{}).mean);
}

TEST(PairedStatsTest, TQuantilesMatchTheTable) {
  EXPECT_NEAR(t_quantile_975(1), 12.7062, 1e-4);
  EXPECT_NEAR(t_quantile_975(4), 2.7764, 1e-4);
  EXPECT_NEAR(t_quantile_975(30), 2.0423, 1e-4);
  EXPECT_NEAR(t_quantile_975(40), 2.0211, 5e-4);   // beyond the table: the expansion
  EXPECT_NEAR(t_quantile_975(120), 1.9799, 5e-4);
}

TEST(PairedStatsTest, MeanUnderCurveCutsTheLastSegment) {
  // (0, 0.2) -> (10, 0.4) -> (20, 0.4): over [0, 15]: area 10 * 0.3 + 5 * 0.4 = 5,
  // mean 5 / 15.
  const std::vector<xy> p{{0, 0.2}, {10, 0.4}, {20, 0.4}};
  EXPECT_NEAR(*mean_under_curve(p, 15), 5.0 / 15.0, 1e-12);
  EXPECT_NEAR(*mean_under_curve(p, 20), (3.0 + 4.0) / 20.0, 1e-12);
  // A rising segment cut in its middle: (0, 0) -> (10, 1) over [0, 5]: mean 0.25.
  EXPECT_NEAR(*mean_under_curve(std::vector<xy>{{0, 0}, {10, 1}}, 5), 0.25, 1e-12);
  EXPECT_FALSE(mean_under_curve(p, 25));  // the curve ends before
  EXPECT_FALSE(mean_under_curve(std::vector<xy>{{5, 0.2}, {10, 0.3}}, 8));  // starts late
  EXPECT_FALSE(mean_under_curve(p, 0));
}

}  // namespace
}  // namespace adarl
