// The policy-lag gate (docs/algorithm.md "Asynchrony and the loss"): admit, wait, stale, full, exact mode.
#include "algorithms/lag_gate.hpp"

#include <gtest/gtest.h>

namespace adarl {
namespace {

lag_gate gate(uint32_t max_lag, uint64_t max_step_samples = 0, bool exact = false) {
  return lag_gate{{max_lag, max_step_samples, exact}};
}

TEST(LagGateTest, AdmitsWithinTheLagAndWaitsBeyondIt) {
  const auto g = gate(/*max_lag=*/1);
  EXPECT_EQ(g.check(/*step=*/3, /*version=*/3, /*admitted=*/0),
            gate_verdict::admit);                               // lag 0
  EXPECT_EQ(g.check(3, 2, 0), gate_verdict::admit);             // lag 1
  EXPECT_EQ(g.check(3, 1, 0), gate_verdict::wait_for_learner);  // lag 2
  const auto g2 = gate(/*max_lag=*/2);
  EXPECT_EQ(g2.check(3, 1, 0), gate_verdict::admit);
  EXPECT_EQ(g2.check(3, 0, 0), gate_verdict::wait_for_learner);
  const auto g0 = gate(/*max_lag=*/0);
  EXPECT_EQ(g0.check(3, 3, 0), gate_verdict::admit);
  EXPECT_EQ(g0.check(3, 2, 0), gate_verdict::wait_for_learner);
}

TEST(LagGateTest, TrainedStepsAreStale) {
  const auto g = gate(/*max_lag=*/4);
  // Version 3 has trained steps 0, 1, 2.
  EXPECT_EQ(g.check(2, 3, 0), gate_verdict::stale);
  EXPECT_EQ(g.check(0, 3, 0), gate_verdict::stale);
  EXPECT_EQ(g.check(3, 3, 0), gate_verdict::admit);
}

TEST(LagGateTest, StepFullAfterMaxStepSamples) {
  const auto g = gate(/*max_lag=*/1, /*max_step_samples=*/10);
  EXPECT_EQ(g.check(5, 5, 9), gate_verdict::admit);
  EXPECT_EQ(g.check(5, 5, 10), gate_verdict::step_full);
  EXPECT_EQ(g.check(5, 5, 11), gate_verdict::step_full);
  // Stale and waiting take precedence over full.
  EXPECT_EQ(g.check(4, 5, 10), gate_verdict::stale);
  EXPECT_EQ(g.check(7, 5, 10), gate_verdict::wait_for_learner);
  // No cap by default.
  EXPECT_EQ(gate(1).check(5, 5, 1000000), gate_verdict::admit);
}

TEST(LagGateTest, ExactModePinsTheVersion) {
  const auto g = gate(/*max_lag=*/1, 0, /*exact=*/true);
  // Steps 0 and 1 use version 0; step t >= 1 uses version t - 1.
  EXPECT_EQ(g.check(0, 0, 0), gate_verdict::admit);
  EXPECT_EQ(g.check(1, 0, 0), gate_verdict::admit);
  EXPECT_EQ(g.check(1, 1, 0), gate_verdict::stale);  // moved past its version
  EXPECT_EQ(g.check(2, 0, 0), gate_verdict::wait_for_learner);
  EXPECT_EQ(g.check(2, 1, 0), gate_verdict::admit);
  EXPECT_EQ(g.check(2, 2, 0), gate_verdict::stale);
  EXPECT_EQ(g.check(5, 3, 0), gate_verdict::wait_for_learner);
  EXPECT_EQ(g.check(5, 4, 0), gate_verdict::admit);
  const auto g0 = gate(/*max_lag=*/0, 0, /*exact=*/true);
  EXPECT_EQ(g0.check(2, 2, 0), gate_verdict::admit);
  EXPECT_EQ(g0.check(2, 1, 0), gate_verdict::wait_for_learner);
  EXPECT_EQ(g0.check(1, 2, 0), gate_verdict::stale);
  // Exact mode still caps the step.
  EXPECT_EQ(gate(1, /*max_step_samples=*/4, true).check(2, 1, 4),
            gate_verdict::step_full);
}

TEST(LagGateTest, MayPublishOnlyAfterTheLastStepOfTheVersionIsGenerated) {
  EXPECT_TRUE(gate(1).may_publish(0, -1));  // not exact: always
  const auto g = gate(/*max_lag=*/1, 0, /*exact=*/true);
  // Version 0 serves steps 0 and 1: version 1 may come once step 1 is generated.
  EXPECT_FALSE(g.may_publish(0, -1));
  EXPECT_FALSE(g.may_publish(0, 0));
  EXPECT_TRUE(g.may_publish(0, 1));
  EXPECT_FALSE(g.may_publish(3, 3));
  EXPECT_TRUE(g.may_publish(3, 4));
  const auto g0 = gate(/*max_lag=*/0, 0, /*exact=*/true);
  EXPECT_FALSE(g0.may_publish(0, -1));
  EXPECT_TRUE(g0.may_publish(0, 0));
}

TEST(LagGateTest, ExactModeRunUsesThePinnedVersions) {
  // Simulate: the generator admits what the gate allows, the learner publishes when
  // allowed; every admitted step t must see version max(0, t - k).
  for (uint32_t k : {0u, 1u, 3u}) {
    const auto g = gate(k, 0, /*exact=*/true);
    uint64_t version = 0;
    int64_t generated_through = -1;
    for (uint64_t step = 0; step < 20; ++step) {
      while (g.check(step, version, 0) == gate_verdict::wait_for_learner) {
        ASSERT_TRUE(g.may_publish(version, generated_through)) << k << " " << step;
        ++version;
      }
      ASSERT_EQ(g.check(step, version, 0), gate_verdict::admit) << k << " " << step;
      EXPECT_EQ(version, step > k ? step - k : 0);
      generated_through = static_cast<int64_t>(step);
    }
  }
}

TEST(LagGateTest, LagOf) {
  EXPECT_EQ(lag_gate::lag_of(5, 3), 2u);
  EXPECT_EQ(lag_gate::lag_of(3, 3), 0u);
  EXPECT_EQ(lag_gate::lag_of(3, 5), 0u);
}

TEST(LagGateTest, ExactModeFloorKeepsAResumedRunFromWaitingForGoneVersions) {
  // Resumed at version 10 without the steps that needed version 9: step 10 would be
  // pinned to version 9 forever (the hang of a resumed deterministic run).
  auto g = gate(/*max_lag=*/1, 0, /*exact=*/true);
  EXPECT_EQ(g.check(/*step=*/10, /*version=*/10, 0), gate_verdict::stale);
  g.config.floor_version = 10;
  EXPECT_EQ(g.pinned(10), 10u);
  EXPECT_EQ(g.check(10, 10, 0), gate_verdict::admit);
  EXPECT_EQ(g.pinned(11), 10u);
  EXPECT_EQ(g.check(11, 10, 0), gate_verdict::admit);
  EXPECT_EQ(g.pinned(12), 11u);  // past the floor: t - k again
  EXPECT_EQ(g.check(12, 10, 0), gate_verdict::wait_for_learner);
}

}  // namespace
}  // namespace adarl
