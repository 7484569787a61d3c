#include "tasks/suites.hpp"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "tasks/verifier_registry.hpp"

namespace adarl {
namespace {

const std::vector<std::string> built_in = {"math", "code", "general", "mixed", "reasoning"};

suite_request request(uint64_t seed, uint32_t count, split part = split::train) {
  suite_request req;
  req.seed = seed;
  req.count = count;
  req.part = part;
  return req;
}

std::vector<task_item> generate(const std::string& name, const suite_request& req) {
  auto items = generate_suite(name, req);
  EXPECT_TRUE(items.ok()) << name << ": " << items.err().message;
  return items.ok() ? *items : std::vector<task_item>{};
}

TEST(SuitesTest, KnownNamesAndUnknownSuiteError) {
  EXPECT_EQ(suite_names(),
            (std::vector<std::string>{"code", "general", "math", "mixed", "reasoning"}));
  const auto bad = generate_suite("maths", request(1, 10));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.err().message,
            "unknown suite \"maths\" (known: code, general, math, mixed, reasoning)");
}

TEST(SuitesTest, EverySuiteIsDeterministicInTheSeed) {
  for (const auto& name : built_in) {
    const auto a = generate(name, request(5, 60));
    const auto b = generate(name, request(5, 60));
    const auto c = generate(name, request(6, 60));
    ASSERT_EQ(a.size(), 60u) << name;
    ASSERT_EQ(b.size(), a.size()) << name;
    size_t same_as_c = 0;
    for (size_t i = 0; i < a.size(); ++i) {
      EXPECT_EQ(a[i].id, b[i].id) << name;
      EXPECT_EQ(a[i].prompt, b[i].prompt) << name;
      EXPECT_EQ(a[i].answer, b[i].answer) << name;
      EXPECT_EQ(a[i].tests, b[i].tests) << name;
      if (i < c.size()) same_as_c += a[i].prompt == c[i].prompt;
    }
    EXPECT_LT(same_as_c, a.size() / 2) << name << ": seed 6 should give other prompts";
  }
}

TEST(SuitesTest, TrainAndHeldOutNeverSharePrompts) {
  for (const auto& name : built_in) {
    const auto train = generate(name, request(1, 300, split::train));
    // A different seed for held-out: disjointness must not depend on using the same one.
    const auto held = generate(name, request(2, 100, split::held_out));
    ASSERT_FALSE(held.empty()) << name;
    std::set<std::string> prompts;
    for (const auto& item : train) prompts.insert(item.prompt);
    for (const auto& item : held) {
      EXPECT_EQ(prompts.count(item.prompt), 0u) << name << ": " << item.prompt;
      EXPECT_NE(item.id.find("-heldout-"), std::string::npos) << item.id;
    }
  }
}

TEST(SuitesTest, MixedIsAnEvenInterleavedMixWithUniqueIds) {
  const auto items = generate("mixed", request(3, 301));
  ASSERT_EQ(items.size(), 301u);
  std::map<std::string, int> per_task;
  std::set<std::string> ids;
  for (const auto& item : items) {
    ++per_task[item.task];
    EXPECT_TRUE(ids.insert(item.id).second) << "duplicate id " << item.id;
  }
  EXPECT_EQ(per_task,
            (std::map<std::string, int>{{"code", 100}, {"general", 100}, {"math", 101}}));
  EXPECT_EQ(items[0].task, "math");
  EXPECT_EQ(items[1].task, "code");
  EXPECT_EQ(items[2].task, "general");
  EXPECT_EQ(items[3].task, "math");
}

/// The completion that must score 1: a worked solution as written (reasoning), math
/// "#### answer", code the reference program, general the answer itself.
std::string reference_completion(const task_item& item) {
  if (!item.solution.empty()) return item.solution;
  if (item.task == "math") return "#### " + item.answer;
  return item.answer;
}

TEST(SuitesTest, EveryReferenceAnswerVerifiesThroughTheRegistry) {
  const auto registry = verifier_registry::with_builtins();
  for (const auto& name : built_in) {
    for (const split part : {split::train, split::held_out}) {
      const auto items = generate(name, request(17, 300, part));
      ASSERT_EQ(items.size(), 300u) << name;
      for (const auto& item : items) {
        if (name != "mixed") {
          EXPECT_EQ(item.task, name);
        }
        ASSERT_GE(item.difficulty, 1u) << item.id;
        ASSERT_LE(item.difficulty, 5u) << item.id;
        const auto v = registry.find(item.verifier);
        ASSERT_TRUE(v.ok()) << item.id << ": " << v.err().message;
        const verdict d = (*v)->verify(item, reference_completion(item));
        if (d.reason == "python_unavailable") continue;  // no python3 on this machine
        EXPECT_EQ(d.reward, 1.f)
            << item.id << " (" << item.verifier << "): " << d.reason
            << "\nprompt: " << item.prompt << "\nanswer: " << item.answer
            << "\ntests: " << item.tests;
      }
    }
  }
}

}  // namespace
}  // namespace adarl
