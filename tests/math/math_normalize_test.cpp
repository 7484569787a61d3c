#include "math/math_normalize.hpp"

#include <gtest/gtest.h>

namespace adarl {
namespace {

TEST(MathNormalizeTest, UnwrapsDelimitersAndBoxes) {
  EXPECT_EQ(normalize_math_answer("$\\frac{1}{2}$"), "\\frac{1}{2}");
  EXPECT_EQ(normalize_math_answer("\\[ x \\]"), "x");
  EXPECT_EQ(normalize_math_answer("\\boxed{\\boxed{5}}"), "5");
  EXPECT_EQ(normalize_math_answer("$1$ or $2$"), "1 or 2");
}

TEST(MathNormalizeTest, DropsSizingAndSpacing) {
  EXPECT_EQ(normalize_math_answer("\\left( 1, 2 \\right]"), "( 1, 2 ]");
  EXPECT_EQ(normalize_math_answer("\\left. x \\right|"), "x |");
  EXPECT_EQ(normalize_math_answer("1\\,000\\,000"), "1000000");
  EXPECT_EQ(normalize_math_answer("\\sin\\,x"), "\\sin x");
  EXPECT_EQ(normalize_math_answer("16,\\!386.20"), "16386.20");
  EXPECT_EQ(normalize_math_answer("\\displaystyle\\dfrac{a}{b}"), "\\frac{a}{b}");
  EXPECT_EQ(normalize_math_answer("\\tbinom{5}{2}"), "\\binom{5}{2}");
  EXPECT_EQ(normalize_math_answer("x_{1}=1,\\quadx_{2}=2"), "x_{1}=1,x_{2}=2");
  EXPECT_EQ(normalize_math_answer("a\\qquadb"), "a b");
  EXPECT_EQ(normalize_math_answer("\\quadrant"), "rant");
}

TEST(MathNormalizeTest, DropsDegreesPercentAndCurrency) {
  EXPECT_EQ(normalize_math_answer("30^\\circ"), "30\\circ");  // the reader drops the marker
  EXPECT_EQ(normalize_math_answer("30^{\\circ}"), "30\\circ");
  EXPECT_EQ(normalize_math_answer("28\\%"), "28");
  EXPECT_EQ(normalize_math_answer("\\$16,386.20"), "16386.20");
  EXPECT_EQ(normalize_math_answer("\xE2\x82\xAC" "5"), "5");
  EXPECT_EQ(normalize_math_answer("45\xC2\xB0"), "45\\circ");
}

TEST(MathNormalizeTest, ThousandsOnlyOutsideBracketsAndInGroupsOfThree) {
  EXPECT_EQ(normalize_math_answer("1,000"), "1000");
  EXPECT_EQ(normalize_math_answer("14{,}916"), "14916");
  EXPECT_EQ(normalize_math_answer("1 000"), "1000");
  EXPECT_EQ(normalize_math_answer("1,23"), "1,23");
  EXPECT_EQ(normalize_math_answer("1234,567"), "1234,567");
  EXPECT_EQ(normalize_math_answer("(100,200)"), "(100,200)");
  EXPECT_EQ(normalize_math_answer("0,500"), "0,500");
  EXPECT_EQ(normalize_math_answer("1,000, 2,000"), "1000, 2000");
}

TEST(MathNormalizeTest, UnicodeSpelledAsLatex) {
  EXPECT_EQ(normalize_math_answer("\xE2\x88\x92" "5"), "-5");
  EXPECT_EQ(normalize_math_answer("x \xE2\x89\xA5 3"), "x \\ge 3");
  EXPECT_EQ(normalize_math_answer("2\xCF\x80"), "2\\pi");
  EXPECT_EQ(normalize_math_answer("\xE2\x88\x9E"), "\\infty");
}

TEST(MathNormalizeTest, TrailingPunctuationGoes) {
  EXPECT_EQ(normalize_math_answer("5."), "5");
  EXPECT_EQ(normalize_math_answer("x = 3;  "), "x = 3");
  EXPECT_EQ(normalize_math_answer("5!"), "5!");  // a factorial, not punctuation
}

TEST(MathNormalizeTest, TextKeysIgnoreCaseBlanksAndWrappers) {
  EXPECT_EQ(math_text_key("\\text{New York}"), "newyork");
  EXPECT_EQ(math_text_key("\\textbf{(B)}"), "b");
  EXPECT_EQ(math_text_key("Odd."), "odd");
  EXPECT_EQ(math_word_count("  she has 5 apples "), 4u);
}

}  // namespace
}  // namespace adarl
