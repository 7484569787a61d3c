#include "tasks/expr_lang.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <random>
#include <string>

namespace adarl {
namespace {

constexpr int64_t i64_max = std::numeric_limits<int64_t>::max();
constexpr int64_t i64_min = std::numeric_limits<int64_t>::min();

/// The value of `source` at x; fails the test on any error.
int64_t value_of(const std::string& source, int64_t x = 0) {
  const auto p = expr_program::parse(source);
  EXPECT_TRUE(p.ok()) << source << ": " << (p.ok() ? "" : p.err().message);
  if (!p.ok()) return 0;
  const auto v = p->eval(x);
  EXPECT_TRUE(v.ok()) << source << ": " << (v.ok() ? "" : v.err().message);
  return v.ok() ? *v : 0;
}

/// The error code of parsing `source`, or of evaluating it at x.
expr_errc error_of(const std::string& source, int64_t x = 0,
                   const expr_limits& lim = {}) {
  const auto p = expr_program::parse(source, lim);
  if (!p.ok()) return p.err().code;
  const auto v = p->eval(x, lim.max_steps);
  EXPECT_FALSE(v.ok()) << source << " gave " << *v;
  return v.ok() ? expr_errc::parse_error : v.err().code;
}

TEST(ExprLangTest, EvaluatesLiteralsVariableAndArithmetic) {
  EXPECT_EQ(value_of("42"), 42);
  EXPECT_EQ(value_of("x", 7), 7);
  EXPECT_EQ(value_of("2*x+1", 3), 7);
  EXPECT_EQ(value_of("x+x+1", 3), 7);
  EXPECT_EQ(value_of("10-x-3", 2), 5);  // left-associative: (10-2)-3
  EXPECT_EQ(value_of("100/10/5"), 2);   // (100/10)/5
  EXPECT_EQ(value_of("  ( x * ( x + 1 ) )\n", 4), 20);
}

TEST(ExprLangTest, MultiplicationBindsTighterThanAdditionAndComparisonLoosest) {
  EXPECT_EQ(value_of("1+2*3"), 7);
  EXPECT_EQ(value_of("(1+2)*3"), 9);
  EXPECT_EQ(value_of("7-6%4"), 5);
  EXPECT_EQ(value_of("1+1<3"), 1);  // (1+1) < 3
  EXPECT_EQ(value_of("2*3==6"), 1);
  EXPECT_EQ(value_of("-x*x", 3), -9);
  EXPECT_EQ(value_of("--x", 3), 3);
  EXPECT_EQ(value_of("2--3"), 5);
}

TEST(ExprLangTest, DivisionTruncatesTowardZeroAndRemainderFollowsDividend) {
  EXPECT_EQ(value_of("7/2"), 3);
  EXPECT_EQ(value_of("-7/2"), -3);
  EXPECT_EQ(value_of("7%3"), 1);
  EXPECT_EQ(value_of("-7%3"), -1);
  EXPECT_EQ(value_of("7%-3"), 1);
  EXPECT_EQ(value_of("0-7/2"), -3);
}

TEST(ExprLangTest, ComparisonsYieldOneOrZero) {
  EXPECT_EQ(value_of("x<3", 2), 1);
  EXPECT_EQ(value_of("x<3", 3), 0);
  EXPECT_EQ(value_of("x<=3", 3), 1);
  EXPECT_EQ(value_of("x>3", 3), 0);
  EXPECT_EQ(value_of("x>=3", 3), 1);
  EXPECT_EQ(value_of("x==3", 3), 1);
  EXPECT_EQ(value_of("x!=3", 3), 0);
  EXPECT_EQ(value_of("(x>1)+(x>2)+(x>3)", 3), 2);
  EXPECT_EQ(error_of("1<x<3"), expr_errc::parse_error);  // not associative
}

TEST(ExprLangTest, ConditionalsChooseByNonZeroAndElseExtendsRight) {
  EXPECT_EQ(value_of("if x%2==0 then x/2 else 3*x+1", 6), 3);
  EXPECT_EQ(value_of("if x%2==0 then x/2 else 3*x+1", 7), 22);
  EXPECT_EQ(value_of("if x then 1 else 2", -5), 1);
  EXPECT_EQ(value_of("if x then 1 else 2", 0), 2);
  EXPECT_EQ(value_of("if 0 then 1 else 2+10"), 12);  // else (2+10)
  EXPECT_EQ(value_of("(if 0 then 1 else 2)+10"), 12);
  EXPECT_EQ(value_of("(if 1 then 1 else 2)+10"), 11);
  EXPECT_EQ(value_of("3*if x>0 then x else 0-x", -4), 12);
  EXPECT_EQ(value_of("if x<0 then 0 else if x<10 then 1 else 2", 5), 1);
  // The branch not taken is not evaluated: its division by zero is no error.
  EXPECT_EQ(value_of("if x==0 then 0 else 10/x", 0), 0);
}

TEST(ExprLangTest, RejectsMalformedProgramsWithParseError) {
  for (const char* bad : {"",
                          "   ",
                          "x+",
                          "(x",
                          "x)",
                          "2x",
                          "x2",
                          "y",
                          "X",
                          "x y",
                          "1 = 1",
                          "!1",
                          "if x then 1",
                          "if x 1 else 2",
                          "then",
                          "3 ** 2",
                          "1.5",
                          "x+*2",
                          "()",
                          "if then 1 else 2",
                          "9223372036854775808",
                          "99999999999999999999"}) {
    const auto p = expr_program::parse(bad);
    ASSERT_FALSE(p.ok()) << '"' << bad << '"';
    EXPECT_EQ(p.err().code, expr_errc::parse_error) << bad;
    EXPECT_NE(p.err().message.find("offset"), std::string::npos) << p.err().message;
  }
}

TEST(ExprLangTest, DivisionByZeroIsAnErrorValue) {
  EXPECT_EQ(error_of("1/x", 0), expr_errc::div_by_zero);
  EXPECT_EQ(error_of("1%x", 0), expr_errc::div_by_zero);
  EXPECT_EQ(error_of("1/(x-x)", 9), expr_errc::div_by_zero);
}

TEST(ExprLangTest, OverflowIsDetectedAtTheEdgesOfTheRange) {
  EXPECT_EQ(value_of("9223372036854775807"), i64_max);
  EXPECT_EQ(value_of("-9223372036854775808"), i64_min);
  EXPECT_EQ(value_of("x-1", i64_min + 1), i64_min);
  EXPECT_EQ(error_of("x+1", i64_max), expr_errc::overflow);
  EXPECT_EQ(error_of("x-1", i64_min), expr_errc::overflow);
  EXPECT_EQ(error_of("x*2", i64_max / 2 + 1), expr_errc::overflow);
  EXPECT_EQ(error_of("-x", i64_min), expr_errc::overflow);
  EXPECT_EQ(error_of("x/-1", i64_min), expr_errc::overflow);
  EXPECT_EQ(value_of("x%-1", i64_min), 0);
  EXPECT_EQ(value_of("x/-1", i64_max), -i64_max);
  // Repeated squaring overflows after a few steps.
  EXPECT_EQ(error_of("x*x*x*x*x*x*x*x*x*x*x*x*x*x*x*x*x*x*x*x", 10), expr_errc::overflow);
}

TEST(ExprLangTest, SizeLimitsRejectLongWideAndDeepPrograms) {
  expr_limits lim;
  lim.max_source = 10;
  EXPECT_EQ(error_of("1+2+3+4+5+6", 0, lim), expr_errc::size_limit);
  EXPECT_EQ(value_of("1+2+3+4+5"), 15);  // 9 bytes: within 10

  lim = {};
  lim.max_nodes = 5;
  EXPECT_EQ(error_of("x+x+x+x", 0, lim), expr_errc::size_limit);  // 7 nodes
  const auto five = expr_program::parse("x+x+x", lim);            // 5 nodes
  ASSERT_TRUE(five.ok());
  EXPECT_EQ(five->size(), 5u);
  EXPECT_EQ(five->depth(), 3u);

  lim = {};
  lim.max_depth = 8;
  EXPECT_EQ(error_of(std::string(20, '(') + "x" + std::string(20, ')'), 0, lim),
            expr_errc::size_limit);
  EXPECT_EQ(error_of(std::string(20, '-') + "x", 0, lim), expr_errc::size_limit);
  EXPECT_EQ(error_of("1+1+1+1+1+1+1+1+1+1", 0, lim), expr_errc::size_limit);
  EXPECT_EQ(value_of(std::string(5, '(') + "x" + std::string(5, ')'), 3), 3);
}

TEST(ExprLangTest, DeepNestingBeyondTheHardCapFailsWithoutRecursingFurther) {
  expr_limits lim;
  lim.max_source = 10'000'000;
  lim.max_nodes = 10'000'000;
  lim.max_depth = 10'000'000;  // clamped to hard_max_depth
  const std::string deep =
      std::string(1'000'000, '(') + "x" + std::string(1'000'000, ')');
  EXPECT_EQ(error_of(deep, 0, lim), expr_errc::size_limit);
  EXPECT_EQ(error_of(std::string(1'000'000, '-') + "x", 0, lim), expr_errc::size_limit);
}

TEST(ExprLangTest, StepLimitStopsEvaluation) {
  const auto p = expr_program::parse("x+x+x+x+x");  // 9 nodes, all visited
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE(p->eval(1, /*max_steps=*/9).ok());
  const auto v = p->eval(1, /*max_steps=*/8);
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.err().code, expr_errc::step_limit);
  EXPECT_EQ(to_string(v.err().code), "step_limit");
}

TEST(ExprLangTest, RandomGarbageNeverCrashesAndOnlyFailsWithParseOrSizeErrors) {
  std::mt19937_64 rng(20240611);
  const std::string alphabet = "x0123456789+-*/%()<>=! \nifthenelse\x01\xff";
  int parsed = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string s(rng() % 40, ' ');
    for (char& c : s) c = alphabet[rng() % alphabet.size()];
    const auto p = expr_program::parse(s);
    if (!p.ok()) {
      EXPECT_TRUE(p.err().code == expr_errc::parse_error ||
                  p.err().code == expr_errc::size_limit)
          << s;
      continue;
    }
    ++parsed;
    for (int64_t x : {i64_min, int64_t{-3}, int64_t{0}, int64_t{7}, i64_max}) {
      const auto v = p->eval(x);
      if (!v.ok()) {
        EXPECT_NE(v.err().code, expr_errc::parse_error) << s;
      }
    }
  }
  EXPECT_GT(parsed, 100);  // the generator does reach the evaluator
}

}  // namespace
}  // namespace adarl
