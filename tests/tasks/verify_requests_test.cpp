#include "tasks/verify_requests.hpp"

#include <gtest/gtest.h>

#include <sstream>

namespace adarl {
namespace {

TEST(VerifyRequestsTest, ReadsLinesWithDefaultsAndTests) {
  const auto registry = verifier_registry::with_builtins();
  std::istringstream in(
      "{\"answer\": \"1/2\", \"completion\": \"\\\\boxed{0.5}\"}\n"
      "\n"
      "{\"answer\": \"\", \"completion\": \"print(1)\", \"verifier\": \"python\", "
      "\"tests\": {\"cases\": [{\"output\": \"1\"}]}, \"id\": \"p1\", \"extra\": 3}\n");
  const auto got = read_verify_requests(in, "in.jsonl", registry);
  ASSERT_TRUE(got.ok()) << got.err().message;
  ASSERT_EQ(got->size(), 2u);
  EXPECT_EQ((*got)[0].item.verifier, "math");
  EXPECT_EQ((*got)[0].completion, "\\boxed{0.5}");
  EXPECT_EQ((*got)[0].line, 1u);
  EXPECT_EQ((*got)[1].line, 3u);
  EXPECT_EQ((*got)[1].item.id, "p1");
  EXPECT_EQ((*got)[1].item.tests, R"({"cases":[{"output":"1"}]})");
}

TEST(VerifyRequestsTest, EveryBadLineIsNamed) {
  const auto registry = verifier_registry::with_builtins();
  std::istringstream in(
      "{\"answer\": \"1\", \"completion\": 5}\n"
      "not json\n"
      "[1]\n"
      "{\"completion\": \"x\"}\n"
      "{\"answer\": \"1\", \"completion\": \"x\", \"verifier\": \"mth\"}\n");
  const auto got = read_verify_requests(in, "in.jsonl", registry);
  ASSERT_FALSE(got.ok());
  const std::string& m = got.err().message;
  EXPECT_NE(m.find("in.jsonl:1: field \"completion\": expected a string, got 5"), std::string::npos) << m;
  EXPECT_NE(m.find("in.jsonl:2: not valid JSON"), std::string::npos);
  EXPECT_NE(m.find("in.jsonl:3: expected a JSON object, got array"), std::string::npos);
  EXPECT_NE(m.find("in.jsonl:4: field \"answer\": missing"), std::string::npos);
  EXPECT_NE(m.find("in.jsonl:5: field \"verifier\": unknown verifier \"mth\""), std::string::npos);
  std::istringstream empty("\n\n");
  EXPECT_EQ(read_verify_requests(empty, "e.jsonl", registry).err().message,
            "e.jsonl: no lines to verify");
}

TEST(VerifyRequestsTest, CompletionsNameDatasetItems) {
  task_item a;
  a.id = "q1";
  a.answer = "7";
  a.verifier = "math";
  std::istringstream in("{\"id\": \"q1\", \"completion\": \"#### 7\"}\n"
                        "{\"id\": \"q1\", \"completion\": \"#### 8\"}\n"
                        "{\"id\": \"q9\", \"completion\": \"#### 8\"}\n");
  const auto bad = read_completions(in, "c.jsonl", {a});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.err().message, "c.jsonl:3: id \"q9\": not in the dataset");
  std::istringstream good("{\"id\": \"q1\", \"completion\": \"#### 7\"}\n"
                          "{\"id\": \"q1\", \"completion\": \"#### 8\"}\n");
  const auto got = read_completions(good, "c.jsonl", {a});
  ASSERT_TRUE(got.ok());
  ASSERT_EQ(got->size(), 2u);
  EXPECT_EQ((*got)[1].item.answer, "7");
  EXPECT_EQ((*got)[1].completion, "#### 8");
}

TEST(VerifyRequestsTest, VerdictLineHasRewardReasonAndId) {
  verify_request r;
  EXPECT_EQ(verdict_json(r, {1.f, ""}), R"({"reward":1.0,"reason":""})");
  r.item.id = "q1";
  EXPECT_EQ(verdict_json(r, {0.f, "wrong_value"}), R"({"id":"q1","reward":0.0,"reason":"wrong_value"})");
}

}  // namespace
}  // namespace adarl
