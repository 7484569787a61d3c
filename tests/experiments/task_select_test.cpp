// The pure part of the prompt selection: the window's bounds, the histogram, the cache
// key and the cache files.
#include "experiments/task_select.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "experiments/run_tasks.hpp"
#include "tasks/dataset.hpp"

namespace adarl {
namespace {

task_item item(const std::string& id) {
  task_item t;
  t.id = id;
  t.prompt = "reverse: " + id;
  t.answer = id;
  t.task = "general";
  t.verifier = "general";
  return t;
}

TEST(TaskSelectTest, DefaultWindowKeepsOneToFiveOfSixteen) {
  const select_window w;  // k 16, 1..5: pass rate in (0, 0.3125]
  EXPECT_FALSE(in_window(0, w));
  EXPECT_TRUE(in_window(1, w));
  EXPECT_TRUE(in_window(5, w));
  EXPECT_FALSE(in_window(6, w));
  EXPECT_FALSE(in_window(16, w));
  const select_window hard{16, 1, 2};
  EXPECT_TRUE(in_window(2, hard));
  EXPECT_FALSE(in_window(3, hard));
}

TEST(TaskSelectTest, CorrectCountsComeFromTheMeanReward) {
  EXPECT_EQ(correct_of(0.0, 16), 0u);
  EXPECT_EQ(correct_of(5.0 / 16, 16), 5u);
  EXPECT_EQ(correct_of(0.3125f, 16), 5u);  // as the evaluator's float
  EXPECT_EQ(correct_of(6.0 / 16 - 1e-7, 16), 6u);
  EXPECT_EQ(correct_of(1.0, 16), 16u);
  EXPECT_EQ(correct_of(1.5, 16), 16u);  // clamped
}

TEST(TaskSelectTest, BadWindowsNameTheFlag) {
  EXPECT_EQ(check_window({16, 1, 5}), "");
  EXPECT_NE(check_window({16, 1, 17}).find("--max-correct"), std::string::npos);
  EXPECT_NE(check_window({16, 6, 5}).find("--min-correct"), std::string::npos);
  EXPECT_NE(check_window({0, 0, 0}).find("--k"), std::string::npos);
}

TEST(TaskSelectTest, HistogramCountsPromptsPerNumberCorrect) {
  const std::vector<uint32_t> correct{0, 0, 3, 1, 5, 6, 16, 0, 3};
  const auto h = pass_histogram(correct, 16);
  ASSERT_EQ(h.size(), 17u);
  EXPECT_EQ(h[0], 3u);
  EXPECT_EQ(h[1], 1u);
  EXPECT_EQ(h[3], 2u);
  EXPECT_EQ(h[5], 1u);
  EXPECT_EQ(h[6], 1u);
  EXPECT_EQ(h[16], 1u);
  const auto text = histogram_text(h, select_window{});
  EXPECT_NE(text.find("kept 4 of 9 prompts (1 to 5 of 16 right)"), std::string::npos) << text;
  EXPECT_NE(text.find("  3/16 "), std::string::npos) << text;
}

TEST(TaskSelectTest, SelectionKeepsTheWindowInPoolOrder) {
  std::vector<task_item> pool;
  for (int i = 0; i < 6; ++i) pool.push_back(item("p" + std::to_string(i)));
  const std::vector<uint32_t> correct{0, 1, 5, 6, 2, 16};
  const auto s = select_in_window(pool, correct, select_window{});
  EXPECT_EQ(s.pool, 6u);
  ASSERT_EQ(s.kept.size(), 3u);
  EXPECT_EQ(s.kept[0].item.id, "p1");
  EXPECT_EQ(s.kept[1].item.id, "p2");
  EXPECT_EQ(s.kept[2].item.id, "p4");
  EXPECT_EQ(s.kept[2].correct, 2u);
  EXPECT_EQ(s.histogram[0], 1u);
  const auto two = select_in_window(pool, correct, select_window{}, /*limit=*/2);
  ASSERT_EQ(two.kept.size(), 2u);
  EXPECT_EQ(two.kept[1].item.id, "p2");
  EXPECT_EQ(two.histogram, s.histogram);  // the whole pool either way
}

TEST(TaskSelectTest, CacheKeyChangesWithEachInput) {
  const select_pool pool{"general", "train", 1, 2000, {1, 1, 1, 0, 0}, "1 1 32"};
  const select_window w;
  const auto key = select_cache_key("policy-a", pool, w);
  EXPECT_EQ(key.size(), 16u);
  EXPECT_EQ(key, select_cache_key("policy-a", pool, w));
  EXPECT_NE(key, select_cache_key("policy-b", pool, w));
  auto p = pool;
  p.split = "held-out";
  EXPECT_NE(key, select_cache_key("policy-a", p, w));
  p = pool;
  p.count = 1999;
  EXPECT_NE(key, select_cache_key("policy-a", p, w));
  p = pool;
  p.seed = 2;
  EXPECT_NE(key, select_cache_key("policy-a", p, w));
  p = pool;
  p.sampling = "0.7 1 32";
  EXPECT_NE(key, select_cache_key("policy-a", p, w));
  // Same file, same counts, other items (an edit, other tasks.fields or template).
  p = pool;
  p.items = items_hash({{"q1", "Q: 1+1=", "2", "", "math", "", 0}});
  EXPECT_NE(key, select_cache_key("policy-a", p, w));
  auto q = p;
  q.items = items_hash({{"q1", "1+1=", "2", "", "math", "", 0}});
  EXPECT_NE(select_cache_key("policy-a", q, w), select_cache_key("policy-a", p, w));
  EXPECT_NE(key, select_cache_key("policy-a", pool, select_window{8, 1, 5}));
  EXPECT_NE(key, select_cache_key("policy-a", pool, select_window{16, 1, 2}));
  EXPECT_NE(key, select_cache_key("policy-a", pool, select_window{16, 0, 5}));
}

TEST(TaskSelectTest, SelectedLinesLoadAsADatasetWithTheirPassRate) {
  const std::string dir = testing::TempDir() + "adarl_select_cache";
  std::filesystem::remove_all(dir);
  std::vector<task_item> pool{item("a"), item("b"), item("c")};
  const std::vector<uint32_t> correct{3, 0, 5};
  const auto s = select_in_window(pool, correct, select_window{});
  ASSERT_TRUE(write_selection_cache(dir, s));
  auto items = load_dataset(dir + "/selected.jsonl");
  ASSERT_TRUE(items) << items.err().message;
  ASSERT_EQ(items->size(), 2u);
  EXPECT_EQ((*items)[1].id, "c");
  std::ifstream f(dir + "/selected.jsonl");
  std::string first;
  std::getline(f, first);
  const auto j = nlohmann::json::parse(first);
  EXPECT_DOUBLE_EQ(j.at("pass_rate").get<double>(), 3.0 / 16);
  EXPECT_EQ(j.at("correct").get<int>(), 3);
  EXPECT_EQ(j.at("samples").get<int>(), 16);
  auto back = read_selection_cache(dir);
  ASSERT_TRUE(back) << back.err().message;
  EXPECT_EQ(back->histogram, s.histogram);
  ASSERT_EQ(back->kept.size(), 2u);
  EXPECT_EQ(back->kept[1].correct, 5u);
  EXPECT_EQ(back->pool, 3u);
  EXPECT_FALSE(std::filesystem::exists(dir + "/selected.jsonl.tmp"));
  // A torn entry (fewer lines than selection.json says) is an error naming the file.
  std::ofstream(dir + "/selected.jsonl") << selected_jsonl(s.kept[0], 16) << "\n";
  auto torn = read_selection_cache(dir);
  ASSERT_FALSE(torn);
  EXPECT_NE(torn.err().message.find("selected.jsonl"), std::string::npos) << torn.err().message;
}

}  // namespace
}  // namespace adarl
