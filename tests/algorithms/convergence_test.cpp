#include "algorithms/convergence.hpp"

#include <gtest/gtest.h>

namespace adarl {
namespace {

TEST(Convergence, FirstReachIsTheFirstPointAtOrAboveTheTarget) {
  const std::vector<curve_point> c{{0, 0.1}, {100, 0.3}, {200, 0.5}, {300, 0.4}, {400, 0.6}};
  EXPECT_EQ(first_reach(c, 0.5), 200.0);  // reaching exactly counts
  EXPECT_EQ(first_reach(c, 0.55), 400.0);  // a dip after 200 does not matter
  EXPECT_EQ(first_reach(c, 0.1), 0.0);
  EXPECT_FALSE(first_reach(c, 0.7).has_value());
  EXPECT_FALSE(first_reach({}, 0.0).has_value());
}

TEST(Convergence, MovingAverageIsTrailingAndShortAtTheStart) {
  const std::vector<double> y{1, 2, 3, 4, 5};
  const auto m = moving_average(y, 3);
  ASSERT_EQ(m.size(), 5u);
  EXPECT_DOUBLE_EQ(m[0], 1.0);
  EXPECT_DOUBLE_EQ(m[1], 1.5);
  EXPECT_DOUBLE_EQ(m[2], 2.0);
  EXPECT_DOUBLE_EQ(m[4], 4.0);
  EXPECT_EQ(moving_average(y, 1), y);
  EXPECT_EQ(moving_average(y, 0), y);
}

TEST(Convergence, ReachSummaryCountsNeverAsInfinity) {
  // All reached: ordinary median, min, max.
  std::vector<std::optional<double>> all{300.0, 100.0, 200.0};
  auto s = summarize_reach(all);
  EXPECT_EQ(s.median, 200.0);
  EXPECT_EQ(s.min, 100.0);
  EXPECT_EQ(s.max, 300.0);
  EXPECT_EQ(s.reached, 3u);
  EXPECT_EQ(s.runs, 3u);
  // One of three never reached: the median is still the middle run, max is unknown.
  std::vector<std::optional<double>> one_never{300.0, std::nullopt, 100.0};
  s = summarize_reach(one_never);
  EXPECT_EQ(s.median, 300.0);
  EXPECT_EQ(s.min, 100.0);
  EXPECT_FALSE(s.max.has_value());
  EXPECT_EQ(s.reached, 2u);
  // Two of three never reached: no median.
  std::vector<std::optional<double>> two_never{std::nullopt, 50.0, std::nullopt};
  s = summarize_reach(two_never);
  EXPECT_FALSE(s.median.has_value());
  EXPECT_EQ(s.min, 50.0);
  EXPECT_EQ(s.reached, 1u);
  // Even count: mean of the middle two, unless one of them never reached.
  std::vector<std::optional<double>> even{100.0, 400.0, 200.0, 300.0};
  EXPECT_EQ(summarize_reach(even).median, 250.0);
  std::vector<std::optional<double>> even_never{100.0, std::nullopt, 200.0, std::nullopt};
  EXPECT_FALSE(summarize_reach(even_never).median.has_value());
  // None: nothing known.
  std::vector<std::optional<double>> none{std::nullopt, std::nullopt};
  s = summarize_reach(none);
  EXPECT_FALSE(s.min.has_value());
  EXPECT_EQ(s.reached, 0u);
  EXPECT_EQ(summarize_reach({}).runs, 0u);
}

TEST(Convergence, SpeedupIsBaselineOverStrategyAndUnknownWhenEitherNeverReached) {
  reach_summary base, ada, never;
  base.median = 8000;
  ada.median = 3000;
  EXPECT_DOUBLE_EQ(*speedup(base, ada), 8000.0 / 3000.0);
  EXPECT_DOUBLE_EQ(*speedup(base, base), 1.0);
  EXPECT_FALSE(speedup(base, never).has_value());
  EXPECT_FALSE(speedup(never, ada).has_value());
  reach_summary zero;
  zero.median = 0;
  EXPECT_FALSE(speedup(base, zero).has_value());
  EXPECT_DOUBLE_EQ(*speedup(zero, zero), 1.0);
  EXPECT_DOUBLE_EQ(*speedup(zero, base), 0.0);
}

TEST(Convergence, DifficultyBucketsFollowThePaper) {
  EXPECT_EQ(difficulty_bucket(0.0), 0);
  EXPECT_EQ(difficulty_bucket(0.01), 1);
  EXPECT_EQ(difficulty_bucket(0.2), 1);
  EXPECT_EQ(difficulty_bucket(0.21), 2);
  EXPECT_EQ(difficulty_bucket(0.5), 2);
  EXPECT_EQ(difficulty_bucket(0.51), 3);
  EXPECT_EQ(difficulty_bucket(1.0), 3);
  const std::vector<double> base{0, 0, 0.1, 0.4, 0.9, 1.0};
  const std::vector<double> acc{1, 0, 1, 0.5, 1, 0};
  const auto m = bucket_means(base, acc);
  ASSERT_EQ(m.size(), 4u);
  EXPECT_DOUBLE_EQ(*m[0], 0.5);
  EXPECT_DOUBLE_EQ(*m[1], 1.0);
  EXPECT_DOUBLE_EQ(*m[2], 0.5);
  EXPECT_DOUBLE_EQ(*m[3], 0.5);
  EXPECT_EQ(bucket_counts(base), (std::vector<uint32_t>{2, 1, 1, 2}));
  const std::vector<double> easy{0.9}, one{1.0};
  const auto e = bucket_means(easy, one);
  EXPECT_FALSE(e[0].has_value());  // empty bucket
  EXPECT_DOUBLE_EQ(*e[3], 1.0);
}

}  // namespace
}  // namespace adarl
