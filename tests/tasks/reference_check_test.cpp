#include "tasks/reference_check.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>

#include "tasks/dataset.hpp"
#include "tasks/python_verifier.hpp"

namespace adarl {
namespace {

task_item item(std::string id, std::string verifier, std::string answer, std::string tests = "") {
  task_item t;
  t.id = std::move(id);
  t.prompt = "p";
  t.verifier = std::move(verifier);
  t.answer = std::move(answer);
  t.tests = std::move(tests);
  return t;
}

const std::string kPythonTests = R"({"cases": [{"input": "1\n", "output": "2"}]})";

TEST(ReferenceCheckTest, FindsEveryUnusableReferenceInOrder) {
  const auto registry = verifier_registry::with_builtins();
  const std::vector<task_item> items = {
      item("ok-math", "math", "\\frac{1}{2}"),
      item("solution", "math", "First add 2 and 3, then double the sum to get ten."),
      item("ok-py", "python", "", kPythonTests),
      item("pairs", "python", "", R"({"cases": [[1, 2]]})"),
      item("ok-expr", "expr", "", R"({"cases": [[1, 2]]})"),
      item("strings", "expr", "", R"({"cases": [{"input": "1", "output": "2"}]})"),
      item("bad-regex", "regex", "(a"),
      item("ok-general", "general", ""),
      item("unknown", "mth", "1"),
  };
  const auto found = find_unusable_references(items, registry);
  ASSERT_EQ(found.size(), 5u);
  EXPECT_EQ(found[0].index, 1u);
  EXPECT_NE(found[0].why.find("reads as prose"), std::string::npos) << found[0].why;
  EXPECT_EQ(found[1].index, 3u);
  EXPECT_NE(found[1].why.find("cases format"), std::string::npos) << found[1].why;
  EXPECT_EQ(found[2].index, 5u);
  EXPECT_EQ(found[3].index, 6u);
  EXPECT_EQ(found[4].index, 8u);
  EXPECT_NE(found[4].why.find("unknown verifier \"mth\""), std::string::npos);
}

TEST(ReferenceCheckTest, DescribesProblemsWithFileLineIdAndVerifier) {
  const std::vector<task_item> items = {item("a", "math", "1"), item("b", "python", "", "[]")};
  const std::vector<unusable_reference> found = {{1, "its tests are wrong"}};
  EXPECT_EQ(describe_unusable(found, items, "d.jsonl", {3, 7}),
            "d.jsonl:7: id \"b\": verifier \"python\": its tests are wrong");
  EXPECT_EQ(describe_unusable(found, items, "d.jsonl", {}),
            "d.jsonl: item 2: id \"b\": verifier \"python\": its tests are wrong");
}

TEST(ReferenceCheckTest, StopsListingAfterTheDatasetErrorLimit) {
  std::vector<task_item> items;
  std::vector<unusable_reference> found;
  for (size_t i = 0; i < max_dataset_errors + 5; ++i) {
    items.push_back(item("i" + std::to_string(i), "math", ""));
    found.push_back({i, "empty"});
  }
  const std::string text = describe_unusable(found, items, "d.jsonl", {});
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), static_cast<long>(max_dataset_errors));
  EXPECT_NE(text.find("5 more items with unusable references"), std::string::npos);
}

TEST(ReferenceCheckTest, LoadCheckedDatasetNamesTheLine) {
  const std::string path = ::testing::TempDir() + "/reference_check_test.jsonl";
  {
    std::ofstream out(path);
    out << R"({"id":"q1","prompt":"p","answer":"42","task":"math","verifier":"math"})" << "\n\n"
        << R"({"id":"q2","prompt":"p","answer":"","task":"code","verifier":"python","tests":{"cases":[[1,2]]}})"
        << "\n";
  }
  const auto registry = verifier_registry::with_builtins();
  const auto loaded = load_checked_dataset(path, registry);
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.err().message.rfind(path + ":3: id \"q2\": verifier \"python\": ", 0), 0u)
      << loaded.err().message;
  {
    std::ofstream out(path);
    out << R"({"id":"q1","prompt":"p","answer":"The answer is \\boxed{4}","task":"math","verifier":"math"})"
        << "\n";
  }
  const auto good = load_checked_dataset(path, registry);
  ASSERT_TRUE(good.ok()) << good.err().message;
  EXPECT_EQ(good->size(), 1u);
  std::remove(path.c_str());
}

TEST(ReferenceCheckTest, PythonTestsFormatIsTheCasesObject) {
  const python_verifier v;
  EXPECT_EQ(v.check_reference(item("a", "python", "", kPythonTests)), "");
  EXPECT_EQ(v.check_reference(item("a", "python", "", R"({"cases": [{"output": "x"}]})")), "");
  for (const char* bad : {"", "[]", R"({"cases": []})", R"({"cases": [{"input": "1"}]})",
                          R"({"cases": [{"input": 1, "output": "2"}]})", "not json"}) {
    EXPECT_NE(v.check_reference(item("a", "python", "", bad)), "") << bad;
  }
}

}  // namespace
}  // namespace adarl
