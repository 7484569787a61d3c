// Per-step statistics of finished groups (docs/algorithm.md "Accounting").
#include "algorithms/step_summary.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace adarl {
namespace {

finished_group group(exit_kind exit, std::vector<float> advantages, uint32_t samples_used,
                     uint32_t rounds, float first_round_reward, uint64_t tokens) {
  finished_group g;
  g.exit = exit;
  for (uint32_t i = 0; i < advantages.size(); ++i) {
    g.kept.push_back(i);
    g.rewards.push_back(0.f);
  }
  g.advantages = std::move(advantages);
  g.samples_used = samples_used;
  g.rounds = rounds;
  g.first_round_reward = first_round_reward;
  g.tokens = tokens;
  return g;
}

TEST(StepSummaryTest, CountsGroupsSamplesAndTokens) {
  step_summary s;
  s.add(group(exit_kind::balance, {0.5f, -0.5f, 0.5f, -0.5f}, 16, 2, 0.25f, 1600));
  s.add(group(exit_kind::fallback_missing_positives, {0, 0, 0, 0}, 32, 4, 0.f, 3200));
  s.add(group(exit_kind::pos, {0.9f, -0.1f, -0.1f, -0.1f}, 8, 1, 0.125f, 800));
  EXPECT_EQ(s.prompts, 3u);
  EXPECT_EQ(s.trainable, 3u);
  EXPECT_EQ(s.zero_gradient, 1u);
  EXPECT_EQ(s.samples, 56u);
  EXPECT_EQ(s.tokens, 5600u);
  EXPECT_EQ(s.kept_samples, 12u);
  EXPECT_EQ(s.signal_samples, 24u);  // the two groups with unequal advantages drew 16 + 8
  EXPECT_EQ(s.max_samples, 32u);
  EXPECT_DOUBLE_EQ(s.mean_samples_per_prompt(), 56.0 / 3);
  EXPECT_DOUBLE_EQ(s.real_reward(), 0.375 / 3);
  EXPECT_DOUBLE_EQ(s.zero_gradient_fraction(), 1.0 / 3);
}

TEST(StepSummaryTest, ZeroGradientFractionIsOverTrainableGroupsOnly) {
  step_summary s;
  s.add(group(exit_kind::uniform, {0, 0, 0, 0}, 4, 1, 1.f, 40));
  s.add(group(exit_kind::uniform, {1, -1, 1, -1}, 4, 1, 0.5f, 40));
  s.add(group(exit_kind::dropped, {0, 0, 0, 0}, 4, 1, 0.f, 40));
  s.add(group(exit_kind::dropped, {0, 0, 0, 0}, 4, 1, 0.f, 40));
  EXPECT_EQ(s.prompts, 4u);
  EXPECT_EQ(s.trainable, 2u);
  EXPECT_EQ(s.zero_gradient, 1u);
  EXPECT_DOUBLE_EQ(s.zero_gradient_fraction(), 0.5);  // not 3/4
  EXPECT_EQ(s.kept_samples, 8u);                      // dropped groups are not trained
  EXPECT_EQ(s.samples, 16u);                          // but they were drawn
  EXPECT_DOUBLE_EQ(s.real_reward(), 1.5 / 4);
}

TEST(StepSummaryTest, ExitCountsAndRoundsHistogram) {
  step_summary s;
  s.add(group(exit_kind::balance, {1, -1}, 8, 1, 0, 0));
  s.add(group(exit_kind::balance, {1, -1}, 24, 3, 0, 0));
  s.add(group(exit_kind::fallback_missing_negatives, {0, 0}, 32, 4, 0, 0));
  s.add(group(exit_kind::fallback_missing_positives, {0, 0}, 32, 4, 0, 0));
  s.add(group(exit_kind::fallback_missing_positives, {0, 0}, 24, 3, 0, 0));
  EXPECT_EQ(s.exits_of(exit_kind::balance), 2u);
  EXPECT_EQ(s.exits_of(exit_kind::fallback_missing_positives), 2u);
  EXPECT_EQ(s.exits_of(exit_kind::fallback_missing_negatives), 1u);
  EXPECT_EQ(s.exits_of(exit_kind::pos), 0u);
  EXPECT_EQ(s.exits_of(exit_kind::dropped), 0u);
  EXPECT_EQ(s.rounds, (std::vector<uint32_t>{0, 1, 0, 2, 2}));
}

TEST(StepSummaryTest, PassRateBinsCountGroupsAndSamples) {
  step_summary s;
  s.add_pass_rate(0.0, 32);
  s.add_pass_rate(0.05, 8);
  s.add_pass_rate(0.55, 4);
  s.add_pass_rate(1.0, 4);   // the last bin includes 1
  s.add_pass_rate(1.7, 2);   // clamped
  s.add_pass_rate(-0.1, 6);  // clamped
  EXPECT_EQ(s.rate_prompts[0], 3u);
  EXPECT_EQ(s.rate_samples[0], 46u);
  EXPECT_EQ(s.rate_prompts[5], 1u);
  EXPECT_EQ(s.rate_samples[5], 4u);
  EXPECT_EQ(s.rate_prompts[9], 2u);
  EXPECT_EQ(s.rate_samples[9], 6u);
  uint32_t total = 0;
  for (uint32_t n : s.rate_prompts) total += n;
  EXPECT_EQ(total, 6u);
}

TEST(StepSummaryTest, EmptySummaryHasZeroRates) {
  const step_summary s;
  EXPECT_DOUBLE_EQ(s.real_reward(), 0.0);
  EXPECT_DOUBLE_EQ(s.zero_gradient_fraction(), 0.0);
  EXPECT_DOUBLE_EQ(s.mean_samples_per_prompt(), 0.0);
  EXPECT_TRUE(s.rounds.empty());
}

// Groups finish in any order (asynchronous rounds, a resumed run): the step's figures
// must be the same bits whatever the order, or a deterministic resume differs.
TEST(StepSummaryTest, CalibrationAndRewardSumsDoNotDependOnTheOrderOfTheGroups) {
  struct prompt { double p; uint32_t n, k; bool first; float first_round; };
  std::vector<prompt> prompts;
  for (uint32_t i = 0; i < 200; ++i)
    prompts.push_back({0.001 + 0.997 * std::fmod(i * 0.6180339887, 1.0), 8 + i % 23,
                       i % 7, i % 3 == 0, float(i % 5) / 7.f});
  auto summarise = [&](size_t stride) {  // stride coprime to 200: a permutation
    step_summary s;
    for (size_t j = 0; j < prompts.size(); ++j) {
      const auto& q = prompts[(j * stride) % prompts.size()];
      s.add(group(exit_kind::balance, {0.5f, -0.5f}, q.n, 1, q.first_round, 10));
      s.add_prior_fit(q.p, q.n, q.k, q.first, q.p / 2);
    }
    return s;
  };
  const auto a = summarise(1), b = summarise(37);
  EXPECT_EQ(a.prior_fit.brier, b.prior_fit.brier);
  EXPECT_EQ(a.prior_fit.log_loss, b.prior_fit.log_loss);
  EXPECT_EQ(a.ema_fit_first_seen.log_loss, b.ema_fit_first_seen.log_loss);
  EXPECT_EQ(a.reliability_predicted, b.reliability_predicted);
  EXPECT_EQ(a.first_round_sum, b.first_round_sum);
  // And the fixed point that buys it is invisible at the figures' precision.
  double brier = 0;
  for (const auto& q : prompts) brier += q.k * (1 - q.p) * (1 - q.p) + (q.n - q.k) * q.p * q.p;
  EXPECT_NEAR(a.prior_fit.brier, brier, 1e-9);
  exact_sum broken;
  broken.add(1.0);
  broken.add(std::nan(""));
  EXPECT_TRUE(std::isnan(double(broken)));  // a NaN prediction shows, never vanishes
}

}  // namespace
}  // namespace adarl
