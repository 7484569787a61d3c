// allocate_budget (docs/algorithm.md "Reinforce-Ada-Est"): exact sums, bounds, largest-remainder rounding,
// infeasible inputs.
#include "algorithms/budget_allocation.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

namespace adarl {
namespace {

using plan_t = std::vector<uint32_t>;
using weights_t = std::vector<double>;
using bounds_t = std::vector<allocation_bounds>;

bounds_t same(size_t n, uint32_t lo, uint32_t hi) {
  return bounds_t(n, {lo, hi});
}

plan_t allocate(const weights_t& w, const bounds_t& b, uint64_t total) {
  auto r = allocate_budget(w, b, total);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.err().message);
  return r.ok() ? *r : plan_t{};
}

TEST(BudgetAllocationTest, ProportionalWhenTheScaleIsExact) {
  // c = 2: 2, 4, 6, 8.
  EXPECT_EQ(allocate({1, 2, 3, 4}, same(4, 0, 100), 20), (plan_t{2, 4, 6, 8}));
}

TEST(BudgetAllocationTest, ResidueGoesToTheLargestFractions) {
  // c = 10/7: 1.43, 2.86, 5.71 -> floors 1, 2, 5 (8); +1 to 2.86 and 5.71.
  EXPECT_EQ(allocate({1, 2, 4}, same(3, 0, 100), 10), (plan_t{1, 3, 6}));
}

TEST(BudgetAllocationTest, TiesGoToTheLowerIndex) {
  // 10/3 each: floors 3, 3, 3, the residue 1 to index 0.
  EXPECT_EQ(allocate({1, 1, 1}, same(3, 0, 100), 10), (plan_t{4, 3, 3}));
  // 8.5, 8.5 and a prompt held at lo = 3: the residue 1 to index 0.
  EXPECT_EQ(allocate({1, 1, 0.01}, same(3, 3, 20), 20), (plan_t{9, 8, 3}));
  EXPECT_EQ(allocate({0.01, 1, 1}, same(3, 3, 20), 20), (plan_t{3, 9, 8}));
  // Many ties (more than a small-array sort keeps in order): 40 x 1.25 -> the residue
  // 10 goes to indices 0..9.
  plan_t want(40, 1);
  std::fill(want.begin(), want.begin() + 10, 2u);
  EXPECT_EQ(allocate(weights_t(40, 1.0), same(40, 0, 5), 50), want);
}

TEST(BudgetAllocationTest, UpperBoundsHoldAndTheRestIsRedistributed) {
  EXPECT_EQ(allocate({100, 1, 1}, same(3, 2, 10), 20), (plan_t{10, 5, 5}));
  // Per-prompt bounds: prompt 1 is pinned at exactly 7.
  EXPECT_EQ(allocate({1, 100, 1}, {{0, 50}, {7, 7}, {0, 50}}, 21), (plan_t{7, 7, 7}));
}

TEST(BudgetAllocationTest, TotalsAtTheBoundsGiveTheBounds) {
  const bounds_t b = {{1, 4}, {2, 5}, {3, 9}};
  EXPECT_EQ(allocate({5, 1, 1}, b, 6), (plan_t{1, 2, 3}));
  EXPECT_EQ(allocate({5, 1, 1}, b, 18), (plan_t{4, 5, 9}));
}

TEST(BudgetAllocationTest, ZeroWeightsTakeTheirLowerBound) {
  // The zero-weight prompt stays at lo while the other can take the rest.
  EXPECT_EQ(allocate({0, 1}, same(2, 1, 10), 6), (plan_t{1, 5}));
  // All zero: every prompt at lo, the residue spread one by one from index 0.
  EXPECT_EQ(allocate({0, 0, 0}, same(3, 1, 10), 7), (plan_t{3, 2, 2}));
  // The positive-weight prompt is full: the zero-weight one must absorb the rest.
  EXPECT_EQ(allocate({0, 1}, {{0, 10}, {0, 5}}, 8), (plan_t{3, 5}));
}

TEST(BudgetAllocationTest, ExtremeWeightRatiosStillSumExactly) {
  const weights_t w = {1e-9, 1.0, 1e9};
  const auto p = allocate(w, same(3, 1, 1000), 1500);
  EXPECT_EQ(p, (plan_t{1, 499, 1000}));
}

TEST(BudgetAllocationTest, EmptyInputSplitsAZeroBudget) {
  EXPECT_EQ(allocate({}, {}, 0), plan_t{});
  EXPECT_FALSE(allocate_budget({}, {}, 1).ok());
}

TEST(BudgetAllocationTest, InfeasibleBudgetsAreErrors) {
  const weights_t w = {1, 1};
  const auto low = allocate_budget(w, same(2, 3, 5), 5);  // needs at least 6
  ASSERT_FALSE(low.ok());
  EXPECT_NE(low.err().message.find("6 to 10"), std::string::npos) << low.err().message;
  const auto high = allocate_budget(w, same(2, 3, 5), 11);  // allows at most 10
  ASSERT_FALSE(high.ok());
  EXPECT_NE(high.err().message.find("11"), std::string::npos) << high.err().message;
  EXPECT_TRUE(allocate_budget(w, same(2, 3, 5), 6).ok());
  EXPECT_TRUE(allocate_budget(w, same(2, 3, 5), 10).ok());
}

TEST(BudgetAllocationTest, BadWeightsAndBoundsAreErrors) {
  const auto b = same(2, 0, 10);
  const auto negative = allocate_budget(weights_t{1, -1}, b, 5);
  ASSERT_FALSE(negative.ok());
  EXPECT_NE(negative.err().message.find("weight 1"), std::string::npos);
  EXPECT_FALSE(allocate_budget(weights_t{std::nan(""), 1}, b, 5).ok());
  EXPECT_FALSE(
      allocate_budget(weights_t{std::numeric_limits<double>::infinity(), 1}, b, 5).ok());
  EXPECT_FALSE(allocate_budget(weights_t{1, 1}, bounds_t{{0, 10}}, 5).ok());  // sizes
  const auto inverted = allocate_budget(weights_t{1, 1}, bounds_t{{0, 10}, {4, 3}}, 5);
  ASSERT_FALSE(inverted.ok());
  EXPECT_NE(inverted.err().message.find("prompt 1"), std::string::npos);
}

TEST(BudgetAllocationTest, RandomInputsSumExactlyWithinBoundsAndAreMonotone) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 2000; ++trial) {
    const size_t n = std::uniform_int_distribution<size_t>(1, 24)(rng);
    const uint32_t lo = std::uniform_int_distribution<uint32_t>(0, 4)(rng);
    const uint32_t hi = lo + std::uniform_int_distribution<uint32_t>(0, 40)(rng);
    weights_t w(n);
    for (auto& x : w) x = std::exp(std::uniform_real_distribution<double>(-8, 8)(rng));
    const uint64_t total = std::uniform_int_distribution<uint64_t>(n * lo, n * hi)(rng);
    const auto r = allocate_budget(w, same(n, lo, hi), total);
    ASSERT_TRUE(r.ok()) << trial;
    const auto& p = *r;
    ASSERT_EQ(p.size(), n);
    EXPECT_EQ(std::accumulate(p.begin(), p.end(), uint64_t{0}), total) << trial;
    for (size_t i = 0; i < n; ++i) {
      EXPECT_GE(p[i], lo);
      EXPECT_LE(p[i], hi);
      // Same bounds: a larger weight never gets fewer samples.
      for (size_t j = 0; j < n; ++j)
        if (w[i] > w[j] && p[i] < p[j])
          ADD_FAILURE() << trial << ": weight " << i << " > " << j
                        << " but fewer samples";
    }
  }
}

}  // namespace
}  // namespace adarl
