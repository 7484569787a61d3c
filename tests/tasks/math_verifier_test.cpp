#include "tasks/math_verifier.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace adarl {
namespace {

// U+2212 MINUS SIGN, as UTF-8.
const std::string kMinus = "\xE2\x88\x92";

struct verify_case {
  std::string completion;
  std::string answer;
  float reward;
  std::string reason;
};

task_item item_with(std::string answer) {
  task_item item;
  item.answer = std::move(answer);
  item.verifier = "math";
  return item;
}

// Completion, reference answer, expected reward and reason (empty when rewarded).
const std::vector<verify_case>& table() {
  static const std::vector<verify_case> cases = {
      // Plain integers and the three extraction methods.
      {"The answer is 42", "42", 1, ""},
      {"#### 42", "42", 1, ""},
      {"\\boxed{42}", "42", 1, ""},
      {"so we get 41", "42", 0, "wrong_value"},
      {"", "42", 0, "no_answer"},
      {"I do not know.", "42", 0, "no_answer"},
      {"   \n\t ", "0", 0, "no_answer"},
      // Boxed: nesting, last wins, precedence over other methods.
      {"\\boxed{\\frac{3}{4}}", "3/4", 1, ""},
      {"\\boxed{{12}}", "12", 0, "unparsable"},
      {"first \\boxed{1} then \\boxed{2}", "2", 1, ""},
      {"first \\boxed{1} then \\boxed{2}", "1", 0, "wrong_value"},
      {"\\boxed{\\boxed{7}}", "7", 1, ""},
      {"#### 5 but finally \\boxed{6}", "6", 1, ""},
      {"\\boxed{6} and then 7", "6", 1, ""},
      {"\\boxed{x + 1}", "1", 0, "unparsable"},
      {"\\boxed{}. The answer is 9", "9", 1, ""},
      {"\\boxed{ 9 }", "9", 1, ""},
      {"\\boxed{3 but the box never closes", "3", 1, ""},  // falls to last number
      {"\\boxed{\\$18}", "18", 1, ""},
      {"\\boxed{\\dfrac{10}{4}}", "5/2", 1, ""},
      {"\\boxed{\\frac34}", "0.75", 1, ""},
      {"\\boxed{\\frac { 3 } { 4 }}", "3/4", 1, ""},
      {"\\boxed{-\\frac{3}{4}}", "-3/4", 1, ""},
      {"\\boxed{\\frac{-3}{4}}", "-0.75", 1, ""},
      {"\\boxed{-\\frac{-3}{4}}", "3/4", 1, ""},
      {"\\boxed{\\frac{3}{0}}", "3", 0, "unparsable"},
      // Hashes: spaces, the rest of the line, the last one.
      {"####42", "42", 1, ""},
      {"####    42   \nmore text 7", "42", 1, ""},
      {"#### 1\n#### 2", "2", 1, ""},
      {"#### 42 apples", "42", 0, "unparsable"},
      {"####\nThe result is 8", "8", 1, ""},
      {"#### $1,000.", "1000", 1, ""},
      // Last number: words, signs, separators, fractions.
      {"x2 plus y3 gives 5 apples", "5", 1, ""},
      {"abc123def", "123", 0, "no_answer"},
      {"H2O has mass 18", "18", 1, ""},
      {"it is 10km away", "10", 1, ""},
      {"x = -5", "-5", 1, ""},
      {"10-5", "5", 1, ""},
      {"x = " + kMinus + "5", "-5", 1, ""},
      {"total: 1,234 apples", "1234", 1, ""},
      {"total: 1,234,567", "1234567", 1, ""},
      {"values 1,23", "23", 1, ""},
      {"so half is 1/2.", "0.5", 1, ""},
      {"it costs $3.50.", "7/2", 1, ""},
      {"answer 99999999999999999999999", "1", 0, "unparsable"},
      // Values compared exactly, in every written form.
      {"#### 0.750", "3/4", 1, ""},
      {"#### 0.7500000000000000000000000000000", "3/4", 1, ""},
      {"#### 0.7500000000000000000000000000001", "3/4", 0, "unparsable"},
      {"#### 0.3333333333", "1/3", 0, "wrong_value"},
      {"#### -0", "0", 1, ""},
      {"#### 0", "-0", 1, ""},
      {"#### +5", "5", 1, ""},
      {"#### " + kMinus + "5", "-5", 1, ""},
      {"#### - 5", "-5", 1, ""},
      {"#### 5", "-5", 0, "wrong_value"},
      {"#### 1,23", "123", 0, "unparsable"},
      {"#### 1,2345", "12345", 0, "unparsable"},
      {"#### 12,345", "12345", 1, ""},
      {"#### 1234,567", "1234567", 0, "unparsable"},
      {"#### $42$", "42", 1, ""},
      {"#### 6/8", "3/4", 1, ""},
      {"#### 6 / 8", "0.75", 1, ""},
      {"#### 1.5/3", "1/2", 1, ""},
      {"#### .5", "1/2", 1, ""},
      {"#### 007", "7", 1, ""},
      {"#### 4.", "4", 1, ""},
      {"#### 18446744073709551615", "18446744073709551615", 1, ""},
      {"#### 18446744073709551616", "0", 0, "unparsable"},
      {"#### 3/0", "3", 0, "unparsable"},
      {"#### five", "5", 0, "unparsable"},
      {"#### 42", "forty-two", 0, "bad_reference"},
  };
  return cases;
}

// The verifier before GiNaC, kept as math_mode::exact_rational.
TEST(MathVerifierTest, ExactRationalModeScoresEveryTableCase) {
  ASSERT_GE(table().size(), 50u);
  const math_verifier v(math_verifier_config::exact_rational_only());
  for (const verify_case& c : table()) {
    SCOPED_TRACE("completion \"" + c.completion + "\" answer \"" + c.answer + "\"");
    const verdict got = v.verify(item_with(c.answer), c.completion);
    EXPECT_EQ(got.reward, c.reward);
    EXPECT_EQ(got.reason, c.reason);
  }
}

// The default (symbolic) mode gives the same verdict on every table case but these,
// where it reads more: braces, units, big and long exact numbers, lists, text answers, and a
// decimal of six or more places against a fraction (equal at six places, as the reference
// verifier rounds).
TEST(MathVerifierTest, SymbolicModeDiffersFromExactRationalOnlyWhereItReadsMore) {
  const std::map<std::pair<std::string, std::string>, verify_case> changed = {
      {{"\\boxed{{12}}", "12"}, {"", "", 1, ""}},
      {{"\\boxed{x + 1}", "1"}, {"", "", 0, "wrong_value"}},
      {{"#### 42 apples", "42"}, {"", "", 1, ""}},
      {{"answer 99999999999999999999999", "1"}, {"", "", 0, "wrong_value"}},
      {{"#### 0.7500000000000000000000000000001", "3/4"}, {"", "", 0, "wrong_value"}},
      {{"#### 1,23", "123"}, {"", "", 0, "wrong_value"}},
      {{"#### 1,2345", "12345"}, {"", "", 0, "wrong_value"}},
      {{"#### 1234,567", "1234567"}, {"", "", 0, "wrong_value"}},
      {{"#### 18446744073709551616", "0"}, {"", "", 0, "wrong_value"}},
      {{"#### 42", "forty-two"}, {"", "", 0, "wrong_value"}},
      {{"#### 0.3333333333", "1/3"}, {"", "", 1, ""}},
  };
  const math_verifier exact(math_verifier_config::exact_rational_only());
  const math_verifier symbolic;
  size_t differing = 0;
  for (const verify_case& c : table()) {
    SCOPED_TRACE("completion \"" + c.completion + "\" answer \"" + c.answer + "\"");
    const verdict old = exact.verify(item_with(c.answer), c.completion);
    const verdict now = symbolic.verify(item_with(c.answer), c.completion);
    const auto it = changed.find({c.completion, c.answer});
    if (it == changed.end()) {
      EXPECT_EQ(now.reward, old.reward);
      EXPECT_EQ(now.reason, old.reason);
    } else {
      EXPECT_EQ(now.reward, it->second.reward);
      EXPECT_EQ(now.reason, it->second.reason);
      differing += now.reward != old.reward || now.reason != old.reason;
    }
  }
  EXPECT_EQ(differing, changed.size());
}

TEST(MathVerifierTest, ExactRationalModeRejectsWhatOnlySymbolicReads) {
  const math_verifier exact(math_verifier_config::exact_rational_only());
  EXPECT_EQ(exact.verify(item_with("3\\sqrt{13}"), "\\boxed{\\sqrt{117}}").reason,
            "bad_reference");
  EXPECT_EQ(exact.verify(item_with("5"), "\\boxed{x = 5}").reason, "unparsable");
  EXPECT_EQ(math_verifier{}.verify(item_with("5"), "\\boxed{x = 5}").reward, 1.f);
  EXPECT_NE(exact.check_reference(item_with("\\frac{\\pi}{2}")), "");
  EXPECT_EQ(exact.check_reference(item_with("-7/3")), "");
}

TEST(MathVerifierTest, NameIsMath) {
  EXPECT_EQ(math_verifier{}.name(), "math");
}

TEST(MathVerifierTest, ExtractionOrderIsConfigurable) {
  const std::string text = "\\boxed{1} #### 2\nso maybe 3";
  const task_item one = item_with("1");
  const task_item two = item_with("2");
  const task_item three = item_with("3");
  EXPECT_EQ(math_verifier{}.verify(one, text).reward, 1.f);

  const math_verifier hashes_first({{extraction::hashes, extraction::boxed}});
  EXPECT_EQ(hashes_first.verify(two, text).reward, 1.f);
  EXPECT_EQ(hashes_first.verify(one, text).reason, "wrong_value");

  const math_verifier last_only({{extraction::last_number}});
  EXPECT_EQ(last_only.verify(three, text).reward, 1.f);

  // A method left out of the order is never used.
  const math_verifier boxed_only({{extraction::boxed}});
  EXPECT_EQ(boxed_only.verify(two, "#### 2").reason, "no_answer");
  const math_verifier none(math_verifier_config{.order = {}});
  EXPECT_EQ(none.verify(two, "\\boxed{2}").reason, "no_answer");
}

TEST(MathVerifierTest, FirstMethodWithACandidateDecidesEvenWhenUnparsable) {
  const math_verifier v;
  EXPECT_EQ(v.verify(item_with("7"), "\\boxed{seven} so 7").reason, "unparsable");
  EXPECT_EQ(v.verify(item_with("7"), "\\boxed{ } so 7").reward, 1.f);
}

TEST(MathVerifierTest, ExtractsTheExpectedSpans) {
  EXPECT_EQ(extract_math_answer("a \\boxed{x{y}z} b", extraction::boxed), "x{y}z");
  EXPECT_EQ(extract_math_answer("no box", extraction::boxed), std::nullopt);
  EXPECT_EQ(extract_math_answer("#### 12 \n 13", extraction::hashes), "12");
  EXPECT_EQ(extract_math_answer("#####7", extraction::hashes), "7");
  EXPECT_EQ(extract_math_answer("cost -3.5/2, then", extraction::last_number), "-3.5/2");
  EXPECT_EQ(extract_math_answer("(-4)", extraction::last_number), "-4");
  EXPECT_EQ(extract_math_answer("a_1 and b_2", extraction::last_number), std::nullopt);
  EXPECT_EQ(extract_math_answer("7 then v2", extraction::last_number), "7");
  EXPECT_EQ(extract_math_answer("1,234,56", extraction::last_number), "56");
  EXPECT_EQ(extract_math_answer("ends 12.", extraction::last_number), "12");
}

TEST(MathVerifierTest, ParsesToCanonicalRationals) {
  EXPECT_EQ(parse_math_value("0.750"), (math_value{false, 3, 4}));
  EXPECT_EQ(parse_math_value("-12/8"), (math_value{true, 3, 2}));
  EXPECT_EQ(parse_math_value("-0.0"), (math_value{false, 0, 1}));
  EXPECT_EQ(parse_math_value("\\frac{0}{-5}"), (math_value{false, 0, 1}));
  EXPECT_EQ(parse_math_value("1,000,000"), (math_value{false, 1000000, 1}));
  EXPECT_EQ(parse_math_value("\\tfrac{1.5}{0.5}"), (math_value{false, 3, 1}));
  EXPECT_EQ(parse_math_value("1/2/3"), std::nullopt);
  EXPECT_EQ(parse_math_value("--5"), std::nullopt);
  EXPECT_EQ(parse_math_value("1e5"), std::nullopt);
  EXPECT_EQ(parse_math_value(""), std::nullopt);
}

TEST(MathVerifierTest, ReducesBeforeDecidingOverflow) {
  // Numerator and denominator each fit after cross-reduction.
  EXPECT_EQ(parse_math_value("18446744073709551615/18446744073709551615"),
            (math_value{false, 1, 1}));
  EXPECT_EQ(parse_math_value("\\frac{0.5}{18446744073709551615}"), std::nullopt);
}

}  // namespace
}  // namespace adarl
