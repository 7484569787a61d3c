// The reasoning suite (tasks/reasoning_suite.hpp): every worked solution is a correct
// derivation of its answer, one step per operation or letter, and the reward is on the
// final answer only.
#include "tasks/reasoning_suite.hpp"

#include <gtest/gtest.h>

#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "tasks/math_verifier.hpp"

namespace adarl {
namespace {

suite_request request(uint64_t seed, uint32_t count, std::vector<double> mix) {
  suite_request req;
  req.seed = seed;
  req.count = count;
  req.difficulty_mix = std::move(mix);
  return req;
}

/// The steps of a solution (the words before " #### ") and its final answer.
std::pair<std::vector<std::string>, std::string> steps_of(const std::string& solution) {
  const auto hashes = solution.rfind(" #### ");
  EXPECT_NE(hashes, std::string::npos) << solution;
  std::vector<std::string> steps;
  std::istringstream in(solution.substr(0, hashes));
  for (std::string w; in >> w;) steps.push_back(w);
  return {steps, solution.substr(hashes + 6)};
}

/// Checks a sum item's derivation: it starts from the prompt's first digit, applies the
/// prompt's operations in order, and each step's result is right and not negative.
void check_sum(const task_item& item) {
  const std::string expr = item.prompt.substr(5);  // "sum: "
  const auto [steps, final_answer] = steps_of(item.solution);
  ASSERT_EQ(steps.size(), item.difficulty) << item.prompt;
  int total = expr[0] - '0';
  for (size_t i = 0; i < steps.size(); ++i) {
    const char op = expr[1 + 2 * i];
    const int d = expr[2 + 2 * i] - '0';
    const int next = op == '+' ? total + d : total - d;
    EXPECT_GE(next, 0) << item.prompt;
    EXPECT_EQ(steps[i], std::to_string(total) + op + std::to_string(d) + "=" +
                            std::to_string(next))
        << item.prompt;
    total = next;
  }
  EXPECT_EQ(expr.size(), 1 + 2 * steps.size()) << item.prompt;
  EXPECT_EQ(final_answer, std::to_string(total));
  EXPECT_EQ(item.answer, std::to_string(total));
}

/// Checks a count item's derivation: each letter of the prompt in order, with the
/// running count of the asked letter.
void check_count(const task_item& item) {
  const char target = item.prompt[6];  // "count x: ..."
  const std::string letters = item.prompt.substr(9);
  const auto [steps, final_answer] = steps_of(item.solution);
  ASSERT_EQ(steps.size(), letters.size()) << item.prompt;
  EXPECT_EQ(letters.size(), 2 * item.difficulty + 2) << item.prompt;
  int count = 0;
  for (size_t i = 0; i < letters.size(); ++i) {
    count += letters[i] == target ? 1 : 0;
    EXPECT_EQ(steps[i], letters[i] + std::to_string(count)) << item.prompt;
  }
  EXPECT_EQ(final_answer, std::to_string(count));
  EXPECT_EQ(item.answer, std::to_string(count));
}

TEST(ReasoningSuiteTest, EverySolutionIsACorrectDerivationOfItsAnswer) {
  const auto items = generate_reasoning(request(3, 2000, {1, 1, 1, 1, 1}));
  ASSERT_EQ(items.size(), 2000u);
  std::map<std::string, int> kinds;
  for (const auto& item : items) {
    EXPECT_EQ(item.task, "reasoning");
    EXPECT_EQ(item.verifier, "math");
    if (item.prompt.rfind("sum: ", 0) == 0) {
      ++kinds["sum"];
      check_sum(item);
    } else {
      ASSERT_EQ(item.prompt.rfind("count ", 0), 0u) << item.prompt;
      ++kinds["count"];
      check_count(item);
    }
  }
  // Both kinds, about evenly.
  EXPECT_GT(kinds["sum"], 800);
  EXPECT_GT(kinds["count"], 800);
}

TEST(ReasoningSuiteTest, DifficultyIsTheNumberOfStepsAndTheLengthsFitAShortTrace) {
  std::map<uint32_t, size_t> longest_solution, longest_prompt;
  for (uint32_t level = 1; level <= 5; ++level) {
    std::vector<double> mix(5, 0.0);
    mix[level - 1] = 1;
    for (const auto& item : generate_reasoning(request(7, 400, mix))) {
      EXPECT_EQ(item.difficulty, level);
      longest_solution[level] = std::max(longest_solution[level], item.solution.size());
      longest_prompt[level] = std::max(longest_prompt[level], item.prompt.size());
    }
  }
  for (uint32_t level = 2; level <= 5; ++level)
    EXPECT_GT(longest_solution[level], longest_solution[level - 1]) << level;
  EXPECT_GE(longest_solution[1], 12u);
  EXPECT_LE(longest_solution[5], 46u);  // tasks/reasoning_suite.hpp
  EXPECT_LE(longest_prompt[5], 21u);
}

TEST(ReasoningSuiteTest, TheRewardIsOnTheFinalAnswerOnly) {
  const math_verifier v;
  task_item item;
  item.answer = "17";
  item.verifier = "math";
  EXPECT_EQ(v.verify(item, "7+5=12 12-3=9 9+8=17 #### 17").reward, 1.f);
  // A wrong step but the right final answer: rewarded (the answer is what is checked).
  EXPECT_EQ(v.verify(item, "7+5=13 13-3=9 9+8=17 #### 17").reward, 1.f);
  // Right steps, a wrong final answer: not.
  EXPECT_EQ(v.verify(item, "7+5=12 12-3=9 9+8=17 #### 18").reward, 0.f);
  // No "####": the verifier reads the whole trace as the answer, which is not 17.
  const verdict unmarked = v.verify(item, "7+5=12 12-3=9 9+8=17");
  EXPECT_EQ(unmarked.reward, 0.f);
  EXPECT_FALSE(unmarked.reason.empty());
}

}  // namespace
}  // namespace adarl
