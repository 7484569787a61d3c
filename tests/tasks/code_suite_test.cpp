#include "tasks/code_suite.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "tasks/expr_verifier.hpp"
#include "tasks/suite_common.hpp"

namespace adarl {
namespace {

suite_request request(uint64_t seed, uint32_t count, split part = split::train,
                      std::vector<double> mix = {1, 1, 1, 1, 1}) {
  suite_request req;
  req.seed = seed;
  req.count = count;
  req.part = part;
  req.difficulty_mix = std::move(mix);
  return req;
}

/// The (x, y) pairs a prompt shows.
std::vector<std::pair<int64_t, int64_t>> shown_cases(const std::string& prompt) {
  static const std::regex pair_re(R"((-?\d+)->(-?\d+))");
  std::vector<std::pair<int64_t, int64_t>> out;
  for (std::sregex_iterator it(prompt.begin(), prompt.end(), pair_re), end; it != end;
       ++it) {
    out.emplace_back(std::stoll((*it)[1]), std::stoll((*it)[2]));
  }
  return out;
}

TEST(CodeSuiteTest, IsDeterministicInTheSeed) {
  const auto a = generate_code(request(7, 200));
  const auto b = generate_code(request(7, 200));
  const auto c = generate_code(request(8, 200));
  ASSERT_EQ(a.size(), 200u);
  ASSERT_EQ(b.size(), a.size());
  size_t same_as_other_seed = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].id, b[i].id);
    EXPECT_EQ(a[i].prompt, b[i].prompt);
    EXPECT_EQ(a[i].answer, b[i].answer);
    EXPECT_EQ(a[i].tests, b[i].tests);
    EXPECT_EQ(a[i].difficulty, b[i].difficulty);
    same_as_other_seed += a[i].prompt == c[i].prompt;
  }
  EXPECT_LT(same_as_other_seed, 20u);
  EXPECT_EQ(a[0].id, "code-train-7-0");
  EXPECT_EQ(a[0].task, "code");
  EXPECT_EQ(a[0].verifier, "expr");
}

TEST(CodeSuiteTest, TrainAndHeldOutNeverSharePrompts) {
  const auto train = generate_code(request(3, 600, split::train));
  const auto held = generate_code(request(3, 150, split::held_out));
  ASSERT_EQ(train.size(), 600u);
  ASSERT_EQ(held.size(), 150u);
  std::set<std::string> train_prompts;
  for (const auto& t : train) {
    EXPECT_EQ(split_of(t.prompt), split::train);
    EXPECT_TRUE(train_prompts.insert(t.prompt).second) << "duplicate: " << t.prompt;
  }
  for (const auto& h : held) {
    EXPECT_EQ(split_of(h.prompt), split::held_out);
    EXPECT_EQ(train_prompts.count(h.prompt), 0u) << h.prompt;
    EXPECT_EQ(h.id.rfind("code-heldout-3-", 0), 0u) << h.id;
  }
}

TEST(CodeSuiteTest, EachLevelShowsItsNumberOfCasesAndHidesMoreInTheTests) {
  const size_t shown_at_level[] = {0, 3, 3, 4, 8, 8};
  for (uint32_t level = 1; level <= 5; ++level) {
    std::vector<double> mix(5, 0.0);
    mix[level - 1] = 1.0;
    const auto items = generate_code(request(11, 100, split::train, mix));
    ASSERT_EQ(items.size(), 100u) << "level " << level;
    for (const auto& item : items) {
      EXPECT_EQ(item.difficulty, level);
      const auto shown = shown_cases(item.prompt);
      EXPECT_EQ(shown.size(), shown_at_level[level]) << item.prompt;
      const auto tests = nlohmann::json::parse(item.tests);
      const auto& cases = tests.at("cases");
      EXPECT_GE(cases.size(), shown.size() + 4) << item.tests;
      for (size_t i = 0; i < shown.size() && i < cases.size(); ++i) {
        EXPECT_EQ(cases[i][0].get<int64_t>(), shown[i].first);
        EXPECT_EQ(cases[i][1].get<int64_t>(), shown[i].second);
      }
    }
  }
}

TEST(CodeSuiteTest, PromptsAreAsciiFromASmallCharset) {
  const std::string allowed =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 ->,.";
  for (const auto& item : generate_code(request(5, 300))) {
    for (char c : item.prompt) {
      EXPECT_NE(allowed.find(c), std::string::npos) << "'" << c << "' in " << item.prompt;
    }
    EXPECT_EQ(item.prompt.rfind("Write an expression in x that maps ", 0), 0u);
    EXPECT_EQ(item.prompt.back(), '.');
  }
}

TEST(CodeSuiteTest, ReferenceAndEquivalentProgramsPassWrongOnesFail) {
  const expr_verifier v;
  for (const auto& item : generate_code(request(9, 300))) {
    EXPECT_EQ(v.verify(item, item.answer).reward, 1.f)
        << item.answer << " " << item.tests;
    EXPECT_EQ(v.verify(item, "#### 0+1*(" + item.answer + ")").reward, 1.f)
        << item.answer;
    const verdict off = v.verify(item, "(" + item.answer + ")+1");
    EXPECT_EQ(off.reward, 0.f) << item.answer;
    EXPECT_EQ(off.reason, "wrong_output");
    // A table of the shown cases only is right on the prompt and wrong on hidden tests
    // (outputs stay within +-10^4, so its default is wrong everywhere else).
    std::string table = "99999";
    for (const auto& [x, y] : shown_cases(item.prompt)) {
      table = "if x==" + std::to_string(x) + " then " + std::to_string(y) + " else (" +
              table + ")";
    }
    const verdict memorized = v.verify(item, table);
    EXPECT_EQ(memorized.reward, 0.f) << item.prompt << " " << table;
  }
}

TEST(CodeSuiteTest, AffineItemsAcceptARepeatedSumForTheProduct) {
  // a*x+b written as x+x+...+x+b (a terms): another program with the same values.
  const expr_verifier v;
  const std::regex affine(R"(^(\d+)\*x([+-]\d+)$)");
  size_t checked = 0;
  for (const auto& item : generate_code(request(1, 200, split::train, {0, 1, 0, 0, 0}))) {
    std::smatch m;
    if (!std::regex_match(item.answer, m, affine)) continue;
    std::string sum = "x";
    for (int i = 1; i < std::stoi(m[1]); ++i) sum += "+x";
    EXPECT_EQ(v.verify(item, sum + m[2].str()).reward, 1.f)
        << item.answer << " vs " << sum;
    EXPECT_EQ(v.verify(item, sum).reason, "wrong_output") << item.answer;  // b != 0
    ++checked;
  }
  EXPECT_GT(checked, 50u);
}

}  // namespace
}  // namespace adarl
