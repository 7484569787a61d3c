#include "tasks/dataset.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "base/jsonl_text.hpp"
#include "tasks/general_suite.hpp"
#include "tasks/general_verifier.hpp"

namespace adarl {
namespace {

const std::string data_dir = ADARL_TEST_DATA;

/// A registry with the two general verifiers (independent of the other built-ins).
verifier_registry general_registry() {
  verifier_registry r;
  r.add(std::make_unique<general_verifier>());
  r.add(std::make_unique<general_verifier>(general_verifier_config{
      .name = "general_ci", .trim = true, .fold_case = true, .after_marker = false}));
  return r;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

void expect_same(const task_item& a, const task_item& b) {
  EXPECT_EQ(a.id, b.id);
  EXPECT_EQ(a.prompt, b.prompt);
  EXPECT_EQ(a.answer, b.answer);
  EXPECT_EQ(a.task, b.task);
  EXPECT_EQ(a.verifier, b.verifier);
  EXPECT_EQ(a.tests, b.tests);
  EXPECT_EQ(a.difficulty, b.difficulty);
  EXPECT_EQ(a.solution, b.solution);
}

/// A fresh scratch directory per test.
class DatasetTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("adarl_dataset_test_" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
};

TEST_F(DatasetTest, LoadsEveryFieldAndSkipsEmptyLines) {
  const auto registry = general_registry();
  const auto items = load_dataset(data_dir + "/tasks_good.jsonl", &registry);
  ASSERT_TRUE(items.ok()) << items.err().message;
  ASSERT_EQ(items->size(), 5u);
  const auto& g1 = (*items)[0];
  EXPECT_EQ(g1.id, "g1");
  EXPECT_EQ(g1.prompt, "reverse: abc");
  EXPECT_EQ(g1.answer, "cba");
  EXPECT_EQ(g1.task, "general");
  EXPECT_EQ(g1.verifier, "general");
  EXPECT_EQ(g1.tests, "");
  EXPECT_EQ(g1.difficulty, 1u);
  EXPECT_EQ((*items)[1].difficulty, 0u);  // absent
  EXPECT_EQ((*items)[2].verifier, "general_ci");
  EXPECT_EQ((*items)[2].tests, R"({"cases":[[1,2],[5,6]]})");  // re-serialized compactly
  EXPECT_EQ((*items)[2].difficulty, 5u);
  EXPECT_EQ((*items)[3].tests, R"([1,"two"])");
  EXPECT_EQ((*items)[3].difficulty, 0u);   // null counts as absent
  EXPECT_EQ((*items)[4].tests, "[1, 2]");  // a string is kept verbatim
  EXPECT_EQ((*items)[4].task, "");
}

TEST_F(DatasetTest, ReportsEveryBadFieldWithItsLine) {
  const std::string path = data_dir + "/tasks_bad_fields.jsonl";
  const auto items = load_dataset(path);
  ASSERT_FALSE(items.ok());
  const auto got = lines_of(items.err().message);
  ASSERT_EQ(got.size(), 10u) << items.err().message;
  const std::vector<std::string> want = {
      path + ":2: field \"prompt\": expected a string, got 5",
      path + ":3: field \"prompt\": missing",
      path + ":3: field \"difficulty\": expected an integer from 1 to 5, got 7",
      path + ":4: field \"id\": expected a non-empty string",
      path + ":4: field \"answer\": expected a string, got [\"x\"]",
      path + ":4: field \"verifier\": expected a non-empty string",
      "",  // line 5: checked below, the parser's wording may vary
      path + ":6: expected a JSON object, got array",
      path + ":8: field \"tests\": expected a string, object or array, got 3",
      path + ":8: field \"difficulty\": expected an integer from 1 to 5, got 2.5"};
  for (size_t i = 0; i < want.size(); ++i)
    if (!want[i].empty()) {
      EXPECT_EQ(got[i], want[i]);
    }
  EXPECT_EQ(got[6].rfind(path + ":5: not valid JSON (", 0), 0u) << got[6];
}

TEST_F(DatasetTest, DuplicateIdNamesBothLines) {
  const std::string path = data_dir + "/tasks_bad_duplicate.jsonl";
  const auto items = load_dataset(path);
  ASSERT_FALSE(items.ok());
  EXPECT_EQ(items.err().message, path + ":3: id \"d1\": duplicate (first on line 1)");
}

TEST_F(DatasetTest, UnknownVerifierListsTheKnownOnes) {
  const std::string path = data_dir + "/tasks_bad_verifier.jsonl";
  const auto registry = general_registry();
  const auto items = load_dataset(path, &registry);
  ASSERT_FALSE(items.ok());
  EXPECT_EQ(items.err().message,
            path +
                ":2: field \"verifier\": unknown verifier \"mth\" (known: general, "
                "general_ci)");
  // Without a registry the name is not checked.
  const auto unchecked = load_dataset(path);
  ASSERT_TRUE(unchecked.ok()) << unchecked.err().message;
  EXPECT_EQ((*unchecked)[1].verifier, "mth");
}

// Found with tests/fuzz/fuzz_dataset: a verifier name holding a newline (written "\n" in
// the JSON) broke the message across lines, one of which did not name the file.
TEST_F(DatasetTest, UnknownVerifierNameIsQuotedOnOneLine) {
  const auto registry = general_registry();
  std::istringstream in(R"({"id": "a", "prompt": "p", "answer": "", "task": "t", )"
                        R"("verifier": "gen\neral\""})");
  const auto items = load_dataset(in, "d.jsonl", &registry);
  ASSERT_FALSE(items.ok());
  EXPECT_EQ(items.err().message,
            R"(d.jsonl:1: field "verifier": unknown verifier "gen\neral\"" (known: general, )"
            R"(general_ci))");
}

TEST_F(DatasetTest, StopsAfterTwentyProblems) {
  std::string text;
  for (int i = 0; i < 30; ++i) text += "{\"id\": \"x" + std::to_string(i) + "\"}\n";
  std::istringstream in(text);
  const auto items = load_dataset(in, "many.jsonl");
  ASSERT_FALSE(items.ok());
  const auto got = lines_of(items.err().message);
  ASSERT_EQ(got.size(), max_dataset_errors + 1);
  EXPECT_EQ(got[0], "many.jsonl:1: field \"prompt\": missing");
  EXPECT_EQ(got[3], "many.jsonl:1: field \"verifier\": missing");
  EXPECT_EQ(got[4], "many.jsonl:2: field \"prompt\": missing");
  EXPECT_EQ(got.back(), "many.jsonl: stopped after 20 problems");
}

// Found with tests/fuzz/fuzz_dataset: nlohmann parses any nesting, but re-serializing
// "tests" (or printing a value for a message) recursed once per level and overflowed
// the stack.
TEST_F(DatasetTest, LineNestedDeeperThanTheLimitIsAProblemOfItsLine) {
  const std::string fields =
      R"("prompt": "p", "answer": "", "task": "t", "verifier": "general")";
  const std::string good = R"({"id": "a", )" + fields + "}";
  const std::string deep = R"({"id": "b", )" + fields + R"(, "tests": )" +
                           std::string(100000, '[') + std::string(100000, ']') + "}";
  std::istringstream in(good + "\n" + deep + "\n");
  const auto got = load_dataset(in, "d.jsonl");
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.err().message,
            "d.jsonl:2: not valid JSON (nested deeper than 100 levels)");
  // 100 levels (the line's object and 99 arrays) load; brackets in strings do not count.
  const std::string nested = std::string(99, '[') + std::string(99, ']');
  std::istringstream at_limit(R"({"id": "{{", )" + fields + R"(, "tests": )" + nested +
                              "}");
  const auto loaded = load_dataset(at_limit, "d.jsonl");
  ASSERT_TRUE(loaded.ok()) << loaded.err().message;
  EXPECT_EQ(loaded->front().tests, nested);
  EXPECT_EQ(json_depth(R"({"a": "[{", "b": [[1], {"c": "\"]"}]})"), 3u);
  EXPECT_EQ(json_depth("42"), 0u);
}

TEST_F(DatasetTest, EmptyAndMissingFilesAreErrors) {
  std::istringstream empty("\n  \n");
  const auto none = load_dataset(empty, "empty.jsonl");
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.err().message, "empty.jsonl: no items (the file is empty)");
  const std::string missing = (dir_ / "missing.jsonl").string();
  const auto absent = load_dataset(missing);
  ASSERT_FALSE(absent.ok());
  EXPECT_EQ(absent.err().message, missing + ": cannot open the file");
}

TEST_F(DatasetTest, ToJsonlWritesTheFieldsInOrder) {
  task_item item{"i\"1", "line\none", "42", "math", "math", "", 0};
  EXPECT_EQ(
      to_jsonl(item),
      R"({"id":"i\"1","prompt":"line\none","answer":"42","task":"math","verifier":"math"})");
  item.tests = R"({"cases":[]})";
  item.difficulty = 3;
  EXPECT_EQ(
      to_jsonl(item),
      R"({"id":"i\"1","prompt":"line\none","answer":"42","task":"math","verifier":"math",)"
      R"("tests":"{\"cases\":[]}","difficulty":3})");
  item.tests.clear();
  item.solution = "1+1=2 #### 2";  // the worked solution, last (optional)
  EXPECT_EQ(
      to_jsonl(item),
      R"({"id":"i\"1","prompt":"line\none","answer":"42","task":"math","verifier":"math",)"
      R"("difficulty":3,"solution":"1+1=2 #### 2"})");
}

TEST_F(DatasetTest, WriteThenLoadGivesTheSameItems) {
  suite_request req;
  req.seed = 9;
  req.count = 50;
  auto items = generate_general(req);
  items.push_back({"odd", "tab\there \"quoted\" \\ and caf\xc3\xa9 \xe2\x9c\x93", "a\nb",
                   "code", "python", R"({"cases":[["1","2"]]})", 4});
  items.back().solution = "a worked\nsolution #### a\nb";
  const std::string path = (dir_ / "out.jsonl").string();
  const auto written = write_dataset(path, items);
  ASSERT_TRUE(written.ok()) << written.err().message;
  EXPECT_EQ(*written, items.size());
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
  const auto loaded = load_dataset(path);
  ASSERT_TRUE(loaded.ok()) << loaded.err().message;
  ASSERT_EQ(loaded->size(), items.size());
  for (size_t i = 0; i < items.size(); ++i) expect_same((*loaded)[i], items[i]);
}

TEST_F(DatasetTest, WriteIntoAMissingDirectoryFailsAndLeavesNothing) {
  const std::string path = (dir_ / "no" / "such" / "out.jsonl").string();
  const auto written =
      write_dataset(path, {task_item{"a", "p", "x", "t", "general", "", 0}});
  ASSERT_FALSE(written.ok());
  EXPECT_EQ(written.err().message.rfind(path + ": cannot create " + path + ".tmp", 0), 0u)
      << written.err().message;
  EXPECT_NE(written.err().message.find("No such file or directory"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
}

}  // namespace
}  // namespace adarl
