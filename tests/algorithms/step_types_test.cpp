// Shared step types: exit names and the zero-gradient test of a finished group.
#include "algorithms/step_types.hpp"

#include <gtest/gtest.h>

namespace adarl {
namespace {

TEST(StepTypesTest, ExitNames) {
  EXPECT_EQ(exit_name(exit_kind::pos), "pos");
  EXPECT_EQ(exit_name(exit_kind::balance), "balance");
  EXPECT_EQ(exit_name(exit_kind::fallback_missing_positives), "fallback");
  EXPECT_EQ(exit_name(exit_kind::fallback_missing_negatives), "fallback");
  EXPECT_EQ(exit_name(exit_kind::uniform), "uniform");
  EXPECT_EQ(exit_name(exit_kind::allocated), "allocated");
  EXPECT_EQ(exit_name(exit_kind::dropped), "dropped");
}

TEST(StepTypesTest, IsFallbackOnlyForTheTwoFallbackKinds) {
  EXPECT_TRUE(is_fallback(exit_kind::fallback_missing_positives));
  EXPECT_TRUE(is_fallback(exit_kind::fallback_missing_negatives));
  for (auto e : {exit_kind::pos, exit_kind::balance, exit_kind::uniform,
                 exit_kind::allocated, exit_kind::dropped})
    EXPECT_FALSE(is_fallback(e)) << exit_name(e);
}

TEST(StepTypesTest, ZeroGradientWhenAllAdvantagesAreEqual) {
  finished_group g;
  EXPECT_TRUE(g.zero_gradient());  // no samples, no signal
  g.advantages = {0.f, 0.f, 0.f};
  EXPECT_TRUE(g.zero_gradient());
  g.advantages = {-0.1f, -0.1f, -0.1f};  // equal but not zero: still no signal
  EXPECT_TRUE(g.zero_gradient());
  g.advantages = {0.f, 0.f, 1e-4f};
  EXPECT_FALSE(g.zero_gradient());
}

TEST(StepTypesTest, OnlyDroppedGroupsAreNotTrainable) {
  finished_group g;
  for (auto e :
       {exit_kind::pos, exit_kind::balance, exit_kind::fallback_missing_positives,
        exit_kind::fallback_missing_negatives, exit_kind::uniform,
        exit_kind::allocated}) {
    g.exit = e;
    EXPECT_TRUE(g.trainable()) << exit_name(e);
  }
  g.exit = exit_kind::dropped;
  EXPECT_FALSE(g.trainable());
}

TEST(StepTypesTest, DecisionsClearResetsEverything) {
  decisions d;
  d.requests.push_back({1, 2, 3});
  d.finished.emplace_back();
  d.prompts_wanted = 2;
  d.step_done = true;
  d.clear();
  EXPECT_TRUE(d.requests.empty());
  EXPECT_TRUE(d.finished.empty());
  EXPECT_EQ(d.prompts_wanted, 0u);
  EXPECT_FALSE(d.step_done);
}

}  // namespace
}  // namespace adarl
