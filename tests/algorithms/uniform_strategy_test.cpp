// The uniform-group baselines (docs/algorithm.md "Baselines"): GRPO, Dr.GRPO and DAPO's
// dynamic sampling, with hand-computed advantages.
#include "algorithms/uniform_strategy.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "strategy_driver.hpp"
#include "strategy_feed.hpp"

namespace adarl {
namespace {

using test::feed;
using test::make_prompts;
using test::send;

uniform_config config(uint32_t n = 4, double extra_factor = 2.0) {
  uniform_config c;
  c.group_size = n;
  c.dapo_extra_factor = extra_factor;
  return c;
}

void expect_floats(const std::vector<float>& got, const std::vector<double>& want,
                   double tol = 1e-6) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "at " << i;
}

// Feeds one whole group to a fresh single-prompt strategy and returns it.
finished_group one_group(strategy_kind kind, const std::vector<float>& rewards) {
  uniform_strategy s(config(static_cast<uint32_t>(rewards.size())), kind);
  const auto prompts = make_prompts(1);
  decisions d;
  s.start(prompts, d);
  auto r = feed(s, 0, 0, rewards);
  EXPECT_EQ(r.finished.size(), 1u);
  return r.finished.empty() ? finished_group{} : r.finished[0];
}

TEST(UniformStrategyTest, StartRequestsNSamplesPerPrompt) {
  for (auto kind : {strategy_kind::grpo, strategy_kind::dr_grpo, strategy_kind::dapo}) {
    uniform_strategy s(config(/*n=*/6), kind);
    const auto prompts = make_prompts(3);
    decisions d;
    s.start(prompts, d);
    ASSERT_EQ(d.requests.size(), 3u);
    for (uint32_t i = 0; i < 3; ++i) {
      EXPECT_EQ(d.requests[i].slot, i);
      EXPECT_EQ(d.requests[i].first_index, 0u);
      EXPECT_EQ(d.requests[i].count, 6u);
    }
    EXPECT_FALSE(s.done());
  }
}

TEST(UniformStrategyTest, GrpoDividesByUnbiasedStdPlusEps) {
  // mean 0.25, unbiased std sqrt((0.5625 + 3 * 0.0625) / 3) = 0.5.
  auto g = one_group(strategy_kind::grpo, {1, 0, 0, 0});
  expect_floats(g.advantages,
                {0.75 / 0.500001, -0.25 / 0.500001, -0.25 / 0.500001, -0.25 / 0.500001});
  EXPECT_NEAR(g.advantages[0], 1.499997, 1e-6);
  EXPECT_FLOAT_EQ(g.baseline, 0.25f);
  EXPECT_EQ(g.exit, exit_kind::uniform);
  EXPECT_EQ(g.kept, (std::vector<uint32_t>{0, 1, 2, 3}));
  EXPECT_EQ(g.samples_used, 4u);
  EXPECT_EQ(g.positives, 1u);
  EXPECT_FLOAT_EQ(g.weight, 1.f);

  // Non-binary: mean 0.3, deviations 0.6, 0, -0.3, -0.3, std sqrt(0.54 / 3) = 0.424264.
  auto h = one_group(strategy_kind::grpo, {0.9f, 0.3f, 0, 0});
  const double sd = std::sqrt(0.18) + 1e-6;
  expect_floats(h.advantages, {0.6 / sd, 0.0, -0.3 / sd, -0.3 / sd});
  EXPECT_EQ(h.positives, 1u);

  // n = 3: mean 0.5, std sqrt((0.25 + 0.25 + 0) / 2) = 0.5.
  auto k = one_group(strategy_kind::grpo, {1, 0, 0.5f});
  expect_floats(k.advantages, {0.5 / 0.500001, -0.5 / 0.500001, 0.0});
}

TEST(UniformStrategyTest, GrpoKeepsAllEqualGroupsWithZeroAdvantages) {
  uniform_strategy s(config(), strategy_kind::grpo);
  const auto prompts = make_prompts(1);
  decisions d;
  s.start(prompts, d);
  auto r = feed(s, 0, 0, {1, 1, 1, 1});
  ASSERT_EQ(r.finished.size(), 1u);
  EXPECT_EQ(r.finished[0].exit, exit_kind::uniform);
  EXPECT_TRUE(r.finished[0].trainable());
  EXPECT_TRUE(r.finished[0].zero_gradient());
  expect_floats(r.finished[0].advantages, {0, 0, 0, 0});
  EXPECT_EQ(r.prompts_wanted, 0u);
  EXPECT_TRUE(r.step_done);
}

TEST(UniformStrategyTest, DrGrpoSubtractsTheMeanOnly) {
  auto g = one_group(strategy_kind::dr_grpo, {1, 0, 0, 0});
  expect_floats(g.advantages, {0.75, -0.25, -0.25, -0.25});
  auto h = one_group(strategy_kind::dr_grpo, {0.9f, 0.3f, 0, 0});
  expect_floats(h.advantages, {0.6, 0.0, -0.3, -0.3});
  EXPECT_NEAR(h.first_round_reward, 0.3, 1e-6);
}

TEST(UniformStrategyTest, GroupFinishesOnlyWhenAllNSamplesArrive) {
  uniform_strategy s(config(), strategy_kind::grpo);
  const auto prompts = make_prompts(2);
  decisions d;
  s.start(prompts, d);
  decisions seen;
  send(s, 0, 3, 1.f, seen);
  send(s, 0, 0, 0.f, seen);
  send(s, 0, 2, 0.f, seen);
  EXPECT_TRUE(seen.finished.empty());
  send(s, 0, 1, 1.f, seen);
  ASSERT_EQ(seen.finished.size(), 1u);
  EXPECT_EQ(seen.finished[0].slot, 0u);
  EXPECT_EQ(seen.finished[0].tokens, 40u);
  EXPECT_FALSE(seen.step_done);
}

TEST(UniformStrategyTest, DuplicatesUnknownSlotsAndUnrequestedIndicesAreIgnored) {
  uniform_strategy s(config(/*n=*/2), strategy_kind::dr_grpo);
  const auto prompts = make_prompts(1);
  decisions d;
  s.start(prompts, d);
  decisions seen;
  EXPECT_EQ(send(s, 0, 0, 1.f, seen), result_status::accepted);
  EXPECT_EQ(send(s, 0, 0, 0.f, seen), result_status::duplicate);
  EXPECT_EQ(send(s, 0, 2, 0.f, seen), result_status::not_requested);
  EXPECT_EQ(send(s, 1, 0, 0.f, seen), result_status::unknown_slot);
  EXPECT_EQ(s.samples_accepted(), 1u);
  EXPECT_EQ(send(s, 0, 1, 0.f, seen), result_status::accepted);
  ASSERT_EQ(seen.finished.size(), 1u);
  expect_floats(seen.finished[0].advantages, {0.5, -0.5});
  EXPECT_EQ(s.samples_accepted(), 2u);
}

TEST(UniformStrategyTest, DapoDropsAllEqualGroupsAndAsksForAReplacement) {
  uniform_strategy s(config(/*n=*/4, /*extra_factor=*/2.0), strategy_kind::dapo);
  const auto prompts = make_prompts(2);
  decisions d;
  s.start(prompts, d);
  EXPECT_EQ(s.extra_draws_left(), 4u);  // ceil(2.0 * 2)

  auto r0 = feed(s, 0, 0, {0, 0, 0, 0});
  ASSERT_EQ(r0.finished.size(), 1u);
  EXPECT_EQ(r0.finished[0].exit, exit_kind::dropped);
  EXPECT_FALSE(r0.finished[0].trainable());
  EXPECT_EQ(r0.prompts_wanted, 1u);
  EXPECT_FALSE(r0.step_done);
  EXPECT_EQ(s.extra_draws_left(), 3u);

  // Non-binary but all equal is dropped too.
  auto r1 = feed(s, 1, 0, {0.4f, 0.4f, 0.4f, 0.4f});
  ASSERT_EQ(r1.finished.size(), 1u);
  EXPECT_EQ(r1.finished[0].exit, exit_kind::dropped);
  EXPECT_EQ(r1.prompts_wanted, 1u);
  EXPECT_FALSE(s.done());  // two replacements wanted

  // Both replacements at once: slots 2 and 3, with their own ids.
  decisions added;
  const auto extra = make_prompts(2, /*first_id=*/900);
  s.add_prompts(extra, added);
  ASSERT_EQ(added.requests.size(), 2u);
  EXPECT_EQ(added.requests[0].slot, 2u);
  EXPECT_EQ(added.requests[1].slot, 3u);
  EXPECT_EQ(added.requests[1].first_index, 0u);
  EXPECT_EQ(added.requests[1].count, 4u);
  EXPECT_FALSE(added.step_done);

  auto r2 = feed(s, 2, 0, {1, 0, 0, 0});
  ASSERT_EQ(r2.finished.size(), 1u);
  EXPECT_EQ(r2.finished[0].exit, exit_kind::uniform);
  EXPECT_EQ(r2.finished[0].prompt_id, 900u);
  EXPECT_TRUE(r2.finished[0].trainable());
  // DAPO uses GRPO advantages.
  EXPECT_NEAR(r2.finished[0].advantages[0], 1.499997, 1e-6);
  EXPECT_FALSE(r2.step_done);
  auto r3 = feed(s, 3, 0, {1, 1, 0, 1});
  ASSERT_EQ(r3.finished.size(), 1u);
  EXPECT_EQ(r3.finished[0].prompt_id, 901u);
  EXPECT_EQ(r3.prompts_wanted, 0u);
  EXPECT_TRUE(r3.step_done);
  EXPECT_TRUE(s.done());
}

TEST(UniformStrategyTest, DapoAddPromptsTakesNoMoreThanWanted) {
  uniform_strategy s(config(), strategy_kind::dapo);
  const auto prompts = make_prompts(1);
  decisions d;
  s.start(prompts, d);
  auto r = feed(s, 0, 0, {1, 1, 1, 1});
  ASSERT_EQ(r.prompts_wanted, 1u);
  decisions added;
  const auto extra = make_prompts(3, /*first_id=*/50);
  s.add_prompts(extra, added);
  ASSERT_EQ(added.requests.size(), 1u);
  EXPECT_EQ(added.requests[0].slot, 1u);
  decisions unknown;
  EXPECT_EQ(send(s, 2, 0, 1.f, unknown), result_status::unknown_slot);
}

TEST(UniformStrategyTest, DapoExtraDrawsAreBoundedByCeilFactorTimesBatch) {
  const test::reward_fn zero = [](prompt_slot, uint32_t) { return 0.f; };
  struct bound_case {
    size_t batch;
    double factor;
    uint32_t extra;
  };
  for (auto [batch, factor, extra] : {bound_case{2, 1.0, 2}, bound_case{3, 0.5, 2},
                                      bound_case{4, 0.0, 0}, bound_case{5, 0.3, 2}}) {
    SCOPED_TRACE(batch);
    uniform_strategy s(config(/*n=*/4, factor), strategy_kind::dapo);
    const auto prompts = make_prompts(batch);
    test::driver_options opt;
    opt.max_results = 1000;
    const auto rec = test::drive(s, prompts, zero, opt);
    ASSERT_FALSE(rec.runaway);
    EXPECT_EQ(rec.prompts_added, extra);
    EXPECT_EQ(rec.finished.size(), batch + extra);
    for (const auto& g : rec.finished) EXPECT_EQ(g.exit, exit_kind::dropped);
    EXPECT_EQ(rec.step_done_events, 1u);
    EXPECT_TRUE(rec.done_at_end);
    EXPECT_EQ(s.extra_draws_left(), 0u);
  }
}

TEST(UniformStrategyTest, DapoHugeExtraFactorIsCappedNotOverflowed) {
  for (double factor : {1e12, std::numeric_limits<double>::infinity()}) {
    uniform_strategy s(config(/*n=*/4, factor), strategy_kind::dapo);
    const auto prompts = make_prompts(3);
    decisions d;
    s.start(prompts, d);
    EXPECT_EQ(s.extra_draws_left(), std::numeric_limits<uint32_t>::max()) << factor;
    auto r = feed(s, 0, 0, {0, 0, 0, 0});
    EXPECT_EQ(r.prompts_wanted, 1u);
  }
  uniform_strategy empty(config(/*n=*/4, std::numeric_limits<double>::infinity()),
                         strategy_kind::dapo);
  decisions d;
  empty.start({}, d);
  EXPECT_EQ(empty.extra_draws_left(), 0u);
  EXPECT_TRUE(d.step_done);
}

TEST(UniformStrategyTest, DapoGivenFewerPromptsThanWantedEndsTheStep) {
  uniform_strategy s(config(), strategy_kind::dapo);
  const auto prompts = make_prompts(2);
  decisions d;
  s.start(prompts, d);
  auto r0 = feed(s, 0, 0, {0, 0, 0, 0});
  ASSERT_EQ(r0.prompts_wanted, 1u);
  decisions none;
  s.add_prompts({}, none);  // the source is exhausted
  EXPECT_TRUE(none.requests.empty());
  EXPECT_FALSE(none.step_done);  // slot 1 is still sampling
  EXPECT_EQ(s.extra_draws_left(), 0u);
  auto r1 = feed(s, 1, 0, {1, 1, 1, 1});
  ASSERT_EQ(r1.finished.size(), 1u);
  EXPECT_EQ(r1.finished[0].exit, exit_kind::dropped);
  EXPECT_EQ(r1.prompts_wanted, 0u);  // no more asks after exhaustion
  EXPECT_TRUE(r1.step_done);
  EXPECT_TRUE(s.done());
}

TEST(UniformStrategyTest, DapoExhaustedWithNothingActiveIsDoneAtOnce) {
  uniform_strategy s(config(), strategy_kind::dapo);
  const auto prompts = make_prompts(1);
  decisions d;
  s.start(prompts, d);
  auto r = feed(s, 0, 0, {0, 0, 0, 0});
  EXPECT_FALSE(r.step_done);
  EXPECT_FALSE(s.done());
  decisions none;
  s.add_prompts({}, none);
  EXPECT_TRUE(none.step_done);
  EXPECT_TRUE(s.done());
}

TEST(UniformStrategyTest, DapoKeptGroupsNeverExceedTheBatch) {
  // Slots alternate all-equal and mixed groups; each drop is replaced at most once.
  const test::reward_fn reward = [](prompt_slot s, uint32_t i) {
    return s % 2 == 0 ? 0.f : (i == 0 ? 1.f : 0.f);
  };
  uniform_strategy s(config(/*n=*/4, /*extra_factor=*/10.0), strategy_kind::dapo);
  const auto prompts = make_prompts(4);
  const auto rec = test::drive(s, prompts, reward);
  uint32_t kept = 0;
  for (const auto& g : rec.finished) kept += g.trainable() ? 1 : 0;
  // In FIFO order: slots 0 and 2 drop and are replaced by 4 and 5; 4 drops and is
  // replaced by 6, which drops and is replaced by 7. Kept: 1, 3, 5, 7, never more.
  EXPECT_EQ(kept, 4u);
  EXPECT_EQ(rec.prompts_added, 4u);
  EXPECT_EQ(rec.finished.size(), 4u + rec.prompts_added);
  EXPECT_EQ(rec.step_done_events, 1u);
}

TEST(UniformStrategyTest, NonDapoStrategiesIgnoreAddPrompts) {
  for (auto kind : {strategy_kind::grpo, strategy_kind::dr_grpo}) {
    uniform_strategy s(config(/*n=*/2), kind);
    const auto prompts = make_prompts(1);
    decisions d;
    s.start(prompts, d);
    decisions added;
    const auto extra = make_prompts(2, /*first_id=*/7);
    s.add_prompts(extra, added);
    EXPECT_TRUE(added.requests.empty());
    auto r = feed(s, 0, 0, {1, 1});
    EXPECT_TRUE(r.step_done);
    // A late call after the step is done must not announce the end a second time.
    decisions late;
    s.add_prompts(extra, late);
    EXPECT_FALSE(late.step_done);
    EXPECT_TRUE(late.requests.empty());
  }
}

TEST(UniformStrategyTest, EmptyBatchIsDoneAtStart) {
  uniform_strategy s(config(), strategy_kind::dapo);
  decisions d;
  s.start({}, d);
  EXPECT_TRUE(d.step_done);
  EXPECT_TRUE(s.done());
  EXPECT_EQ(s.extra_draws_left(), 0u);
}

}  // namespace
}  // namespace adarl
