// Budget-first Reinforce-Ada (docs/algorithm.md "Budget-first Reinforce-Ada"): the hard
// budget, the allocation rules, the cap of the hard prompts, skips with replacements, the
// reserve spent on one-sided pools, every sample trained; and random streams through the
// protocol driver.
#include "algorithms/budget_strategy.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <random>
#include <vector>

#include "algorithms/signal_chance.hpp"
#include "strategy_driver.hpp"
#include "strategy_feed.hpp"

namespace adarl {
namespace {

using test::feed;
using v = std::vector<float>;

std::vector<prompt_entry> believed(std::vector<beta_posterior> beliefs, uint64_t key = ~0ull) {
  std::vector<prompt_entry> out;
  for (size_t i = 0; i < beliefs.size(); ++i) out.push_back({100 + i, beliefs[i], key});
  return out;
}

budget_config no_skip() {
  budget_config c;  // 4 per prompt, n in [2, 16], reserve 0.25
  c.skip_below = 0;
  return c;
}

uint64_t sum(const std::vector<uint32_t>& n) { return std::accumulate(n.begin(), n.end(), uint64_t{0}); }

TEST(BudgetStrategyTest, MixedChanceMatchesTheSignalChanceAndTheBinomialByHand) {
  for (const beta_posterior b : {beta_posterior{1, 1}, {0.5, 60}, {3, 2}, {40, 2}})
    for (uint32_t n : {0u, 1u, 2u, 5u, 16u})
      EXPECT_NEAR(mixed_chance(b, n), n < 2 ? 0.0 : signal_chance(b, 0, 0, n, 1, 1), 1e-12)
          << b.a << "," << b.b << " n " << n;
  // Under a uniform prior, P(all n equal) = 2 / (n + 1): 4 draws mix with chance 0.6.
  EXPECT_NEAR(mixed_chance({1, 1}, 4), 0.6, 1e-12);
}

TEST(BudgetStrategyTest, UniformRuleGivesEveryPromptTheSameWave) {
  budget_config c = no_skip();
  c.allocation = allocation_rule::uniform;
  const std::vector<beta_posterior> b(6, {1, 1});
  EXPECT_EQ(plan_first_waves(c, b, 18), std::vector<uint32_t>(6, 3));
}

TEST(BudgetStrategyTest, SqrtRuleFollowsSqrtOfOneMinusPOverP) {
  budget_config c = no_skip();
  c.allocation = allocation_rule::sqrt;
  c.hard_below = 0;  // no cap here
  // p = 0.5, 0.2 and 0.1: weights 1, 2 and 3; 30 samples split 5, 10, 15.
  const std::vector<beta_posterior> b{{5, 5}, {2, 8}, {1, 9}};
  EXPECT_EQ(plan_first_waves(c, b, 30), (std::vector<uint32_t>{5, 10, 15}));
}

TEST(BudgetStrategyTest, HardPromptsTakeAtMostTheirShare) {
  budget_config c = no_skip();
  c.allocation = allocation_rule::sqrt;
  c.hard_below = 0.05;
  c.hard_share = 0.25;
  // Two prompts at p = 0.01 (weight ~10) beside two at p = 0.5 (weight 1): uncapped they
  // would take 14 of 16 each; capped, 10 of the 40 together, and the rest go to the others.
  const std::vector<beta_posterior> b{{1, 99}, {1, 99}, {5, 5}, {5, 5}};
  const auto n = plan_first_waves(c, b, 40);
  EXPECT_EQ(n[0] + n[1], 10u);
  EXPECT_EQ(n[2] + n[3], 30u);
  EXPECT_EQ(sum(n), 40u);
  for (auto x : n) EXPECT_LE(x, c.n_max);
}

TEST(BudgetStrategyTest, KnapsackSpendsWhereTheChanceOfAMixedGroupGrowsMost) {
  budget_config c = no_skip();
  c.allocation = allocation_rule::knapsack;
  c.hard_below = 0;
  // A prompt believed certain (Beta(200, 0.01)) gains almost nothing from more samples; an
  // unknown one gains. The certain one stays at n_min.
  const std::vector<beta_posterior> b{{200, 0.01}, {1, 1}};
  const auto n = plan_first_waves(c, b, 12);
  EXPECT_EQ(n[0], c.n_min);
  EXPECT_EQ(n[1], 10u);
}

TEST(BudgetStrategyTest, TheStepNeverDrawsMoreThanItsBudget) {
  budget_strategy s(no_skip());
  const auto prompts = believed(std::vector<beta_posterior>(12, {1, 1}));
  decisions d;
  s.start(prompts, d);
  EXPECT_EQ(s.budget(), 48u);  // 12 prompts x 4
  // 36 in first waves (the reserve holds 12), 3 each under the uniform belief.
  EXPECT_EQ(s.requested(), 36u);
  ASSERT_EQ(d.requests.size(), 12u);
  for (const auto& r : d.requests) EXPECT_EQ(r.count, 3u);
  // Every pool comes back all wrong: the reserve tops up 2 at a time, first come first
  // served, until it is spent: prompt 0 takes all 12 (6 top-ups, 15 samples).
  uint32_t top_ups = 0;
  for (prompt_slot p = 0; p < 12; ++p) {
    auto x = feed(s, p, 0, v(3, 0.f));
    while (!x.requests.empty()) {
      ASSERT_EQ(x.requests.size(), 1u);
      const auto r = x.requests[0];
      EXPECT_EQ(r.slot, p);
      EXPECT_EQ(r.count, 2u);
      ++top_ups;
      x = feed(s, p, r.first_index, v(r.count, 0.f));
      if (!x.finished.empty()) {
        EXPECT_EQ(x.finished[0].samples_used, p == 0 ? 15u : 3u);
      }
    }
  }
  EXPECT_TRUE(s.done());
  EXPECT_EQ(s.requested(), 48u);
  EXPECT_EQ(s.samples_accepted(), 48u);
  EXPECT_EQ(top_ups, 6u);
}

TEST(BudgetStrategyTest, AOneSidedPoolIsToppedUpFromTheReserveAndEverySampleIsTrained) {
  budget_strategy s(no_skip());
  const auto prompts = believed({{1, 1}, {1, 1}});
  decisions d;
  s.start(prompts, d);  // budget 8: 6 in waves of 3, reserve 2
  ASSERT_EQ(d.requests.size(), 2u);
  auto a = feed(s, 0, 0, {1, 1, 1});  // one-sided: topped up by 2
  ASSERT_EQ(a.requests.size(), 1u);
  EXPECT_EQ(a.requests[0].first_index, 3u);
  EXPECT_EQ(a.requests[0].count, 2u);
  auto b = feed(s, 0, 3, {0, 1});
  ASSERT_EQ(b.finished.size(), 1u);
  const auto& g = b.finished[0];
  EXPECT_EQ(g.exit, exit_kind::allocated);
  EXPECT_EQ(g.kept, (std::vector<uint32_t>{0, 1, 2, 3, 4}));  // no down-sampling
  EXPECT_EQ(g.samples_used, 5u);
  EXPECT_EQ(g.positives, 4u);
  EXPECT_EQ(g.rounds, 2u);
  EXPECT_NEAR(g.baseline, 0.8, 1e-6);
  EXPECT_NEAR(g.advantages[3], -0.8, 1e-6);
  EXPECT_NEAR(g.advantages[0], 0.2, 1e-6);
  EXPECT_FLOAT_EQ(g.weight, 1.f);
  EXPECT_NEAR(g.first_round_reward, 1.0, 1e-6);
  // The reserve is spent: prompt 1's one-sided pool finishes with zero advantages.
  auto c = feed(s, 1, 0, {0, 0, 0});
  ASSERT_EQ(c.finished.size(), 1u);
  EXPECT_TRUE(c.finished[0].zero_gradient());
  EXPECT_TRUE(c.step_done);
  EXPECT_EQ(s.requested(), 8u);
}

TEST(BudgetStrategyTest, GradWeightIsTheLogObjectivesOneOverP) {
  budget_config c = no_skip();
  c.grad_weight = true;
  budget_strategy s(c);
  decisions d;
  s.start(believed({{1, 1}}), d);  // budget 4: a wave of 3
  auto x = feed(s, 0, 0, {1, 0, 0});
  ASSERT_EQ(x.finished.size(), 1u);
  EXPECT_NEAR(x.finished[0].weight, 3.0, 1e-5);  // f'(1/3) = 3
}

TEST(BudgetStrategyTest, AHopelessVisitIsSkippedAndReplacedBeforeThePlan) {
  budget_config c = no_skip();
  c.skip_below = 0.1;
  c.explore = 0.1;
  budget_strategy s(c);
  // Prompt 0 is believed all wrong (Beta(0.5, 60): 4 draws mix with chance ~0.03); the
  // visit key of all ones is not explored.
  decisions d;
  s.start(believed({{0.5, 60}, {1, 1}}), d);
  ASSERT_EQ(d.finished.size(), 1u);
  EXPECT_EQ(d.finished[0].exit, exit_kind::skipped);
  EXPECT_EQ(d.prompts_wanted, 1u);
  EXPECT_TRUE(d.requests.empty());  // the plan waits for the replacement
  EXPECT_FALSE(s.done());
  decisions e;
  s.add_prompts(believed({{2, 2}}), e);
  ASSERT_EQ(e.requests.size(), 2u);  // slots 1 and 2 share the budget of 2 prompts
  EXPECT_EQ(s.first_waves(), (std::vector<uint32_t>{0, 3, 3}));
  EXPECT_EQ(s.budget(), 8u);
}

TEST(BudgetStrategyTest, AnExploredVisitIsDrawnAndAnExhaustedSourcePlansWithWhatItHas) {
  budget_config c = no_skip();
  c.skip_below = 0.1;
  c.explore = 0.5;
  {
    budget_strategy s(c);
    decisions d;
    s.start(believed({{0.5, 60}}, /*key=*/0), d);  // u = 0 < explore: drawn
    EXPECT_TRUE(d.finished.empty());
    ASSERT_EQ(d.requests.size(), 1u);
  }
  budget_strategy s(c);
  decisions d;
  s.start(believed({{0.5, 60}, {1, 1}}), d);
  decisions e;
  s.add_prompts({}, e);  // no prompt left: plan the one kept prompt
  ASSERT_EQ(e.requests.size(), 1u);
  EXPECT_EQ(e.requests[0].slot, 1u);
}

TEST(BudgetStrategyTest, EveryPromptSkippedAndNoReplacementEndsTheStep) {
  budget_config c = no_skip();
  c.skip_below = 0.5;
  c.skip_extra_factor = 0;
  budget_strategy s(c);
  decisions d;
  s.start(believed({{0.5, 60}, {0.5, 60}}), d);
  EXPECT_EQ(d.finished.size(), 2u);
  EXPECT_TRUE(d.step_done);
  EXPECT_TRUE(s.done());
  EXPECT_EQ(s.requested(), 0u);
}

TEST(BudgetStrategyTest, RandomStreamsKeepTheProtocolAndTheBudget) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    budget_config c;
    c.allocation = allocation_rule(trial % 3);
    c.samples_per_prompt = 2 + trial % 5;
    c.n_max = 8 + trial % 9;
    c.reserve = 0.05 + 0.1 * (trial % 6);
    c.reserve_wave = 1 + trial % 3;
    c.skip_below = trial % 2 ? 0.1 : 0;
    c.grad_weight = trial % 4 == 0;
    budget_strategy s(c);
    std::vector<prompt_entry> prompts;
    const size_t count = 1 + trial % 12;
    for (size_t i = 0; i < count; ++i)
      prompts.push_back({i, {0.2 + (rng() % 100) * 0.1, 0.2 + (rng() % 100) * 0.1}, rng()});
    std::vector<double> p(64);
    for (auto& x : p) x = (rng() % 101) / 100.0;
    test::driver_options opt;
    opt.rng = &rng;
    opt.duplicate_rate = 0.05;
    // Junk slots are numbered past the requested ones, where a skipped slot may be.
    opt.junk_rate = c.skip_below > 0 ? 0 : 0.05;
    opt.prompt_supply = trial % 5;
    auto rec = test::drive(
        s, prompts,
        [&](prompt_slot slot, uint32_t index) {
          return float((slot * 7919 + index * 104729) % 100 < p[slot % 64] * 100);
        },
        opt);
    SCOPED_TRACE("trial " + std::to_string(trial));
    EXPECT_FALSE(rec.runaway);
    EXPECT_TRUE(rec.done_at_end);
    EXPECT_EQ(rec.step_done_events, 1u);
    EXPECT_EQ(rec.index_violations, 0u);
    EXPECT_EQ(rec.status_violations, 0u);
    EXPECT_LE(rec.accepted, s.budget());
    EXPECT_EQ(s.requested(), rec.accepted);
    // Every slot finishes once; every trained group keeps its whole pool.
    std::vector<int> seen(rec.requested.size() + count + 8, 0);
    for (const auto& g : rec.finished) {
      ++seen[g.slot];
      if (!g.trainable()) continue;
      EXPECT_EQ(g.kept.size(), g.samples_used);
      EXPECT_LE(g.samples_used, c.n_max);
      EXPECT_EQ(g.advantages.size(), g.kept.size());
    }
    for (int x : seen) EXPECT_LE(x, 1);
  }
}

TEST(BudgetStrategyTest, ConfigRefusesABudgetBelowNMinPerPromptAndBadShares) {
  strategy_config c;
  c.kind = strategy_kind::ada_budget;
  c.budget.budget = 20;
  c.budget.n_min = 2;
  EXPECT_TRUE(validate(c).empty());
  const auto small = validate_for_step(c, 12);
  ASSERT_EQ(small.size(), 1u);
  EXPECT_EQ(small[0].key, "budget");
  EXPECT_NE(small[0].message.find("24"), std::string::npos) << small[0].message;
  EXPECT_TRUE(validate_for_step(c, 10).empty());
  for (double r : {0.0, -0.1, 1.0}) {
    c.budget.reserve = r;
    const auto issues = validate(c);
    ASSERT_EQ(issues.size(), 1u) << r;
    EXPECT_EQ(issues[0].key, "reserve");
  }
  EXPECT_FALSE(parse_allocation_rule("greedy"));
  EXPECT_EQ(*parse_allocation_rule("knapsack"), allocation_rule::knapsack);
  EXPECT_EQ(*parse_strategy_kind("ada-budget"), strategy_kind::ada_budget);
}

}  // namespace
}  // namespace adarl
