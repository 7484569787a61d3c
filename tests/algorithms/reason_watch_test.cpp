// Zero rewards of a broken set-up, watched over a run (algorithms/reason_watch.hpp).
#include "algorithms/reason_watch.hpp"

#include <gtest/gtest.h>

namespace adarl {
namespace {

using counts = std::vector<std::pair<std::string, uint32_t>>;

TEST(ReasonWatchTest, AlarmsOnceWhenAWatchedReasonPassesTheShare) {
  reason_watch w({/*share=*/0.05, /*min_samples=*/32, {"bad_reference", "bad_tests"}});
  // 2 of 40: 5%, not above.
  EXPECT_TRUE(w.add({{"wrong", 20}, {"bad_reference", 2}}, 40).empty());
  // 5 of 80 = 6.25%: above, once.
  auto fired = w.add({{"bad_reference", 3}}, 40);
  ASSERT_EQ(fired.size(), 1u);
  EXPECT_EQ(fired[0].reason, "bad_reference");
  EXPECT_EQ(fired[0].count, 5u);
  EXPECT_EQ(fired[0].samples, 80u);
  EXPECT_DOUBLE_EQ(fired[0].share(), 0.0625);
  EXPECT_TRUE(w.add({{"bad_reference", 3}}, 40).empty());  // still above: no second alarm
  ASSERT_EQ(w.over().size(), 1u);
  EXPECT_EQ(w.over()[0].count, 8u);
}

TEST(ReasonWatchTest, WrongAnswersAreNotAlarmsAndSmallCountsWait) {
  reason_watch w({/*share=*/0.05, /*min_samples=*/32, {"bad_reference"}});
  EXPECT_TRUE(w.add({{"wrong", 16}, {"no_answer", 15}}, 16).empty());
  // Every one of 16 samples is bad_reference, but 16 < min_samples: no verdict yet.
  reason_watch v({/*share=*/0.05, /*min_samples=*/32, {"bad_reference"}});
  EXPECT_TRUE(v.add({{"bad_reference", 16}}, 16).empty());
  EXPECT_EQ(v.add({{"bad_reference", 16}}, 16).size(), 1u);
}

TEST(ReasonWatchTest, AReasonThatFallsBackBelowMayAlarmAgain) {
  reason_watch w({/*share=*/0.1, /*min_samples=*/1, {"bad_tests"}});
  EXPECT_EQ(w.add({{"bad_tests", 5}}, 10).size(), 1u);
  EXPECT_TRUE(w.add({}, 90).empty());  // 5 of 100: below again
  EXPECT_TRUE(w.over().empty());
  EXPECT_EQ(w.add({{"bad_tests", 50}}, 10).size(), 1u);
}

}  // namespace
}  // namespace adarl
