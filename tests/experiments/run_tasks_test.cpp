#include "experiments/run_tasks.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "tokenizers/tokenizer.hpp"

namespace adarl {
namespace {

pipeline_config small_config() {
  pipeline_config c;
  c.tasks.suite = "mixed";
  c.tasks.train = 40;
  c.tasks.held_out = 10;
  c.tracker.prompts_per_step = 2;  // the small datasets below have 3 training items
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

/// A dataset of `n` items with made-up answers, written to a fresh temporary file.
std::string answer_dataset(uint32_t n) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("adarl-run-tasks-" + std::to_string(::getpid()) + ".jsonl");
  std::ofstream f(path);
  for (uint32_t i = 0; i < n; ++i)
    f << R"({"id": "q)" << i << R"(", "prompt": "word )" << i << R"(", "answer": "a)" << i
      << R"(", "task": "general", "verifier": "general"})" << "\n";
  return path.string();
}

std::set<std::string> ids_of(const std::vector<task_item>& items) {
  std::set<std::string> out;
  for (const auto& i : items) out.insert(i.id);
  return out;
}

// The warm start and the selection pools are the run's other consumers of a dataset:
// none of them may see an item the run evaluates on (issue: SFT trained on the whole
// file, so held-out greedy accuracy was 1.000 at version 0).
TEST(RunTasksTest, NoHeldOutItemOfADatasetReachesTheWarmStartOrATrainingPool) {
  auto c = small_config();
  c.tasks.dataset = answer_dataset(40);
  c.tasks.train = 40;
  c.tasks.held_out = 20;
  auto run = load_run_items(c, c.tasks.train, c.tasks.held_out);
  ASSERT_TRUE(run) << run.err().message;
  ASSERT_EQ(run->held_out.size(), 20u);
  const auto held = ids_of(run->held_out);
  auto sft = sft_items(c);
  ASSERT_TRUE(sft) << sft.err().message;
  EXPECT_EQ(sft->size(), 20u);  // every training item, nothing else
  for (const auto& id : ids_of(*sft)) EXPECT_FALSE(held.count(id)) << id << " reached SFT";
  // adarl tasks select asks for a big training pool and one held-out item (and the
  // other way round): the split point stays where the run puts it.
  auto pool = load_run_items(c, /*train_count=*/1000, /*held_out_count=*/1);
  ASSERT_TRUE(pool);
  EXPECT_EQ(pool->train.size(), 20u);
  for (const auto& id : ids_of(pool->train)) EXPECT_FALSE(held.count(id)) << id;
  auto held_pool = load_run_items(c, /*train_count=*/1, /*held_out_count=*/1000);
  ASSERT_TRUE(held_pool);
  EXPECT_EQ(ids_of(held_pool->held_out), held);
  // Pools smaller than asked are said, naming the key; full ones are not.
  const auto said = pool_shortfall(c, *pool, 1000, 1, "select.train", "select.held");
  ASSERT_EQ(said.size(), 1u);  // the held-out part is full: no line names select.held
  EXPECT_EQ(said[0], "select.train asks 1000 candidates; " + c.tasks.dataset +
                         " has 20 distinct training items");
  EXPECT_TRUE(pool_shortfall(c, *run, 40 - 20, 20, "a", "b").empty());
  std::filesystem::remove(c.tasks.dataset);
}

TEST(RunTasksTest, SuiteWarmStartItemsComeFromTheTrainSplit) {
  auto c = small_config();
  c.policy.sft_count = 200;
  auto sft = sft_items(c);
  ASSERT_TRUE(sft) << sft.err().message;
  EXPECT_EQ(sft->size(), 200u);
  auto run = load_run_items(c, c.tasks.train, /*held_out_count=*/500);
  ASSERT_TRUE(run);
  std::set<std::string> held;
  for (const auto& i : run->held_out) held.insert(i.prompt);
  for (const auto& i : *sft) EXPECT_FALSE(held.count(i.prompt)) << i.prompt;
}

TEST(RunTasksTest, MorePromptsPerStepThanTrainingItemsIsRefused) {
  auto c = small_config();
  c.tasks.dataset = std::string(ADARL_TEST_DATA) + "/tasks_good.jsonl";
  c.tasks.held_out = 2;  // 3 training items
  c.tracker.prompts_per_step = 4;
  auto t = load_run_prompts(c);
  ASSERT_FALSE(t);
  EXPECT_EQ(t.err().message,
            "tracker.prompts_per_step: 4 is more than the 3 training prompts (lower it, or give "
            "the run more items)");
  c.tracker.prompts_per_step = 3;
  EXPECT_TRUE(load_run_prompts(c));
}

TEST(RunTasksTest, PromptLongerThanTheModelIsAnErrorNamingIt) {
  auto c = small_config();
  c.policy.model.max_len = 12;
  auto t = load_run_prompts(c);
  ASSERT_FALSE(t);
  EXPECT_NE(t.err().message.find("model.max_len 12"), std::string::npos) << t.err().message;
  EXPECT_NE(t.err().message.find("task \""), std::string::npos);
}

// A dataset item too long for the model is named with its file and line, before any
// work: the prompt at validation, the SFT item before the warm start (issue: it exited 1
// late, naming only the id).
TEST(RunTasksTest, ItemsTooLongForTheModelNameTheDatasetFileAndLine) {
  auto c = small_config();
  const auto path = std::filesystem::temp_directory_path() /
                    ("adarl-run-tasks-long-" + std::to_string(::getpid()) + ".jsonl");
  {
    std::ofstream f(path);
    for (int i = 0; i < 6; ++i)
      f << R"({"id": "q)" << i << R"(", "prompt": "w)" << i << R"(", "answer": ")"
        << (i == 4 ? std::string(40, 'z') : "a") << R"(", "task": "general", "verifier": "general"})"
        << "\n";
    f << "\n" << R"({"id": "long", "prompt": ")" << std::string(60, 'p')
      << R"(", "answer": "a", "task": "general", "verifier": "general"})" << "\n";
  }
  c.tasks.dataset = path.string();
  c.tasks.held_out = 0;
  c.policy.model.max_len = 32;
  auto t = load_run_prompts(c);
  ASSERT_FALSE(t);
  EXPECT_NE(t.err().message.find(path.string() + ":8: task \"long\""), std::string::npos)
      << t.err().message;
  auto sft = check_sft_items(c);
  ASSERT_FALSE(sft);
  // Line 5 is the first too long for SFT (its 40-character answer); line 8's prompt too.
  EXPECT_NE(sft.err().message.find(":5: SFT item \"q4\""), std::string::npos)
      << sft.err().message;
  EXPECT_NE(sft.err().message.find("more than model.max_len 32"), std::string::npos);
  c.policy.model.max_len = 128;
  EXPECT_TRUE(check_sft_items(c));
  EXPECT_TRUE(load_run_prompts(c));
  c.policy.model.max_len = 32;
  c.policy.base_checkpoint = "some/checkpoint";  // no warm start: nothing to check
  EXPECT_TRUE(check_sft_items(c));
  std::filesystem::remove(path);
}

// Issue 38: a prompt the tokenizer cannot encode is refused naming the dataset's
// FILE:LINE and the column it came from, and every such prompt is listed (it named only
// the first, without its place).
TEST(RunTasksTest, PromptsTheTokenizerCannotEncodeAreAllNamedByFileLineAndColumn) {
  auto c = small_config();
  const auto path = std::filesystem::temp_directory_path() /
                    ("adarl-run-tasks-charset-" + std::to_string(::getpid()) + ".jsonl");
  {
    std::ofstream f(path);
    for (int i = 0; i < 6; ++i)
      f << R"({"id": "q)" << i << R"(", "question": "w)" << (i == 2 || i == 5 ? "\u2603" : "")
        << i << R"(", "answer": "a", "task": "general", "verifier": "general"})" << "\n";
  }
  c.tasks.dataset = path.string();
  c.tasks.held_out = 0;
  c.tasks.fields = {{"prompt", "question"}};
  auto t = load_run_prompts(c);
  ASSERT_FALSE(t);
  const auto& m = t.err().message;
  EXPECT_NE(m.find(path.string() + ":3: column \"question\" (mapped to prompt): task \"q2\""),
            std::string::npos) << m;
  EXPECT_NE(m.find(path.string() + ":6: column \"question\" (mapped to prompt): task \"q5\""),
            std::string::npos) << m;
  std::filesystem::remove(path);
}

TEST(RunTasksTest, SftCacheKeyFollowsWhatTheWarmStartDependsOn) {
  auto a = small_config(), b = small_config();
  const std::vector<task_item> items{{"q1", "1+1=", "2", "math", "math", "", 0}};
  const auto key = [&items](const pipeline_config& c) { return sft_cache_key(c, items); };
  EXPECT_EQ(key(a), key(b));
  b.policy.sft_steps = 7;
  EXPECT_NE(key(a), key(b));
  b = a;
  b.tracker.steps = 99;  // RL settings do not change the base policy
  EXPECT_EQ(key(a), key(b));
  b.policy.model.d_model = 64;
  EXPECT_NE(key(a), key(b));
  // A dataset's training items depend on its split point; a suite's do not.
  b = a;
  b.tasks.held_out = 11;
  EXPECT_EQ(key(a), key(b));
  a.tasks.dataset = b.tasks.dataset = "d.jsonl";
  EXPECT_NE(key(a), key(b));
}

TEST(RunTasksTest, SftCacheKeyChangesWhenTheItemsDoUnderTheSamePath) {
  // The same file edited (or read through other tasks.fields): the warm start's items
  // differ, so a cached warm start of the earlier items must not be reused.
  auto c = small_config();
  c.tasks.dataset = "d.jsonl";
  const std::vector<task_item> before{{"q1", "1+1=", "2", "math", "math", "", 0}};
  auto edited = before;
  EXPECT_EQ(sft_cache_key(c, before), sft_cache_key(c, edited));
  edited[0].answer = "3";
  EXPECT_NE(sft_cache_key(c, before), sft_cache_key(c, edited));
  edited = before;
  edited[0].prompt = "1+1 =";
  EXPECT_NE(sft_cache_key(c, before), sft_cache_key(c, edited));
  // Text moved between fields is a different item.
  const std::vector<task_item> moved{{"q1", "1+1=2", "", "math", "math", "", 0}};
  const std::vector<task_item> split{{"q1", "1+1=", "2", "math", "math", "", 0}};
  EXPECT_NE(sft_cache_key(c, moved), sft_cache_key(c, split));
}

// The reasoning suite's warm start trains on the worked solution, not the bare answer;
// a solution is part of what the warm start depends on.
TEST(RunTasksTest, TheWarmStartTrainsOnAWorkedSolutionWhereThereIsOne) {
  auto tok = tokenizer::from_charset(tokenizer::default_charset());
  ASSERT_TRUE(tok);
  task_item item{"r1", "sum: 7+5", "12", "reasoning", "math", "", 1};
  auto bare = sft_example_of(*tok, item, 64);
  ASSERT_TRUE(bare) << bare.err().message;
  EXPECT_EQ(tok->decode(bare->completion), "12");  // the end token decodes to nothing
  item.solution = "7+5=12 #### 12";
  auto worked = sft_example_of(*tok, item, 64);
  ASSERT_TRUE(worked) << worked.err().message;
  EXPECT_EQ(worked->prompt, bare->prompt);
  EXPECT_EQ(tok->decode(worked->completion), "7+5=12 #### 12");
  auto too_long = sft_example_of(*tok, item, 20);
  ASSERT_FALSE(too_long);
  EXPECT_NE(too_long.err().message.find("do not fit model.max_len 20"), std::string::npos);

  auto c = small_config();
  const std::vector<task_item> without{{"r1", "sum: 7+5", "12", "reasoning", "math", "", 1}};
  auto with = without;
  with[0].solution = "7+5=12 #### 12";
  EXPECT_NE(sft_cache_key(c, without), sft_cache_key(c, with));
  auto other = with;
  other[0].solution = "5+7=12 #### 12";
  EXPECT_NE(sft_cache_key(c, with), sft_cache_key(c, other));
}

}  // namespace
}  // namespace adarl
