#include "tasks/math_suite.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <set>
#include <string>

#include "tasks/math_verifier.hpp"

namespace adarl {
namespace {

suite_request request(uint64_t seed, uint32_t count, std::vector<double> mix,
                      split part = split::train) {
  suite_request req;
  req.seed = seed;
  req.count = count;
  req.difficulty_mix = std::move(mix);
  req.part = part;
  return req;
}

// The expression between "Compute: " and ". Give the final answer."
std::string expression_of(const std::string& prompt) {
  const std::string head = "Compute: ";
  const std::string tail = ". Give the final answer.";
  EXPECT_TRUE(prompt.starts_with(head)) << prompt;
  EXPECT_TRUE(prompt.ends_with(tail)) << prompt;
  return prompt.substr(head.size(), prompt.size() - head.size() - tail.size());
}

size_t operand_count(const std::string& expr) {
  size_t count = 0;
  for (size_t i = 0; i < expr.size(); ++i) {
    if (std::isdigit(static_cast<unsigned char>(expr[i])) &&
        (i == 0 || !std::isdigit(static_cast<unsigned char>(expr[i - 1])))) {
      ++count;
    }
  }
  return count;
}

// Grouping parentheses, as opposed to those around a negative number: "(-7)".
bool has_grouping(const std::string& expr) {
  for (size_t i = 0; i + 1 < expr.size(); ++i) {
    if (expr[i] == '(' && expr[i + 1] != '-') return true;
  }
  return false;
}

TEST(MathSuiteTest, SameSeedSameItemsOtherSeedOtherItems) {
  const auto a = generate_math(request(7, 200, {1, 1, 1, 1, 1}));
  const auto b = generate_math(request(7, 200, {1, 1, 1, 1, 1}));
  const auto c = generate_math(request(8, 200, {1, 1, 1, 1, 1}));
  ASSERT_EQ(a.size(), 200u);
  ASSERT_EQ(c.size(), 200u);
  size_t same_as_other_seed = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].id, b[i].id);
    EXPECT_EQ(a[i].prompt, b[i].prompt);
    EXPECT_EQ(a[i].answer, b[i].answer);
    EXPECT_EQ(a[i].difficulty, b[i].difficulty);
    same_as_other_seed += a[i].prompt == c[i].prompt;
  }
  EXPECT_LT(same_as_other_seed, 10u);
  EXPECT_EQ(a[3].id, "math-train-7-3");
  EXPECT_EQ(a[3].task, "math");
  EXPECT_EQ(a[3].verifier, "math");
}

TEST(MathSuiteTest, TrainAndHeldOutNeverSharePrompts) {
  const auto train = generate_math(request(1, 2000, {1, 1, 1, 1, 1}, split::train));
  const auto held = generate_math(request(2, 500, {1, 1, 1, 1, 1}, split::held_out));
  ASSERT_EQ(train.size(), 2000u);
  ASSERT_EQ(held.size(), 500u);
  std::set<std::string> train_prompts;
  for (const auto& item : train) train_prompts.insert(item.prompt);
  EXPECT_EQ(train_prompts.size(), train.size()) << "duplicate prompts within a split";
  for (const auto& item : held) {
    EXPECT_EQ(train_prompts.count(item.prompt), 0u) << item.prompt;
    EXPECT_EQ(split_of(item.prompt), split::held_out);
    EXPECT_TRUE(item.id.starts_with("math-heldout-2-")) << item.id;
  }
}

TEST(MathSuiteTest, DifficultyMixIsRespected) {
  const auto only_three = generate_math(request(3, 300, {0, 0, 1, 0, 0}));
  ASSERT_EQ(only_three.size(), 300u);
  for (const auto& item : only_three) EXPECT_EQ(item.difficulty, 3u);

  const auto skewed = generate_math(request(3, 2000, {3, 0, 0, 0, 1}));
  ASSERT_EQ(skewed.size(), 2000u);
  std::array<size_t, 6> per_level{};
  for (const auto& item : skewed) ++per_level.at(item.difficulty);
  EXPECT_EQ(per_level[2] + per_level[3] + per_level[4], 0u);
  // Expected 1500 / 500; the binomial standard deviation is about 20.
  EXPECT_NEAR(static_cast<double>(per_level[1]), 1500.0, 120.0);
  EXPECT_NEAR(static_cast<double>(per_level[5]), 500.0, 120.0);
}

TEST(MathSuiteTest, EveryItemVerifiesWithItsAnswerAndRejectsAnotherValue) {
  const auto items = generate_math(request(11, 1000, {1, 1, 1, 1, 1}));
  ASSERT_EQ(items.size(), 1000u);
  const math_verifier v;
  for (const auto& item : items) {
    SCOPED_TRACE(item.prompt + " = " + item.answer);
    EXPECT_EQ(v.verify(item, "#### " + item.answer).reward, 1.f);
    EXPECT_EQ(v.verify(item, "\\boxed{" + item.answer + "}").reward, 1.f);
    const verdict wrong = v.verify(item, "#### " + item.answer + "1");
    EXPECT_EQ(wrong.reward, 0.f);
    EXPECT_EQ(wrong.reason, "wrong_value");
  }
}

TEST(MathSuiteTest, PromptsUseTheSmallCharset) {
  const std::string allowed = "0123456789+-*/() .:ComputeGivthfinalswr";
  for (const auto& item : generate_math(request(5, 1000, {1, 1, 1, 1, 1}))) {
    for (char ch : item.prompt) {
      EXPECT_NE(allowed.find(ch), std::string::npos)
          << "'" << ch << "' in " << item.prompt;
    }
  }
}

TEST(MathSuiteTest, LevelsAreVisiblyHarder) {
  std::array<size_t, 6> operands{};  // total over 300 items
  std::array<size_t, 6> with_parentheses{};
  std::array<size_t, 6> with_product_or_quotient{};
  std::array<size_t, 6> fractions{};
  std::array<size_t, 6> max_answer_digits{};
  for (uint32_t level = 1; level <= 5; ++level) {
    std::vector<double> mix(5, 0.0);
    mix[level - 1] = 1;
    const auto items = generate_math(request(9, 300, mix));
    ASSERT_EQ(items.size(), 300u) << "level " << level;
    for (const auto& item : items) {
      const std::string expr = expression_of(item.prompt);
      operands[level] += operand_count(expr);
      with_parentheses[level] += has_grouping(expr);
      with_product_or_quotient[level] += expr.find_first_of("*/") != std::string::npos;
      fractions[level] += item.answer.find('/') != std::string::npos;
      max_answer_digits[level] = std::max(max_answer_digits[level], item.answer.size());
    }
  }
  EXPECT_EQ(operands[1], 2u * 300);
  for (uint32_t level = 2; level <= 5; ++level) {
    EXPECT_GE(operands[level], operands[level - 1]) << "level " << level;
  }
  EXPECT_GE(operands[5], 4u * 300);
  EXPECT_EQ(with_parentheses[1] + with_parentheses[2] + with_parentheses[3], 0u);
  EXPECT_EQ(with_parentheses[4], 300u);
  EXPECT_EQ(with_parentheses[5], 300u);
  EXPECT_EQ(with_product_or_quotient[1], 0u);
  EXPECT_GT(with_product_or_quotient[3], 150u);
  EXPECT_EQ(fractions[1] + fractions[2] + fractions[3] + fractions[4], 0u);
  EXPECT_GT(fractions[5], 0u);
  EXPECT_LT(fractions[5], 100u) << "divisions should be exact most of the time";
  EXPECT_LE(max_answer_digits[1], 3u);
  EXPECT_GT(max_answer_digits[5], max_answer_digits[2]);
}

}  // namespace
}  // namespace adarl
