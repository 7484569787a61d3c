// Group statistics shared by the strategies.
#include "algorithms/group_math.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace adarl {
namespace {

using v = std::vector<float>;

TEST(GroupMathTest, CountPositivesIsStrictlyAboveThreshold) {
  EXPECT_EQ(count_positives(v{0.7f, 0.71f, 1.f, 0.f, 0.69f}, 0.7f), 2u);
  EXPECT_EQ(count_positives(v{}, 0.7f), 0u);
  EXPECT_EQ(count_positives(v{0.5f, 0.5f}, 0.49f), 2u);
}

TEST(GroupMathTest, MeanOf) {
  EXPECT_DOUBLE_EQ(mean_of(v{1, 0, 0, 1, 1}), 0.6);
  EXPECT_DOUBLE_EQ(mean_of(v{0.25f, 0.75f}), 0.5);
  EXPECT_DOUBLE_EQ(mean_of(v{}), 0.0);
}

TEST(GroupMathTest, UnbiasedStdDividesByNMinusOne) {
  // {1, 0, 0, 0}: sum of squares 0.75, / 3 = 0.25 -> 0.5 (biased would be 0.433).
  EXPECT_DOUBLE_EQ(unbiased_std(v{1, 0, 0, 0}), 0.5);
  // {2, 4, 4, 4, 5, 5, 7, 9}: sum of squares 32, / 7.
  EXPECT_NEAR(unbiased_std(v{2, 4, 4, 4, 5, 5, 7, 9}), std::sqrt(32.0 / 7.0), 1e-12);
  EXPECT_DOUBLE_EQ(unbiased_std(v{3}), 0.0);
  EXPECT_DOUBLE_EQ(unbiased_std(v{}), 0.0);
  EXPECT_DOUBLE_EQ(unbiased_std(v{1, 1, 1}), 0.0);
}

TEST(GroupMathTest, IndicatorStdMatchesUnbiasedStdOfTheZeroOnePool) {
  EXPECT_DOUBLE_EQ(indicator_std(1, 4), 0.5);
  EXPECT_NEAR(indicator_std(2, 8), std::sqrt(12.0 / 56.0), 1e-12);
  for (uint32_t n = 2; n <= 12; ++n)
    for (uint32_t k = 0; k <= n; ++k) {
      v pool(n, 0.f);
      for (uint32_t i = 0; i < k; ++i) pool[i] = 1.f;
      EXPECT_NEAR(indicator_std(k, n), unbiased_std(pool), 1e-12) << k << "/" << n;
    }
  // A pool of at most one sample has std 1 by convention.
  EXPECT_DOUBLE_EQ(indicator_std(0, 0), 1.0);
  EXPECT_DOUBLE_EQ(indicator_std(1, 1), 1.0);
}

TEST(GroupMathTest, IndicatorMean) {
  EXPECT_DOUBLE_EQ(indicator_mean(3, 8), 0.375);
  EXPECT_DOUBLE_EQ(indicator_mean(0, 5), 0.0);
  EXPECT_DOUBLE_EQ(indicator_mean(0, 0), 0.0);
}

TEST(GroupMathTest, CenteredAndScaled) {
  const v r = {1, 0, 0.9f};
  const auto c = centered(r, 0.25);
  ASSERT_EQ(c.size(), 3u);
  EXPECT_FLOAT_EQ(c[0], 0.75f);
  EXPECT_FLOAT_EQ(c[1], -0.25f);
  EXPECT_FLOAT_EQ(c[2], 0.65f);
  const auto s = scaled(r, 0.5, 0.25);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_FLOAT_EQ(s[0], 2.f);
  EXPECT_FLOAT_EQ(s[1], -2.f);
  EXPECT_FLOAT_EQ(s[2], 1.6f);
  EXPECT_TRUE(centered(v{}, 1.0).empty());
}

}  // namespace
}  // namespace adarl
