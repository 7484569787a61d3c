#include "config/resume_check.hpp"

#include <gtest/gtest.h>

namespace adarl {
namespace {

TEST(ResumeCheckTest, StateKeysAreTheOnesThatGiveTheCheckpointItsMeaning) {
  for (const char* k : {"seed", "deterministic", "model.d_model", "model.sim.sd_logit",
                        "tasks.train", "strategy.round_size", "tracker.prompts_per_step",
                        "tracker.max_lag", "tracker.estimator.lambda"})
    EXPECT_TRUE(is_state_key(k)) << k;
  for (const char* k : {"tracker.steps", "eval.every", "learner.lr", "out", "model.device",
                        "actors.generators", "progress", "stall_seconds"})
    EXPECT_FALSE(is_state_key(k)) << k;
}

TEST(ResumeCheckTest, DifferencesListEveryChangedStateKeyOnce) {
  const std::map<std::string, std::string> saved = {
      {"seed", "1"}, {"strategy.round_size", "8"}, {"tracker.steps", "100"},
      {"strategy.exit", "balance"}, {"tasks.suite", "math"}};
  auto now = saved;
  EXPECT_TRUE(state_differences(saved, now).empty());
  now["tracker.steps"] = "200";  // may change
  EXPECT_TRUE(state_differences(saved, now).empty());
  now["strategy.round_size"] = "16";
  now["seed"] = "2";
  now.erase("strategy.exit");
  now["strategy.k_pos"] = "1";
  EXPECT_EQ(state_differences(saved, now),
            (std::vector<std::string>{"seed: \"1\" then, \"2\" now",
                                      "strategy.exit: \"balance\" then, absent now",
                                      "strategy.k_pos: absent then, \"1\" now",
                                      "strategy.round_size: \"8\" then, \"16\" now"}));
}

}  // namespace
}  // namespace adarl
