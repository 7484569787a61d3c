// make_strategy: each config kind builds the strategy that behaves as that kind.
#include <gtest/gtest.h>

#include "algorithms/est_strategy.hpp"
#include "algorithms/seq_strategy.hpp"
#include "algorithms/step_strategy.hpp"
#include "algorithms/uniform_strategy.hpp"
#include "strategy_driver.hpp"

namespace adarl {
namespace {

strategy_config of(strategy_kind k) {
  strategy_config c;
  c.kind = k;
  return c;
}

TEST(MakeStrategyTest, BuildsTheConfiguredClass) {
  EXPECT_NE(dynamic_cast<seq_strategy*>(make_strategy(of(strategy_kind::ada_seq)).get()),
            nullptr);
  EXPECT_NE(dynamic_cast<est_strategy*>(make_strategy(of(strategy_kind::ada_est)).get()),
            nullptr);
  EXPECT_NE(
      dynamic_cast<est_strategy*>(make_strategy(of(strategy_kind::ada_est_online)).get()),
      nullptr);
  for (auto k : {strategy_kind::grpo, strategy_kind::dr_grpo, strategy_kind::dapo})
    EXPECT_NE(dynamic_cast<uniform_strategy*>(make_strategy(of(k)).get()), nullptr);
}

TEST(MakeStrategyTest, EachKindBehavesAsNamed) {
  const auto prompts = test::make_prompts(2);
  // Slot 0: all wrong; slot 1: one right answer in each group of 4.
  const test::reward_fn reward = [](prompt_slot s, uint32_t i) {
    return s == 1 && i % 4 == 0 ? 1.f : 0.f;
  };
  auto run = [&](strategy_kind k) {
    auto c = of(k);
    c.est.wave = 2;
    auto s = make_strategy(c);
    return test::by_slot(test::drive(*s, prompts, reward).finished);
  };
  // Seq (balance): slot 0 never exits; slot 1 exits in round 1 (2 of 8 positive).
  const auto seq = run(strategy_kind::ada_seq);
  ASSERT_EQ(seq.size(), 2u);
  EXPECT_EQ(seq[0].exit, exit_kind::fallback_missing_positives);
  EXPECT_EQ(seq[0].samples_used, 32u);
  EXPECT_EQ(seq[1].exit, exit_kind::balance);
  // Est: 8 per prompt on average, every sample kept.
  for (auto k : {strategy_kind::ada_est, strategy_kind::ada_est_online}) {
    const auto est = run(k);
    ASSERT_EQ(est.size(), 2u);
    EXPECT_EQ(est[0].exit, exit_kind::allocated);
    EXPECT_EQ(est[0].samples_used + est[1].samples_used, 16u);
    EXPECT_EQ(est[0].kept.size(), est[0].samples_used);
  }
  // GRPO vs Dr.GRPO on slot 1 (rewards 1, 0, 0, 0): divided by the std 0.5, or not.
  const auto grpo = run(strategy_kind::grpo);
  const auto dr = run(strategy_kind::dr_grpo);
  EXPECT_NEAR(grpo[1].advantages[0], 0.75 / 0.500001, 1e-6);
  EXPECT_NEAR(dr[1].advantages[0], 0.75, 1e-6);
  // DAPO drops slot 0 and replaces it (the replacement, slot 2, fails as well).
  const auto dapo = run(strategy_kind::dapo);
  ASSERT_GE(dapo.size(), 3u);
  EXPECT_EQ(dapo[0].exit, exit_kind::dropped);
  EXPECT_EQ(dapo[1].exit, exit_kind::uniform);
}

}  // namespace
}  // namespace adarl
