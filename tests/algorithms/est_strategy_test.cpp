// Reinforce-Ada-Est (docs/algorithm.md "Reinforce-Ada-Est") and the online variant (4b): allocation,
// advantages and weights by hand, budget exactness, waves and re-planning.
#include "algorithms/est_strategy.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <vector>

#include "strategy_driver.hpp"
#include "strategy_feed.hpp"

namespace adarl {
namespace {

using test::feed;
using test::send;
using plan_t = std::vector<uint32_t>;
using idx = std::vector<uint32_t>;

est_config config(uint32_t budget, uint32_t n_min = 2, uint32_t n_max = 32) {
  est_config c;
  c.budget = budget;
  c.n_min = n_min;
  c.n_max = n_max;
  return c;
}

// Prompts whose prior means are the given pass rates (a = 1, b = 1/p - 1).
std::vector<prompt_entry> prompts_with(const std::vector<double>& p) {
  std::vector<prompt_entry> out;
  for (size_t i = 0; i < p.size(); ++i) out.push_back({500 + i, {1.0, 1.0 / p[i] - 1.0}});
  return out;
}

uint64_t sum(const plan_t& p) {
  return std::accumulate(p.begin(), p.end(), uint64_t{0});
}

TEST(EstStrategyTest, OfflineAllocatesInverseSqrtOfPassRate) {
  est_strategy s(config(/*budget=*/17), /*online=*/false);
  const auto prompts = prompts_with({0.01, 0.04, 0.25});
  decisions d;
  s.start(prompts, d);
  // w = 1/sqrt(p + 1e-6) = 9.9995, 4.99994, 1.999996 (about 10 : 5 : 2) -> 10, 5, 2.
  EXPECT_EQ(s.plan(), (plan_t{10, 5, 2}));
  EXPECT_EQ(s.budget(), 17u);
  ASSERT_EQ(d.requests.size(), 3u);
  for (uint32_t i = 0; i < 3; ++i) {
    EXPECT_EQ(d.requests[i].slot, i);
    EXPECT_EQ(d.requests[i].first_index, 0u);
    EXPECT_EQ(d.requests[i].count, s.plan()[i]);
  }
}

TEST(EstStrategyTest, OfflineClipsAtNMaxAndRedistributesTheRest) {
  est_strategy s(config(/*budget=*/73), /*online=*/false);
  const auto prompts = prompts_with({0.01, 0.04, 0.25, 0.64});
  decisions d;
  s.start(prompts, d);
  // 10 : 5 : 2 : 1.25 would give 40 to the first; n_max = 32 caps it. The other 41
  // split 5 : 2 : 1.25 = 24.85, 9.94, 6.21; the residue 2 goes to the largest
  // fractions (9.94 then 24.85).
  EXPECT_EQ(s.plan(), (plan_t{32, 25, 10, 6}));
  EXPECT_EQ(sum(s.plan()), 73u);
}

TEST(EstStrategyTest, OfflineRaisesEasyPromptsToNMin) {
  est_strategy s(config(/*budget=*/24), /*online=*/false);
  const auto prompts = prompts_with({0.0001, 0.9, 0.9});
  decisions d;
  s.start(prompts, d);
  // Easy prompts would get about 0.25 each: raised to n_min = 2; the hard one takes 20.
  EXPECT_EQ(s.plan(), (plan_t{20, 2, 2}));
}

TEST(EstStrategyTest, DefaultBudgetIsSamplesPerPromptTimesPrompts) {
  est_config c = config(/*budget=*/0);
  c.samples_per_prompt = 6.5;
  est_strategy s(c, /*online=*/false);
  const auto prompts = test::make_prompts(4);  // equal priors
  decisions d;
  s.start(prompts, d);
  EXPECT_EQ(s.budget(), 26u);  // 6.5 * 4
  // 6.5 each: the residue 2 goes to the two lowest slots.
  EXPECT_EQ(s.plan(), (plan_t{7, 7, 6, 6}));
}

TEST(EstStrategyTest, ExplicitBudgetIsClampedToWhatThePromptsAllow) {
  est_strategy s(config(/*budget=*/1000, /*n_min=*/2, /*n_max=*/32), /*online=*/false);
  const auto prompts = test::make_prompts(2);
  decisions d;
  s.start(prompts, d);
  EXPECT_EQ(s.budget(), 64u);
  EXPECT_EQ(s.plan(), (plan_t{32, 32}));

  est_strategy t(config(/*budget=*/3, /*n_min=*/2, /*n_max=*/32), /*online=*/false);
  decisions e;
  t.start(prompts, e);
  EXPECT_EQ(t.budget(), 4u);
}

TEST(EstStrategyTest, LinearObjectiveSplitsEvenlyWithTiesToTheLowerSlot) {
  est_config c = config(/*budget=*/10);
  c.weight_objective.kind = objective_kind::linear;
  est_strategy s(c, /*online=*/false);
  const auto prompts = prompts_with({0.01, 0.5, 0.9});
  decisions d;
  s.start(prompts, d);
  EXPECT_EQ(s.plan(), (plan_t{4, 3, 3}));
}

TEST(EstStrategyTest, AdvantageIsRewardMinusStepMeanWithInverseSqrtWeight) {
  est_strategy s(config(/*budget=*/8, /*n_min=*/4, /*n_max=*/4), /*online=*/false);
  const auto prompts = test::make_prompts(2, /*first_id=*/77);
  decisions d;
  s.start(prompts, d);
  auto r0 = feed(s, 0, 0, {1, 0, 0, 0});
  ASSERT_EQ(r0.finished.size(), 1u);
  const auto& g = r0.finished[0];
  EXPECT_EQ(g.exit, exit_kind::allocated);
  EXPECT_EQ(g.prompt_id, 77u);
  EXPECT_EQ(g.kept, (idx{0, 1, 2, 3}));  // trains on every sample
  EXPECT_EQ(g.samples_used, 4u);
  EXPECT_EQ(g.positives, 1u);
  EXPECT_FLOAT_EQ(g.baseline, 0.25f);
  EXPECT_FLOAT_EQ(g.first_round_reward, 0.25f);
  EXPECT_EQ(g.tokens, 40u);
  const std::vector<float> want = {0.75f, -0.25f, -0.25f, -0.25f};
  EXPECT_EQ(g.advantages, want);
  // w = 1/sqrt(rbar + eps) = 1/sqrt(0.250001) = 1.999996.
  EXPECT_NEAR(g.weight, 1.999996, 1e-6);
  EXPECT_FALSE(r0.step_done);

  auto r1 = feed(s, 1, 0, {0, 0, 0, 0});
  ASSERT_EQ(r1.finished.size(), 1u);
  EXPECT_EQ(r1.finished[0].advantages, (std::vector<float>{0, 0, 0, 0}));
  EXPECT_NEAR(r1.finished[0].weight, 1000.0, 1e-3);  // 1/sqrt(1e-6)
  EXPECT_TRUE(r1.step_done);
  EXPECT_TRUE(s.done());
}

TEST(EstStrategyTest, AdvantageUsesRawRewardPositivesUseThreshold) {
  est_strategy s(config(/*budget=*/4, /*n_min=*/4, /*n_max=*/4), /*online=*/false);
  const auto prompts = test::make_prompts(1);
  decisions d;
  s.start(prompts, d);
  auto r = feed(s, 0, 0, {0.9f, 0.5f, 0.7f, 0});
  ASSERT_EQ(r.finished.size(), 1u);
  const auto& g = r.finished[0];
  EXPECT_EQ(g.positives, 1u);  // only 0.9 is above 0.7
  // rbar = 2.1 / 4 = 0.525.
  EXPECT_NEAR(g.baseline, 0.525, 1e-6);
  EXPECT_NEAR(g.advantages[0], 0.375, 1e-6);
  EXPECT_NEAR(g.advantages[1], -0.025, 1e-6);
  EXPECT_NEAR(g.advantages[2], 0.175, 1e-6);
  EXPECT_NEAR(g.advantages[3], -0.525, 1e-6);
  EXPECT_NEAR(g.weight, 1.0 / std::sqrt(0.525001), 1e-6);
}

// The ablation switches (docs/results/ablation.md): each changes one factor of the group.
TEST(EstStrategyTest, StdNormDividesByTheUnbiasedStdAndKeepsTheWeight) {
  est_config c = config(/*budget=*/4, /*n_min=*/4, /*n_max=*/4);
  c.std_norm = true;
  est_strategy s(c, /*online=*/false);
  const auto prompts = test::make_prompts(1);
  decisions d;
  s.start(prompts, d);
  auto r = feed(s, 0, 0, {1, 0, 0, 0});
  ASSERT_EQ(r.finished.size(), 1u);
  const auto& g = r.finished[0];
  // rbar 0.25, unbiased std sqrt(0.25) = 0.5 (+1e-6): 0.75 / 0.5 = 1.5, -0.25 / 0.5 = -0.5.
  EXPECT_NEAR(g.advantages[0], 1.5, 1e-5);
  EXPECT_NEAR(g.advantages[1], -0.5, 1e-5);
  EXPECT_NEAR(g.weight, 1.999996, 1e-6);
}

TEST(EstStrategyTest, WithoutGradWeightTheAllocationStaysAndTheWeightIsOne) {
  est_config c = config(/*budget=*/17);
  c.grad_weight = false;
  est_strategy s(c, /*online=*/false);
  const auto prompts = prompts_with({0.01, 0.04, 0.25});
  decisions d;
  s.start(prompts, d);
  EXPECT_EQ(s.plan(), (plan_t{10, 5, 2}));  // as with the weight
  auto r = feed(s, 2, 0, {1, 0});
  ASSERT_EQ(r.finished.size(), 1u);
  EXPECT_FLOAT_EQ(r.finished[0].weight, 1.f);
  EXPECT_EQ(r.finished[0].advantages, (std::vector<float>{0.5f, -0.5f}));
}

TEST(EstStrategyTest, SampleShareMovesTheWeightBetweenSamplingAndGradient) {
  const auto prompts = prompts_with({0.01, 0.25});
  const std::vector<float> rewards = {1, 0, 0, 0};  // rbar = 0.25
  {
    // s = 1: all of f' goes to sampling (n ~ 1/p), none to the gradient.
    est_config c = config(/*budget=*/26);
    c.sample_share = 1.0;
    est_strategy s(c, /*online=*/false);
    decisions d;
    s.start(prompts, d);
    // 1/0.010001 : 1/0.250001 = 99.99 : 4.0 -> about 25 : 1, clipped to n_min = 2.
    EXPECT_EQ(s.plan(), (plan_t{24, 2}));
    auto r = feed(s, 1, 0, {1, 0});
    ASSERT_EQ(r.finished.size(), 1u);
    EXPECT_FLOAT_EQ(r.finished[0].weight, 1.f);
  }
  {
    // s = 0: uniform sampling, the whole 1/rbar in the gradient.
    est_config c = config(/*budget=*/8);
    c.sample_share = 0.0;
    est_strategy s(c, /*online=*/false);
    decisions d;
    s.start(prompts, d);
    EXPECT_EQ(s.plan(), (plan_t{4, 4}));
    auto r = feed(s, 0, 0, rewards);
    ASSERT_EQ(r.finished.size(), 1u);
    EXPECT_NEAR(r.finished[0].weight, 1.0 / 0.250001, 1e-5);
  }
}

TEST(EstStrategyTest, OfflineFinishesAPromptOnlyWhenAllItsSamplesAreVerified) {
  est_strategy s(config(/*budget=*/6, /*n_min=*/3, /*n_max=*/3), /*online=*/false);
  const auto prompts = test::make_prompts(2);
  decisions d;
  s.start(prompts, d);
  decisions seen;
  send(s, 0, 2, 1.f, seen);
  send(s, 1, 0, 1.f, seen);
  send(s, 0, 0, 0.f, seen);
  EXPECT_TRUE(seen.finished.empty());
  EXPECT_TRUE(seen.requests.empty());  // offline: everything was requested at start
  send(s, 0, 1, 0.f, seen);
  ASSERT_EQ(seen.finished.size(), 1u);
  EXPECT_EQ(seen.finished[0].slot, 0u);
  EXPECT_FALSE(seen.step_done);
  EXPECT_FALSE(s.done());
}

TEST(EstStrategyTest, DuplicatesUnknownSlotsAndUnrequestedIndicesAreIgnored) {
  est_strategy s(config(/*budget=*/4, /*n_min=*/2, /*n_max=*/2), /*online=*/false);
  const auto prompts = test::make_prompts(2);
  decisions d;
  s.start(prompts, d);
  decisions seen;
  EXPECT_EQ(send(s, 0, 0, 1.f, seen), result_status::accepted);
  EXPECT_EQ(send(s, 0, 0, 0.f, seen), result_status::duplicate);
  EXPECT_EQ(send(s, 0, 2, 1.f, seen), result_status::not_requested);
  EXPECT_EQ(send(s, 9, 0, 1.f, seen), result_status::unknown_slot);
  EXPECT_EQ(s.samples_accepted(), 1u);
  EXPECT_EQ(send(s, 0, 1, 0.f, seen), result_status::accepted);
  ASSERT_EQ(seen.finished.size(), 1u);
  EXPECT_EQ(seen.finished[0].positives, 1u);  // the duplicate's 0 did not overwrite
  EXPECT_FLOAT_EQ(seen.finished[0].baseline, 0.5f);
}

TEST(EstStrategyTest, EmptyBatchIsDoneAtStart) {
  for (bool online : {false, true}) {
    est_strategy s(config(/*budget=*/0), online);
    decisions d;
    s.start({}, d);
    EXPECT_TRUE(d.step_done);
    EXPECT_TRUE(s.done());
    EXPECT_EQ(s.budget(), 0u);
  }
}

TEST(EstStrategyTest, OnlineKeepsAtMostAWaveInFlightPerPrompt) {
  est_config c = config(/*budget=*/16);
  c.wave = 3;
  est_strategy s(c, /*online=*/true);
  const auto prompts = test::make_prompts(2);
  decisions d;
  s.start(prompts, d);
  EXPECT_EQ(s.plan(), (plan_t{8, 8}));
  ASSERT_EQ(d.requests.size(), 2u);
  EXPECT_EQ(d.requests[0].count, 3u);
  EXPECT_EQ(d.requests[1].count, 3u);
  decisions seen;
  send(s, 0, 1, 0.f, seen);
  // Slot 0 has 2 in flight: one more, index 3. Slot 1 still has 3 in flight.
  ASSERT_EQ(seen.requests.size(), 1u);
  EXPECT_EQ(seen.requests[0].slot, 0u);
  EXPECT_EQ(seen.requests[0].first_index, 3u);
  EXPECT_EQ(seen.requests[0].count, 1u);
}

TEST(EstStrategyTest, OnlineShiftsBudgetToThePromptThatFails) {
  est_config c = config(/*budget=*/16, /*n_min=*/2, /*n_max=*/14);
  c.wave = 2;
  const auto prompts = test::make_prompts(2);  // equal priors: the start plan is 8, 8
  // Slot 0 only fails, slot 1 only succeeds.
  const test::reward_fn reward = [](prompt_slot s, uint32_t) {
    return s == 1 ? 1.f : 0.f;
  };

  est_strategy offline(c, /*online=*/false);
  const auto a = test::drive(offline, prompts, reward);
  const auto ga = test::by_slot(a.finished);
  ASSERT_EQ(ga.size(), 2u);
  EXPECT_EQ(ga[0].samples_used, 8u);
  EXPECT_EQ(ga[1].samples_used, 8u);

  est_strategy online(c, /*online=*/true);
  const auto b = test::drive(online, prompts, reward);
  const auto gb = test::by_slot(b.finished);
  ASSERT_EQ(gb.size(), 2u);
  EXPECT_GT(gb[0].samples_used, 8u);
  EXPECT_LT(gb[1].samples_used, 8u);
  EXPECT_GE(gb[1].samples_used, 2u);
  EXPECT_EQ(gb[0].samples_used + gb[1].samples_used, 16u);
  EXPECT_EQ(b.accepted, 16u);
  EXPECT_LE(b.max_in_flight, 2u);
}

TEST(EstStrategyTest, OnlinePlanNeverDropsBelowRequestedAndAlwaysSumsToBudget) {
  est_config c = config(/*budget=*/40, /*n_min=*/2, /*n_max=*/16);
  c.wave = 2;
  est_strategy s(c, /*online=*/true);
  const auto prompts = prompts_with({0.05, 0.3, 0.5, 0.7, 0.95});
  const test::reward_fn reward = [](prompt_slot slot, uint32_t i) {
    return (i * 7 + slot * 3) % 5 < slot ? 1.f : 0.f;
  };
  uint32_t checks = 0, violations = 0;
  test::driver_options opt;
  opt.after_event = [&](const test::run_record& rec) {
    ++checks;
    if (sum(s.plan()) != s.budget()) ++violations;
    for (size_t i = 0; i < s.plan().size(); ++i)
      if (s.plan()[i] < rec.requested[i] || s.plan()[i] > c.n_max ||
          s.plan()[i] < c.n_min)
        ++violations;
  };
  opt.max_results = 1000;
  const auto rec = test::drive(s, prompts, reward, opt);
  ASSERT_FALSE(rec.runaway);
  EXPECT_GT(checks, 40u);
  EXPECT_EQ(violations, 0u);
  EXPECT_EQ(rec.accepted, 40u);
  EXPECT_EQ(rec.finished.size(), 5u);
  EXPECT_EQ(rec.step_done_events, 1u);
  EXPECT_TRUE(rec.done_at_end);
}

TEST(EstStrategyTest, OnlineFinishesAPromptWhenItsPlanIsVerified) {
  est_config c = config(/*budget=*/6, /*n_min=*/3, /*n_max=*/3);
  c.wave = 1;
  est_strategy s(c, /*online=*/true);
  const auto prompts = test::make_prompts(2);
  decisions d;
  s.start(prompts, d);
  ASSERT_EQ(d.requests.size(), 2u);
  decisions seen;
  send(s, 0, 0, 1.f, seen);
  send(s, 0, 1, 0.f, seen);
  EXPECT_TRUE(seen.finished.empty());
  send(s, 0, 2, 0.f, seen);
  ASSERT_EQ(seen.finished.size(), 1u);
  EXPECT_EQ(seen.finished[0].samples_used, 3u);
  // One at a time: indices 1, then 2; nothing after the plan of 3.
  ASSERT_EQ(seen.requests.size(), 2u);
  EXPECT_EQ(seen.requests[0].first_index, 1u);
  EXPECT_EQ(seen.requests[1].first_index, 2u);
}

}  // namespace
}  // namespace adarl
