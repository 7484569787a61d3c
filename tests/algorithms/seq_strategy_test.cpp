// Reinforce-Ada-Seq (docs/algorithm.md "Reinforce-Ada-Seq"): rounds, exit rules, fallback,
// down-sampling, baseline and advantages, with hand-computed cases.
#include "algorithms/seq_strategy.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "strategy_driver.hpp"
#include "strategy_feed.hpp"

namespace adarl {
namespace {

using test::feed;
using test::make_prompts;
using test::send;
using v = std::vector<float>;
using idx = std::vector<uint32_t>;

seq_config balance_config() {
  seq_config c;  // n = 4, M = 8, N = 4: K_pos = 2, K_neg = 2
  c.exit = exit_rule::balance;
  return c;
}

seq_config pos_config() {
  seq_config c;  // n = 4, M = 8, N = 4: K_pos = 1
  c.exit = exit_rule::pos;
  return c;
}

void expect_floats(const std::vector<float>& got, const std::vector<double>& want,
                   double tol = 1e-6) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "at " << i;
}

TEST(SeqStrategyTest, StartRequestsOneRoundOfMPerPrompt) {
  seq_strategy s(balance_config());
  const auto prompts = make_prompts(3);
  decisions d;
  s.start(prompts, d);
  ASSERT_EQ(d.requests.size(), 3u);
  for (uint32_t i = 0; i < 3; ++i) {
    EXPECT_EQ(d.requests[i].slot, i);
    EXPECT_EQ(d.requests[i].first_index, 0u);
    EXPECT_EQ(d.requests[i].count, 8u);
  }
  EXPECT_TRUE(d.finished.empty());
  EXPECT_FALSE(d.step_done);
  EXPECT_FALSE(s.done());
}

TEST(SeqStrategyTest, EmptyBatchIsDoneAtStart) {
  seq_strategy s(balance_config());
  decisions d;
  s.start({}, d);
  EXPECT_TRUE(d.step_done);
  EXPECT_TRUE(d.requests.empty());
  EXPECT_TRUE(s.done());
}

TEST(SeqStrategyTest, BalanceExitsOnlyWithTwoPositivesAndTwoNegatives) {
  seq_strategy s(balance_config());
  const auto prompts = make_prompts(3);
  decisions d;
  s.start(prompts, d);

  // Two positives, six negatives: exits after round 1.
  auto d0 = feed(s, 0, 0, {1, 1, 0, 0, 0, 0, 0, 0});
  ASSERT_EQ(d0.finished.size(), 1u);
  EXPECT_EQ(d0.finished[0].exit, exit_kind::balance);
  EXPECT_EQ(d0.finished[0].rounds, 1u);
  EXPECT_TRUE(d0.requests.empty());

  // One positive only: no exit, the next round is requested.
  auto d1 = feed(s, 1, 0, {1, 0, 0, 0, 0, 0, 0, 0});
  EXPECT_TRUE(d1.finished.empty());
  ASSERT_EQ(d1.requests.size(), 1u);
  EXPECT_EQ(d1.requests[0].slot, 1u);

  // One negative only: no exit either.
  auto d2 = feed(s, 2, 0, {1, 1, 1, 1, 1, 1, 1, 0});
  EXPECT_TRUE(d2.finished.empty());
  ASSERT_EQ(d2.requests.size(), 1u);

  // Round 2 brings the second positive (slot 1) and the second negative (slot 2).
  auto d1b = feed(s, 1, 8, {0, 0, 0, 0, 0, 1, 0, 0});
  ASSERT_EQ(d1b.finished.size(), 1u);
  EXPECT_EQ(d1b.finished[0].exit, exit_kind::balance);
  EXPECT_EQ(d1b.finished[0].rounds, 2u);
  EXPECT_FALSE(d1b.step_done);
  auto d2b = feed(s, 2, 8, {1, 1, 1, 0, 1, 1, 1, 1});
  ASSERT_EQ(d2b.finished.size(), 1u);
  EXPECT_EQ(d2b.finished[0].exit, exit_kind::balance);
  EXPECT_TRUE(d2b.step_done);
  EXPECT_TRUE(s.done());
}

TEST(SeqStrategyTest, PosExitsOnTheFirstPositiveRound) {
  seq_strategy s(pos_config());
  const auto prompts = make_prompts(2);
  decisions d;
  s.start(prompts, d);
  auto d0 = feed(s, 0, 0, {0, 0, 0, 0, 0, 0, 0, 1});
  ASSERT_EQ(d0.finished.size(), 1u);
  EXPECT_EQ(d0.finished[0].exit, exit_kind::pos);
  auto d1 = feed(s, 1, 0, {0, 0, 0, 0, 0, 0, 0, 0});
  EXPECT_TRUE(d1.finished.empty());
  EXPECT_EQ(d1.requests.size(), 1u);
}

TEST(SeqStrategyTest, ExplicitKPosAndKNegOverrideTheDefaults) {
  auto c = balance_config();
  c.k_pos = 1;
  c.k_neg = 1;
  seq_strategy s(c);
  const auto prompts = make_prompts(1);
  decisions d;
  s.start(prompts, d);
  auto d0 =
      feed(s, 0, 0, {1, 0, 0, 0, 0, 0, 0, 0});  // the default K_pos = 2 would not exit
  ASSERT_EQ(d0.finished.size(), 1u);
  EXPECT_EQ(d0.finished[0].exit, exit_kind::balance);
}

TEST(SeqStrategyTest, ExitIsTestedOnlyAfterTheWholeRound) {
  seq_strategy s(balance_config());
  const auto prompts = make_prompts(1);
  decisions d;
  s.start(prompts, d);
  // Seven results already hold 2 positives and 5 negatives, but the round is not over.
  auto early = feed(s, 0, 0, {1, 1, 0, 0, 0, 0, 0});
  EXPECT_TRUE(early.finished.empty());
  EXPECT_TRUE(early.requests.empty());
  EXPECT_FALSE(s.done());
  auto last = feed(s, 0, 7, {0});
  ASSERT_EQ(last.finished.size(), 1u);
  EXPECT_EQ(last.finished[0].samples_used, 8u);
}

TEST(SeqStrategyTest, OutOfOrderResultsStillWaitForTheWholeRound) {
  seq_strategy s(balance_config());
  const auto prompts = make_prompts(1);
  decisions d;
  s.start(prompts, d);
  decisions seen;
  // Indices 7 down to 1 arrive first; 7 and 6 are positives.
  for (uint32_t i = 7; i >= 1; --i)
    EXPECT_EQ(send(s, 0, i, i >= 6 ? 1.f : 0.f, seen), result_status::accepted);
  EXPECT_TRUE(seen.finished.empty());
  EXPECT_TRUE(seen.requests.empty());
  EXPECT_EQ(send(s, 0, 0, 0.f, seen), result_status::accepted);
  ASSERT_EQ(seen.finished.size(), 1u);
  EXPECT_EQ(seen.finished[0].exit, exit_kind::balance);
  EXPECT_EQ(seen.finished[0].kept, (idx{0, 1, 6, 7}));
}

TEST(SeqStrategyTest, FailedRoundDeliveredOutOfOrderRequestsTheNextRoundOnlyAtItsEnd) {
  seq_strategy s(balance_config());
  const auto prompts = make_prompts(1);
  decisions d;
  s.start(prompts, d);
  decisions seen;
  for (uint32_t i : {3u, 0u, 7u, 5u, 1u, 6u, 2u}) send(s, 0, i, 0.f, seen);
  EXPECT_TRUE(seen.requests.empty());
  send(s, 0, 4, 0.f, seen);
  ASSERT_EQ(seen.requests.size(), 1u);
  EXPECT_EQ(seen.requests[0].first_index, 8u);
  EXPECT_EQ(seen.requests[0].count, 8u);
}

TEST(SeqStrategyTest, PositiveThresholdIsStrict) {
  seq_strategy s(pos_config());
  const auto prompts = make_prompts(1);
  decisions d;
  s.start(prompts, d);
  // 0.7 is not above 0.7: no positive, no exit.
  auto r1 = feed(s, 0, 0, v(8, 0.7f));
  EXPECT_TRUE(r1.finished.empty());
  ASSERT_EQ(r1.requests.size(), 1u);
  auto r2 = feed(s, 0, 8, {0.7f, 0.7f, 0.71f, 0.7f, 0.7f, 0.7f, 0.7f, 0.7f});
  ASSERT_EQ(r2.finished.size(), 1u);
  const auto& g = r2.finished[0];
  EXPECT_EQ(g.exit, exit_kind::pos);
  EXPECT_EQ(g.positives, 1u);
  EXPECT_FLOAT_EQ(g.baseline, 1.f / 16);  // one positive out of 16
}

TEST(SeqStrategyTest, NextRoundIsRequestedAtOnceWithContinuingIndices) {
  seq_strategy s(balance_config());
  const auto prompts = make_prompts(2);
  decisions d;
  s.start(prompts, d);
  for (uint32_t round = 0; round < 3; ++round) {
    auto r = feed(s, 1, round * 8, v(8, 0.f));
    ASSERT_EQ(r.requests.size(), 1u) << "round " << round;
    EXPECT_EQ(r.requests[0].slot, 1u);
    EXPECT_EQ(r.requests[0].first_index, (round + 1) * 8);
    EXPECT_EQ(r.requests[0].count, 8u);
    EXPECT_TRUE(r.finished.empty());
  }
  // Round 4 = N: falls back, no fifth round.
  auto last = feed(s, 1, 24, v(8, 0.f));
  EXPECT_TRUE(last.requests.empty());
  ASSERT_EQ(last.finished.size(), 1u);
  EXPECT_EQ(s.samples_accepted(), 32u);
}

TEST(SeqStrategyTest, AllRoundSamplesStayInThePoolAndFormTheBaseline) {
  seq_strategy s(balance_config());
  const auto prompts = make_prompts(1);
  decisions d;
  s.start(prompts, d);
  feed(s, 0, 0, {1, 0, 0, 0, 0, 0, 0, 0});
  auto r = feed(s, 0, 8, {0, 0, 0, 1, 0, 0, 0, 0});
  ASSERT_EQ(r.finished.size(), 1u);
  const auto& g = r.finished[0];
  EXPECT_EQ(g.samples_used, 16u);
  EXPECT_EQ(g.rounds, 2u);
  EXPECT_EQ(g.positives, 2u);
  EXPECT_EQ(g.tokens, 160u);  // 16 samples of 10 tokens
  // p_hat = 2 / 16 over the whole pool, not 2 / 4 over the kept group.
  EXPECT_FLOAT_EQ(g.baseline, 0.125f);
  EXPECT_EQ(g.kept, (idx{0, 1, 2, 11}));
  expect_floats(g.rewards, {1, 0, 0, 1});
  // A_i = r_i - 0.125; in a balanced group they do not sum to 0 (1.5 here).
  expect_floats(g.advantages, {0.875, -0.125, -0.125, 0.875});
}

TEST(SeqStrategyTest, FallbackMissingPositivesIsKeptWithZeroAdvantages) {
  seq_strategy s(balance_config());
  const auto prompts = make_prompts(1, /*first_id=*/42);
  decisions d;
  s.start(prompts, d);
  decisions all;
  // Rewards 0.5 are negatives; without the rule, r - p_hat would be 0.5, not 0.
  for (uint32_t round = 0; round < 4; ++round) {
    auto r = feed(s, 0, round * 8, v(8, 0.5f));
    test::merge(all, r);
  }
  ASSERT_EQ(all.finished.size(), 1u);
  const auto& g = all.finished[0];
  EXPECT_EQ(g.exit, exit_kind::fallback_missing_positives);
  EXPECT_EQ(g.prompt_id, 42u);
  EXPECT_EQ(g.rounds, 4u);
  EXPECT_EQ(g.samples_used, 32u);
  EXPECT_EQ(g.positives, 0u);
  EXPECT_EQ(g.kept, (idx{0, 1, 2, 3}));
  expect_floats(g.advantages, {0, 0, 0, 0});
  EXPECT_TRUE(g.trainable());
  EXPECT_TRUE(g.zero_gradient());
  EXPECT_TRUE(all.step_done);
}

TEST(SeqStrategyTest, FallbackMissingNegativesIsKeptWithZeroAdvantages) {
  auto c = balance_config();
  c.max_rounds = 2;
  seq_strategy s(c);
  const auto prompts = make_prompts(1);
  decisions d;
  s.start(prompts, d);
  feed(s, 0, 0, v(8, 0.9f));
  auto r = feed(s, 0, 8, v(8, 0.9f));
  ASSERT_EQ(r.finished.size(), 1u);
  const auto& g = r.finished[0];
  EXPECT_EQ(g.exit, exit_kind::fallback_missing_negatives);
  EXPECT_FLOAT_EQ(g.baseline, 1.f);
  EXPECT_EQ(g.positives, 16u);
  // r - p_hat would be -0.1; a one-class fallback group gets 0.
  expect_floats(g.advantages, {0, 0, 0, 0});
  EXPECT_EQ(g.kept.size(), 4u);
}

TEST(SeqStrategyTest, BalanceFallbackWithOnePositiveKeepsItsSignal) {
  auto c = balance_config();
  c.max_rounds = 2;
  seq_strategy s(c);
  const auto prompts = make_prompts(1);
  decisions d;
  s.start(prompts, d);
  feed(s, 0, 0, v(8, 0.f));
  auto r = feed(s, 0, 8, {0, 0, 0, 0, 1, 0, 0, 0});
  ASSERT_EQ(r.finished.size(), 1u);
  const auto& g = r.finished[0];
  EXPECT_EQ(g.exit, exit_kind::fallback_missing_positives);
  EXPECT_EQ(g.kept, (idx{0, 1, 2, 12}));
  // p_hat = 1/16.
  expect_floats(g.advantages, {-1.0 / 16, -1.0 / 16, -1.0 / 16, 15.0 / 16});
  EXPECT_FALSE(g.zero_gradient());
}

TEST(SeqStrategyTest, PosFallbackTargetsTheProportionalShareOfPositives) {
  auto c = pos_config();
  c.k_pos = 3;
  c.max_rounds = 2;
  seq_strategy s(c);
  const auto prompts = make_prompts(1);
  decisions d;
  s.start(prompts, d);
  feed(s, 0, 0, {1, 0, 0, 0, 0, 0, 0, 0});
  auto r = feed(s, 0, 8, {0, 0, 1, 0, 0, 0, 0, 0});
  ASSERT_EQ(r.finished.size(), 1u);
  const auto& g = r.finished[0];
  EXPECT_EQ(g.exit, exit_kind::fallback_missing_positives);
  // ceil(2/16 * 4) = 1 positive (n/2 = 2 would also keep index 10).
  EXPECT_EQ(g.kept, (idx{0, 1, 2, 3}));
  expect_floats(g.advantages, {0.875, -0.125, -0.125, -0.125});
}

TEST(SeqStrategyTest, PosFallbackTargetCanExceedHalfTheGroup) {
  seq_config c;
  c.exit = exit_rule::pos;
  c.group_size = 4;
  c.round_size = 5;
  c.max_rounds = 1;
  c.k_pos = 4;
  seq_strategy s(c);
  const auto prompts = make_prompts(1);
  decisions d;
  s.start(prompts, d);
  auto r = feed(s, 0, 0, {1, 0, 1, 1, 0});
  ASSERT_EQ(r.finished.size(), 1u);
  const auto& g = r.finished[0];
  EXPECT_EQ(g.exit, exit_kind::fallback_missing_positives);
  // ceil(3/5 * 4) = ceil(2.4) = 3 positives: {0, 2, 3} and the first negative, 1.
  EXPECT_EQ(g.kept, (idx{0, 1, 2, 3}));
  expect_floats(g.advantages, {0.4, -0.6, 0.4, 0.4});  // p_hat = 0.6
}

TEST(SeqStrategyTest, BalanceFallbackKeepsHalfPositivesNotTheProportionalTarget) {
  auto c = balance_config();
  c.k_pos = 3;
  c.max_rounds = 1;
  seq_strategy s(c);
  const auto prompts = make_prompts(1);
  decisions d;
  s.start(prompts, d);
  auto r = feed(s, 0, 0, {1, 1, 0, 0, 0, 0, 0, 0});
  ASSERT_EQ(r.finished.size(), 1u);
  EXPECT_EQ(r.finished[0].exit, exit_kind::fallback_missing_positives);
  // n/2 = 2 positives; the proportional ceil(2/8 * 4) = 1 would give {0, 2, 3, 4}.
  EXPECT_EQ(r.finished[0].kept, (idx{0, 1, 2, 3}));
}

TEST(SeqStrategyTest, DownsampleTakesFirstPositivesThenFirstNegatives) {
  seq_strategy s(balance_config());
  const auto prompts = make_prompts(1);
  decisions d;
  s.start(prompts, d);
  auto r = feed(s, 0, 0, {0, 0, 1, 0, 1, 1, 0, 1});
  ASSERT_EQ(r.finished.size(), 1u);
  const auto& g = r.finished[0];
  EXPECT_EQ(g.kept, (idx{0, 1, 2, 4}));
  expect_floats(g.rewards, {0, 0, 1, 1});
  expect_floats(g.advantages, {-0.5, -0.5, 0.5, 0.5});
}

TEST(SeqStrategyTest, DownsampleFillsFromTheClassWithExtras) {
  auto c = balance_config();
  c.k_neg = 1;
  seq_strategy s(c);
  const auto prompts = make_prompts(2);
  decisions d;
  s.start(prompts, d);
  // Seven positives, one negative: 2 positives, the negative, then a third positive.
  auto r = feed(s, 0, 0, {1, 1, 1, 1, 1, 0, 1, 1});
  ASSERT_EQ(r.finished.size(), 1u);
  EXPECT_EQ(r.finished[0].kept, (idx{0, 1, 2, 5}));
  expect_floats(r.finished[0].advantages, {0.125, 0.125, 0.125, -0.875});

  seq_strategy p(pos_config());
  decisions dp;
  p.start(prompts, dp);
  // One positive, seven negatives: the positive and the first three negatives.
  auto rp = feed(p, 1, 0, {0, 0, 0, 0, 0, 0, 1, 0});
  ASSERT_EQ(rp.finished.size(), 1u);
  EXPECT_EQ(rp.finished[0].kept, (idx{0, 1, 2, 6}));
}

TEST(SeqStrategyTest, AdvantageUsesRawRewardPositivityUsesThreshold) {
  seq_strategy s(balance_config());
  const auto prompts = make_prompts(1);
  decisions d;
  s.start(prompts, d);
  // 0.9 is positive, 0.5 is not; p_hat = 2/8 = 0.25.
  auto r = feed(s, 0, 0, {0.9f, 0.5f, 0.9f, 0, 0, 0, 0, 0});
  ASSERT_EQ(r.finished.size(), 1u);
  const auto& g = r.finished[0];
  EXPECT_EQ(g.positives, 2u);
  EXPECT_FLOAT_EQ(g.baseline, 0.25f);
  EXPECT_EQ(g.kept, (idx{0, 1, 2, 3}));
  expect_floats(g.rewards, {0.9, 0.5, 0.9, 0});
  expect_floats(g.advantages, {0.65, 0.25, 0.65, -0.25});
}

TEST(SeqStrategyTest, StdNormDividesByUnbiasedStdOfTheIndicatorPool) {
  auto c = balance_config();
  c.std_norm = true;
  seq_strategy s(c);
  const auto prompts = make_prompts(1);
  decisions d;
  s.start(prompts, d);
  auto r = feed(s, 0, 0, {1, 1, 0, 0, 0, 0, 0, 0});
  ASSERT_EQ(r.finished.size(), 1u);
  // p_hat = 0.25, std = sqrt(2 * 6 / (8 * 7)) = sqrt(3/14) = 0.4629100; the reference
  // divides by max(std, 1e-6) + 1e-6.
  const double sd = std::sqrt(3.0 / 14.0) + 1e-6;
  expect_floats(r.finished[0].advantages, {0.75 / sd, 0.75 / sd, -0.25 / sd, -0.25 / sd});
  EXPECT_NEAR(r.finished[0].advantages[0], 1.6201852, 1e-5);
}

TEST(SeqStrategyTest, StdNormClampsAZeroStdThenAddsTheEpsilonAsTheReference) {
  auto c = pos_config();
  c.std_norm = true;
  seq_strategy s(c);
  const auto prompts = make_prompts(1);
  decisions d;
  s.start(prompts, d);
  // All positive with partial rewards: pos exit (not a fallback), p_hat = 1, std 0,
  // divided by max(0, 1e-6) + 1e-6 = 2e-6 as the reference does (1e-6 once: twice as big).
  auto r = feed(s, 0, 0, v(8, 0.9f));
  ASSERT_EQ(r.finished.size(), 1u);
  const auto& g = r.finished[0];
  EXPECT_EQ(g.exit, exit_kind::pos);
  for (float a : g.advantages) {
    EXPECT_TRUE(std::isfinite(a));
    EXPECT_NEAR(a, (0.9f - 1.0) / 2e-6, 1.0);  // about -5e4
  }
}

TEST(SeqStrategyTest, StdNormLeavesOneClassFallbackAtZero) {
  auto c = balance_config();
  c.std_norm = true;
  c.max_rounds = 1;
  seq_strategy s(c);
  const auto prompts = make_prompts(1);
  decisions d;
  s.start(prompts, d);
  auto r = feed(s, 0, 0, v(8, 0.5f));  // (0.5 - 0) / 1e-6 without the rule
  ASSERT_EQ(r.finished.size(), 1u);
  expect_floats(r.finished[0].advantages, {0, 0, 0, 0});
}

TEST(SeqStrategyTest, ExplicitWeightIsInverseBaselineAndOffByDefault) {
  const auto prompts = make_prompts(1);
  const v round = {1, 1, 0, 0, 0, 0, 0, 0};  // p_hat = 0.25
  {
    seq_strategy s(balance_config());
    decisions d;
    s.start(prompts, d);
    auto r = feed(s, 0, 0, round);
    ASSERT_EQ(r.finished.size(), 1u);
    EXPECT_FLOAT_EQ(r.finished[0].weight, 1.f);
  }
  auto c = balance_config();
  c.explicit_weight = true;
  seq_strategy s(c);
  decisions d;
  s.start(prompts, d);
  auto r = feed(s, 0, 0, round);
  ASSERT_EQ(r.finished.size(), 1u);
  EXPECT_FLOAT_EQ(r.finished[0].weight, 4.f);
  // The weight multiplies the advantages later; they are stored unweighted.
  EXPECT_FLOAT_EQ(r.finished[0].advantages[0], 0.75f);
}

TEST(SeqStrategyTest, ExplicitWeightIsFiniteWhenThePoolHasNoPositive) {
  auto c = balance_config();
  c.explicit_weight = true;
  seq_strategy s(c);
  const auto prompts = make_prompts(1);
  decisions d;
  s.start(prompts, d);
  decisions all;
  for (uint32_t round = 0; round < 4; ++round) {
    auto r = feed(s, 0, round * 8, v(8, 0.f));
    test::merge(all, r);
  }
  ASSERT_EQ(all.finished.size(), 1u);
  // p_hat = 0 is guarded as one success in the pool of 32: weight 32, not infinity.
  EXPECT_FLOAT_EQ(all.finished[0].weight, 32.f);
}

TEST(SeqStrategyTest, ExplicitWeightFollowsThePowerObjective) {
  auto c = balance_config();
  c.explicit_weight = true;
  c.max_rounds = 2;
  c.weight_objective = {objective_kind::power, 0.5};
  seq_strategy s(c);
  const auto prompts = make_prompts(1);
  decisions d;
  s.start(prompts, d);
  feed(s, 0, 0, v(8, 0.f));
  auto r = feed(s, 0, 8, {1, 0, 0, 0, 0, 0, 0, 0});
  ASSERT_EQ(r.finished.size(), 1u);
  // p_hat = 1/16: f'(p) = 0.5 * (1/16)^(-0.5) = 0.5 * 4 = 2.
  EXPECT_FLOAT_EQ(r.finished[0].weight, 2.f);
}

TEST(SeqStrategyTest, RealRewardIsTheFirstRoundMean) {
  seq_strategy s(balance_config());
  const auto prompts = make_prompts(1);
  decisions d;
  s.start(prompts, d);
  feed(s, 0, 0, {0.5f, 0, 0, 0, 0, 0, 0, 1});  // one positive: no exit
  auto r = feed(s, 0, 8, {1, 1, 1, 1, 1, 1, 1, 1});
  ASSERT_EQ(r.finished.size(), 1u);
  // First round: 1.5 / 8 = 0.1875 (the pool mean would be 9.5/16, the kept mean 0.375).
  EXPECT_FLOAT_EQ(r.finished[0].first_round_reward, 0.1875f);
}

TEST(SeqStrategyTest, DuplicatesUnknownSlotsAndUnrequestedIndicesAreIgnored) {
  seq_strategy s(balance_config());
  const auto prompts = make_prompts(2);
  decisions d;
  s.start(prompts, d);
  decisions seen;
  EXPECT_EQ(send(s, 0, 0, 1.f, seen), result_status::accepted);
  EXPECT_EQ(send(s, 0, 0, 0.f, seen), result_status::duplicate);
  EXPECT_EQ(send(s, 2, 0, 1.f, seen), result_status::unknown_slot);
  EXPECT_EQ(send(s, 0, 8, 1.f, seen), result_status::not_requested);
  EXPECT_EQ(s.samples_accepted(), 1u);
  EXPECT_TRUE(seen.requests.empty());
  EXPECT_TRUE(seen.finished.empty());

  auto r = feed(s, 0, 1, {1, 0, 0, 0, 0, 0, 0});
  ASSERT_EQ(r.finished.size(), 1u);
  // The duplicate's reward 0 did not replace the first copy's 1.
  EXPECT_EQ(r.finished[0].positives, 2u);
  EXPECT_EQ(r.finished[0].tokens, 80u);
  EXPECT_EQ(s.samples_accepted(), 8u);

  // Late copies for a finished prompt change nothing.
  decisions late;
  EXPECT_EQ(send(s, 0, 3, 1.f, late), result_status::duplicate);
  EXPECT_EQ(send(s, 0, 8, 1.f, late), result_status::not_requested);
  EXPECT_TRUE(late.finished.empty());
  EXPECT_TRUE(late.requests.empty());
  EXPECT_EQ(s.samples_accepted(), 8u);
}

TEST(SeqStrategyTest, StepDoneComesOnceWithTheLastPrompt) {
  seq_strategy s(pos_config());
  const auto prompts = make_prompts(2);
  decisions d;
  s.start(prompts, d);
  auto r0 = feed(s, 1, 0, v(8, 1.f));
  EXPECT_EQ(r0.finished.size(), 1u);
  EXPECT_FALSE(r0.step_done);
  EXPECT_FALSE(s.done());
  auto r1 = feed(s, 0, 0, v(8, 1.f));
  EXPECT_TRUE(r1.step_done);
  EXPECT_TRUE(s.done());
  decisions late;
  send(s, 0, 0, 1.f, late);
  EXPECT_FALSE(late.step_done);
}

TEST(SeqStrategyTest, ArrivalOrderDoesNotChangeTheFinishedGroups) {
  const auto prompts = make_prompts(24);
  // A fixed reward table: pass rates from 0 to about 0.9 across slots.
  std::mt19937 table_rng(2024);
  std::vector<std::vector<float>> table(24, std::vector<float>(32));
  for (uint32_t s = 0; s < 24; ++s)
    for (auto& r : table[s])
      r = std::uniform_real_distribution<float>(0, 1)(table_rng) < s / 26.0 ? 1.f : 0.f;
  const test::reward_fn reward = [&](prompt_slot s, uint32_t i) { return table[s][i]; };

  for (auto rule : {exit_rule::pos, exit_rule::balance}) {
    seq_config c;
    c.exit = rule;
    seq_strategy in_order(c), shuffled(c);
    const auto a = test::drive(in_order, prompts, reward);
    std::mt19937 rng(7);
    test::driver_options opt;
    opt.rng = &rng;
    opt.duplicate_rate = 0.2;
    const auto b = test::drive(shuffled, prompts, reward, opt);
    ASSERT_EQ(a.finished.size(), 24u);
    ASSERT_EQ(b.finished.size(), 24u);
    EXPECT_GT(b.duplicates, 0u);
    EXPECT_EQ(a.accepted, b.accepted);
    const auto ga = test::by_slot(a.finished), gb = test::by_slot(b.finished);
    for (size_t i = 0; i < ga.size(); ++i) {
      SCOPED_TRACE(i);
      EXPECT_EQ(ga[i].slot, gb[i].slot);
      EXPECT_EQ(ga[i].exit, gb[i].exit);
      EXPECT_EQ(ga[i].kept, gb[i].kept);
      EXPECT_EQ(ga[i].rewards, gb[i].rewards);
      EXPECT_EQ(ga[i].advantages, gb[i].advantages);
      EXPECT_EQ(ga[i].rounds, gb[i].rounds);
      EXPECT_EQ(ga[i].samples_used, gb[i].samples_used);
      EXPECT_EQ(ga[i].tokens, gb[i].tokens);
    }
  }
}

// The informed Seq (docs/algorithm.md "The informed Seq"): the tracker's belief caps rounds and skips visits.
std::vector<prompt_entry> believed(std::vector<beta_posterior> beliefs, uint64_t key = ~0ull) {
  std::vector<prompt_entry> out;
  for (size_t i = 0; i < beliefs.size(); ++i) out.push_back({100 + i, beliefs[i], key});
  return out;
}

TEST(SeqStrategyTest, InformedSkipsAHopelessVisitAndAsksForAReplacement) {
  seq_config c = balance_config();
  c.skip_below = 0.2;
  c.explore = 0.1;
  seq_strategy s(c);
  // Prompt 0 is believed all-wrong (Beta(0.5, 60)); prompt 1 is unknown. A visit key of
  // all ones draws u near 1 > explore: no exploration.
  auto prompts = believed({{0.5, 60}, {1, 1}});
  decisions d;
  s.start(prompts, d);
  ASSERT_EQ(d.requests.size(), 1u);
  EXPECT_EQ(d.requests[0].slot, 1u);
  ASSERT_EQ(d.finished.size(), 1u);
  EXPECT_EQ(d.finished[0].exit, exit_kind::skipped);
  EXPECT_EQ(d.finished[0].samples_used, 0u);
  EXPECT_FALSE(d.finished[0].trainable());
  EXPECT_EQ(d.prompts_wanted, 1u);
  EXPECT_FALSE(s.done());
  decisions e;
  s.add_prompts(believed({{2, 2}}), e);
  ASSERT_EQ(e.requests.size(), 1u);
  EXPECT_EQ(e.requests[0].slot, 2u);
  EXPECT_EQ(e.prompts_wanted, 0u);
  // The replacement and prompt 1 both exit in their first round: the step is done.
  auto r1 = feed(s, 1, 0, {1, 1, 0, 0, 0, 0, 0, 0});
  auto r2 = feed(s, 2, 0, {1, 0, 1, 0, 0, 0, 0, 0});
  EXPECT_TRUE(r2.step_done);
  EXPECT_TRUE(s.done());
}

TEST(SeqStrategyTest, InformedExploresAShareOfHopelessVisits) {
  seq_config c = balance_config();
  c.skip_below = 0.2;
  c.explore = 0.5;
  seq_strategy s(c);
  // Visit key 0 draws u = 0 < explore: the hopeless prompt is drawn anyway.
  auto prompts = believed({{0.5, 60}}, /*key=*/0);
  decisions d;
  s.start(prompts, d);
  ASSERT_EQ(d.requests.size(), 1u);
  EXPECT_TRUE(d.finished.empty());
}

TEST(SeqStrategyTest, InformedStopsRoundsWhenTheRestWouldShowNoSignal) {
  seq_config c = balance_config();  // M = 8, N = 4
  c.min_signal_chance = 0.25;
  seq_strategy s(c);
  auto prompts = believed({{1, 1}});
  decisions d;
  s.start(prompts, d);
  // 8 wrong: Beta(1, 9) gives 2 positives in the 24 draws left a chance of 0.52 (by
  // hand: 1 - 9/33 - 24*9/(33*32)): a second round. 8 wrong again: Beta(1, 17) over 16
  // draws, 1 - 17/33 - 16*17/(33*32) = 0.227 < 0.25: no third round (the paper's Seq
  // would draw all 32).
  auto r1 = feed(s, 0, 0, v(8, 0.f));
  ASSERT_EQ(r1.requests.size(), 1u);
  auto r2 = feed(s, 0, 8, v(8, 0.f));
  EXPECT_TRUE(r2.requests.empty());
  ASSERT_EQ(r2.finished.size(), 1u);
  EXPECT_EQ(r2.finished[0].exit, exit_kind::fallback_missing_positives);
  EXPECT_EQ(r2.finished[0].samples_used, 16u);
  EXPECT_EQ(r2.finished[0].rounds, 2u);
  EXPECT_TRUE(r2.step_done);
}

// downsample: false trains every sample of the pool, with the whole pool's baseline.
TEST(SeqStrategyTest, WithoutDownsamplingEveryPoolSampleIsTrained) {
  seq_config c = balance_config();
  c.downsample = false;
  seq_strategy s(c);
  decisions d;
  s.start(make_prompts(1), d);
  // 3 positives of 8: the balance exit (2 and 2) holds in the first round.
  auto x = feed(s, 0, 0, {1, 0, 0, 1, 0, 0, 1, 0});
  ASSERT_EQ(x.finished.size(), 1u);
  const auto& g = x.finished[0];
  EXPECT_EQ(g.kept, (idx{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(g.rewards.size(), 8u);
  EXPECT_NEAR(g.baseline, 3.0 / 8, 1e-6);
  expect_floats(g.advantages, {0.625, -0.375, -0.375, 0.625, -0.375, -0.375, 0.625, -0.375});
  // The paper's Seq keeps n = 4 of them.
  seq_strategy paper(balance_config());
  decisions e;
  paper.start(make_prompts(1), e);
  auto y = feed(paper, 0, 0, {1, 0, 0, 1, 0, 0, 1, 0});
  ASSERT_EQ(y.finished.size(), 1u);
  EXPECT_EQ(y.finished[0].kept.size(), 4u);
}

TEST(SeqStrategyTest, WithTheOptionsOffTheBeliefChangesNothing) {
  seq_strategy s(balance_config());
  auto prompts = believed({{0.5, 60}});
  decisions d;
  s.start(prompts, d);
  ASSERT_EQ(d.requests.size(), 1u);
  for (uint32_t r = 0; r < 4; ++r) {
    auto x = feed(s, 0, r * 8, v(8, 0.f));
    EXPECT_EQ(x.requests.size(), r < 3 ? 1u : 0u) << "round " << r;
  }
  EXPECT_TRUE(s.done());
}

}  // namespace
}  // namespace adarl
