// The chance of a learning signal under a Beta belief (algorithms/signal_chance.hpp).
#include "algorithms/signal_chance.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace adarl {
namespace {

TEST(SignalChanceTest, BetaOneOneMakesEveryCountEquallyLikely) {
  // Beta(1, 1): the beta-binomial over 0..m is uniform, 1 / (m + 1) each. Two more
  // samples, one positive and one negative needed: only x = 1 of {0, 1, 2}.
  EXPECT_NEAR(signal_chance({1, 1}, 0, 0, 2, 1, 1), 1.0 / 3.0, 1e-12);
  // Eight more, 2 of each: x in 2..6 of 0..8, 5 of 9.
  EXPECT_NEAR(signal_chance({1, 1}, 0, 0, 8, 2, 2), 5.0 / 9.0, 1e-12);
}

TEST(SignalChanceTest, WhatThePoolHoldsCountsAndImpossibleIsZero) {
  EXPECT_DOUBLE_EQ(signal_chance({1, 1}, 2, 2, 0, 2, 2), 1.0);  // already there
  EXPECT_DOUBLE_EQ(signal_chance({1, 1}, 0, 0, 3, 2, 2), 0.0);  // 3 draws cannot give 4
  // One positive is in: one more positive and two negatives among 3 draws: x = 1.
  EXPECT_NEAR(signal_chance({1, 1}, 1, 0, 3, 2, 2), 1.0 / 4.0, 1e-12);
}

TEST(SignalChanceTest, ANearlyCertainFailureHasLittleChance) {
  // Beta(0.5, 40): p about 0.012; 32 draws rarely give 2 positives.
  const double hard = signal_chance({0.5, 40}, 0, 0, 32, 2, 2);
  EXPECT_LT(hard, 0.15);
  EXPECT_GT(hard, 0.0);
  // A prompt near 0.5 almost always shows both within 8 draws.
  EXPECT_GT(signal_chance({50, 50}, 0, 0, 8, 2, 2), 0.9);
  // Against the binomial with a known p (a very concentrated Beta): P(X >= 1, X <= 7)
  // for X ~ Bin(8, 0.3) = 1 - 0.7^8 - 0.3^8.
  EXPECT_NEAR(signal_chance({3e5, 7e5}, 0, 0, 8, 1, 1), 1 - std::pow(0.7, 8) - std::pow(0.3, 8),
              1e-4);
}

}  // namespace
}  // namespace adarl
