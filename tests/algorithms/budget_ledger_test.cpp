// The budget ledger: per-step and cumulative samples and tokens.
#include "algorithms/budget_ledger.hpp"

#include <gtest/gtest.h>

namespace adarl {
namespace {

TEST(BudgetLedgerTest, ChargesPerStepAndCumulatively) {
  budget_ledger l;
  l.charge(/*step=*/3, /*samples=*/2, /*tokens=*/100);
  l.charge(4, 5, 40);
  l.charge(3, 1, 7);
  EXPECT_EQ(l.step_totals(3).samples, 3u);
  EXPECT_EQ(l.step_totals(3).tokens, 107u);
  EXPECT_EQ(l.step_totals(4).samples, 5u);
  EXPECT_EQ(l.step_totals(4).tokens, 40u);
  EXPECT_EQ(l.step_totals(9).samples, 0u);  // unknown step
  EXPECT_EQ(l.cumulative().samples, 8u);
  EXPECT_EQ(l.cumulative().tokens, 147u);
}

TEST(BudgetLedgerTest, CloseStepReturnsItsTotalsAndKeepsTheCumulative) {
  budget_ledger l;
  l.charge(1, 4, 10);
  l.charge(2, 6, 20);
  const auto closed = l.close_step(1);
  EXPECT_EQ(closed.samples, 4u);
  EXPECT_EQ(closed.tokens, 10u);
  EXPECT_EQ(l.step_totals(1).samples, 0u);
  EXPECT_EQ(l.step_totals(2).samples, 6u);
  EXPECT_EQ(l.cumulative().samples, 10u);
  EXPECT_EQ(l.close_step(1).samples, 0u);  // closing twice gives nothing
  // A late charge reopens the step from zero.
  l.charge(1, 1, 3);
  EXPECT_EQ(l.step_totals(1).samples, 1u);
  EXPECT_EQ(l.cumulative().samples, 11u);
  EXPECT_EQ(l.cumulative().tokens, 33u);
}

TEST(BudgetLedgerTest, SamplesLeftUnderALimit) {
  budget_ledger l;
  EXPECT_EQ(l.samples_left(100), 100u);
  l.charge(0, 60, 0);
  EXPECT_EQ(l.samples_left(100), 40u);
  l.charge(1, 50, 0);
  EXPECT_EQ(l.samples_left(100), 0u);  // overspent: 0, no wrap-around
  EXPECT_EQ(l.samples_left(110), 0u);
}

TEST(BudgetLedgerTest, RestoreSetsTheCumulativeCounters) {
  budget_ledger l;
  l.charge(0, 5, 5);
  l.restore({1000, 50000});
  EXPECT_EQ(l.cumulative().samples, 1000u);
  EXPECT_EQ(l.cumulative().tokens, 50000u);
  l.charge(7, 3, 30);
  EXPECT_EQ(l.cumulative().samples, 1003u);
  EXPECT_EQ(l.cumulative().tokens, 50030u);
  EXPECT_EQ(l.samples_left(1010), 7u);
}

// Steps commit in step order: each point is the step's spending and everything through
// it, whatever order the charges came in; open steps are not in committed().
TEST(BudgetLedgerTest, CommitsInStepOrderGiveTheTotalsThroughEachStep) {
  budget_ledger l;
  l.charge(1, 2, 20);
  l.charge(0, 3, 30);
  l.charge(2, 7, 70);  // still open below
  l.charge(1, 1, 10);
  const auto p0 = l.commit_step(0);
  EXPECT_EQ(p0.step.samples, 3u);
  EXPECT_EQ(p0.through.samples, 3u);
  const auto p1 = l.commit_step(1);
  EXPECT_EQ(p1.step.samples, 3u);
  EXPECT_EQ(p1.step.tokens, 30u);
  EXPECT_EQ(p1.through.samples, 6u);
  EXPECT_EQ(p1.through.tokens, 60u);
  EXPECT_EQ(l.committed().samples, 6u);
  EXPECT_EQ(l.cumulative().samples, 13u);  // step 2 is charged, not committed
  // A resume restores what the committed steps spent and counts on from there.
  l.restore({6, 60});
  EXPECT_EQ(l.step_totals(2).samples, 0u);
  l.charge(2, 4, 8);
  const auto p2 = l.commit_step(2);
  EXPECT_EQ(p2.step.samples, 4u);
  EXPECT_EQ(p2.through.samples, 10u);
  EXPECT_EQ(p2.through.tokens, 68u);
}

}  // namespace
}  // namespace adarl
