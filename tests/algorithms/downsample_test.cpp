// Balanced down-sampling and the pos-fallback target (docs/algorithm.md "Reinforce-Ada-Seq").
#include "algorithms/downsample.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

namespace adarl {
namespace {

using idx = std::vector<uint32_t>;
using pool_t = std::vector<float>;

idx pick(const pool_t& pool, uint32_t take, uint32_t target_pos, float threshold = 0.7f) {
  return balanced_downsample(pool, threshold, take, target_pos);
}

TEST(DownsampleTest, TakesFirstPositivesThenFirstNegatives) {
  // Positives 2, 4, 5, 7; negatives 0, 1, 3, 6.
  EXPECT_EQ(pick({0, 0, 1, 0, 1, 1, 0, 1}, 4, 2), (idx{0, 1, 2, 4}));
  // Positives 3, 5, 6, 7; negatives 0, 1, 2, 4.
  EXPECT_EQ(pick({0, 0, 0, 1, 0, 1, 1, 1}, 4, 2), (idx{0, 1, 3, 5}));
  // n = 6: three of each.
  EXPECT_EQ(pick({1, 1, 1, 1, 0, 0, 0, 0}, 6, 3), (idx{0, 1, 2, 4, 5, 6}));
}

TEST(DownsampleTest, FillsFromNegativesWhenPositivesAreShort) {
  EXPECT_EQ(pick({0, 0, 0, 0, 0, 0, 1, 0}, 4, 2), (idx{0, 1, 2, 6}));
  EXPECT_EQ(pick({0, 0, 0, 0, 0, 0, 0, 0}, 4, 2), (idx{0, 1, 2, 3}));
}

TEST(DownsampleTest, FillsFromPositivesWhenNegativesAreShort) {
  // One negative (6): 2 positives, the negative, then the third positive.
  EXPECT_EQ(pick({1, 1, 1, 1, 1, 1, 0, 1}, 4, 2), (idx{0, 1, 2, 6}));
  EXPECT_EQ(pick({1, 1, 1, 1, 1}, 4, 2), (idx{0, 1, 2, 3}));
}

TEST(DownsampleTest, ThresholdIsStrict) {
  // 0.7 is a negative, 0.71 a positive.
  EXPECT_EQ(pick({0.7f, 0.7f, 0.7f, 0.71f, 0.7f, 0.71f}, 4, 2), (idx{0, 1, 3, 5}));
  EXPECT_EQ(pick({0.7f, 0.7f, 0.7f, 0.71f, 0.7f, 0.71f}, 4, 2, /*threshold=*/0.75f),
            (idx{0, 1, 2, 3}));
}

TEST(DownsampleTest, TargetDecidesHowManyPositives) {
  const pool_t pool = {1, 0, 1, 1, 0, 0, 1, 0};  // positives 0, 2, 3, 6
  EXPECT_EQ(pick(pool, 4, 0), (idx{1, 4, 5, 7}));
  EXPECT_EQ(pick(pool, 4, 1), (idx{0, 1, 4, 5}));
  EXPECT_EQ(pick(pool, 4, 3), (idx{0, 1, 2, 3}));
  EXPECT_EQ(pick(pool, 4, 4), (idx{0, 2, 3, 6}));
  EXPECT_EQ(pick(pool, 4, 9), (idx{0, 2, 3, 6}));
}

TEST(DownsampleTest, SmallPoolGivesEverything) {
  EXPECT_EQ(pick({1, 0}, 4, 2), (idx{0, 1}));
  EXPECT_EQ(pick({}, 4, 2), idx{});
  EXPECT_EQ(pick({1, 0, 1}, 0, 2), idx{});
}

TEST(DownsampleTest, RandomPoolsKeepSizeOrderAndTarget) {
  std::mt19937 rng(5);
  for (int trial = 0; trial < 3000; ++trial) {
    const auto size = std::uniform_int_distribution<uint32_t>(0, 40)(rng);
    const auto take = std::uniform_int_distribution<uint32_t>(0, 10)(rng);
    const auto target = std::uniform_int_distribution<uint32_t>(0, take)(rng);
    const double p = std::uniform_real_distribution<double>(0, 1)(rng);
    pool_t pool(size);
    uint32_t pos = 0;
    for (auto& r : pool) {
      r = std::uniform_real_distribution<double>(0, 1)(rng) < p ? 1.f : 0.f;
      pos += r > 0.7f;
    }
    const auto out = pick(pool, take, target);
    ASSERT_EQ(out.size(), std::min(take, size)) << trial;
    EXPECT_TRUE(std::is_sorted(out.begin(), out.end()));
    EXPECT_EQ(std::adjacent_find(out.begin(), out.end()), out.end());
    uint32_t kept_pos = 0;
    for (auto i : out) kept_pos += pool[i] > 0.7f;
    const uint32_t kept_neg = static_cast<uint32_t>(out.size()) - kept_pos;
    // As close to the target as the classes allow.
    const uint32_t want = std::min(target, pos);
    const uint32_t neg = size - pos;
    EXPECT_EQ(kept_neg, std::min(static_cast<uint32_t>(out.size()) - want, neg)) << trial;
    // Within a class, the first in generation order.
    uint32_t seen_pos = 0, seen_neg = 0;
    for (uint32_t i = 0; i < size; ++i) {
      const bool chosen = std::binary_search(out.begin(), out.end(), i);
      if (pool[i] > 0.7f) {
        EXPECT_EQ(chosen, seen_pos < kept_pos) << trial;
        ++seen_pos;
      } else {
        EXPECT_EQ(chosen, seen_neg < kept_neg) << trial;
        ++seen_neg;
      }
    }
  }
}

TEST(DownsampleTest, ProportionalTargetIsCeilOfShareClippedAwayFromTheEnds) {
  EXPECT_EQ(proportional_positive_target(1, 32, 4), 1u);   // ceil(0.125)
  EXPECT_EQ(proportional_positive_target(9, 32, 4), 2u);   // ceil(1.125)
  EXPECT_EQ(proportional_positive_target(8, 32, 4), 1u);   // exactly 1, not 2
  EXPECT_EQ(proportional_positive_target(16, 32, 4), 2u);  // exactly 2
  EXPECT_EQ(proportional_positive_target(3, 5, 4), 3u);    // ceil(2.4)
  EXPECT_EQ(proportional_positive_target(5, 16, 8), 3u);   // ceil(2.5)
  EXPECT_EQ(proportional_positive_target(0, 32, 4), 1u);   // clipped up to 1
  EXPECT_EQ(proportional_positive_target(30, 32, 4), 3u);  // ceil(3.75) = 4 -> take - 1
  EXPECT_EQ(proportional_positive_target(32, 32, 4), 3u);
}

TEST(DownsampleTest, ProportionalTargetExactMultiplesAreNotRoundedUp) {
  // k/pool * take an integer in exact arithmetic: floating error must not add one.
  // E.g. 7/25 * 25 is 7.000000000000001 in doubles.
  EXPECT_EQ(proportional_positive_target(7, 25, 25), 7u);
  for (uint32_t pool = 1; pool <= 64; ++pool)
    for (uint32_t take = 2; take <= 64; ++take)
      for (uint32_t k = 0; k <= pool; ++k)
        if ((k * take) % pool == 0) {
          const uint32_t exact = std::clamp<uint32_t>(k * take / pool, 1, take - 1);
          EXPECT_EQ(proportional_positive_target(k, pool, take), exact)
              << k << "/" << pool << " * " << take;
        }
}

TEST(DownsampleTest, ProportionalTargetDegenerateSizes) {
  EXPECT_EQ(proportional_positive_target(0, 0, 4), 1u);
  EXPECT_EQ(proportional_positive_target(1, 1, 1), 1u);
  EXPECT_EQ(proportional_positive_target(1, 1, 0), 0u);
  EXPECT_EQ(proportional_positive_target(1, 2, 2), 1u);  // [1, 1]
}

}  // namespace
}  // namespace adarl
