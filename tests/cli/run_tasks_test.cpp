#include "cli/run_tasks.hpp"

#include <gtest/gtest.h>

#include <set>

namespace adarl {
namespace {

pipeline_config small_config() {
  pipeline_config c;
  c.tasks.suite = "mixed";
  c.tasks.train = 40;
  c.tasks.held_out = 10;
  return c;
}

TEST(RunTasksTest, SuitePromptsAreSplitAndNeverShared) {
  auto t = load_run_prompts(small_config());
  ASSERT_TRUE(t) << t.err().message;
  EXPECT_EQ((*t)->train, 40u);
  EXPECT_EQ((*t)->held_out(), 10u);
  std::set<std::string> train_prompts;
  for (uint32_t i = 0; i < (*t)->train; ++i) train_prompts.insert((*t)->rows[i].item.prompt);
  for (uint32_t i = (*t)->train; i < (*t)->rows.size(); ++i)
    EXPECT_FALSE(train_prompts.count((*t)->rows[i].item.prompt)) << (*t)->rows[i].item.id;
  const auto& first = (*t)->rows[0].tokens;
  EXPECT_EQ(first.front(), tokenizer::bos);
  EXPECT_EQ(first.back(), tokenizer::sep);
}

TEST(RunTasksTest, DatasetIsSplitByAKeyedShuffle) {
  auto c = small_config();
  c.tasks.dataset = std::string(ADARL_TEST_DATA) + "/tasks_good.jsonl";
  c.tasks.held_out = 2;
  auto t = load_run_prompts(c);
  ASSERT_TRUE(t) << t.err().message;
  EXPECT_EQ((*t)->held_out(), 2u);
  EXPECT_EQ((*t)->train, 3u);  // 5 items in the file
  auto again = load_run_prompts(c);
  for (size_t i = 0; i < (*t)->rows.size(); ++i)
    EXPECT_EQ((*t)->rows[i].item.id, (*again)->rows[i].item.id);
}

// Every seed of a comparison is evaluated on the same held-out prompts, while the
// training prompts follow the seed.
TEST(RunTasksTest, HeldOutPromptsDoNotDependOnTheSeed) {
  for (const bool dataset : {false, true}) {
    auto a = small_config(), b = small_config();
    if (dataset) {
      a.tasks.dataset = b.tasks.dataset = std::string(ADARL_TEST_DATA) + "/tasks_good.jsonl";
      a.tasks.held_out = b.tasks.held_out = 2;
    }
    a.seed = 1;
    b.seed = 7;
    auto ta = load_run_prompts(a), tb = load_run_prompts(b);
    ASSERT_TRUE(ta && tb);
    ASSERT_EQ((*ta)->held_out(), (*tb)->held_out());
    for (uint32_t h = 0; h < (*ta)->held_out(); ++h)
      EXPECT_EQ((*ta)->rows[(*ta)->train + h].item.prompt,
                (*tb)->rows[(*tb)->train + h].item.prompt)
          << (dataset ? "dataset " : "suite ") << h;
    if (!dataset) {
      bool same_train = true;
      for (uint32_t i = 0; i < (*ta)->train; ++i)
        same_train = same_train && (*ta)->rows[i].item.prompt == (*tb)->rows[i].item.prompt;
      EXPECT_FALSE(same_train) << "training prompts should follow the seed";
    }
  }
}

TEST(RunTasksTest, PromptLongerThanTheModelIsAnErrorNamingIt) {
  auto c = small_config();
  c.policy.model.max_len = 12;
  auto t = load_run_prompts(c);
  ASSERT_FALSE(t);
  EXPECT_NE(t.err().message.find("model.max_len 12"), std::string::npos) << t.err().message;
  EXPECT_NE(t.err().message.find("task \""), std::string::npos);
}

TEST(RunTasksTest, SftCacheKeyFollowsWhatTheWarmStartDependsOn) {
  auto a = small_config(), b = small_config();
  EXPECT_EQ(sft_cache_key(a), sft_cache_key(b));
  b.policy.sft_steps = 7;
  EXPECT_NE(sft_cache_key(a), sft_cache_key(b));
  b = a;
  b.tracker.steps = 99;  // RL settings do not change the base policy
  EXPECT_EQ(sft_cache_key(a), sft_cache_key(b));
  b.policy.model.d_model = 64;
  EXPECT_NE(sft_cache_key(a), sft_cache_key(b));
}

}  // namespace
}  // namespace adarl
