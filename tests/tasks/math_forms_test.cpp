// Numbers, fractions, roots and expressions: each written form both ways, with
// near-misses that must be refused (tasks/math_verifier.hpp).
#include <gtest/gtest.h>

#include "tests/tasks/math_test_util.hpp"

namespace adarl {
namespace {

using test::different;
using test::equivalent;
using test::scores;

TEST(MathVerifierTest, DfracEqualsSlashFraction) {
  EXPECT_TRUE(equivalent("\\dfrac{1}{3}", "1/3"));
  EXPECT_TRUE(equivalent("\\tfrac{2}{6}", "\\frac{1}{3}"));
  EXPECT_TRUE(different("\\dfrac{1}{3}", "1/4"));
}

TEST(MathVerifierTest, ShortFracReadsOneDigitPerArgument) {
  EXPECT_TRUE(equivalent("\\frac13", "\\frac{1}{3}"));
  EXPECT_TRUE(equivalent("\\frac\\pi2", "\\frac{\\pi}{2}"));
  EXPECT_TRUE(different("\\frac13", "13"));
  EXPECT_TRUE(different("\\frac{12}{3}", "\\frac13"));
}

TEST(MathVerifierTest, IntegerBeforeFractionIsAMixedNumber) {
  EXPECT_TRUE(equivalent("2\\frac{1}{2}", "\\frac{5}{2}"));
  EXPECT_TRUE(different("2\\frac{1}{2}", "1"));            // not 2 * 1/2
  EXPECT_TRUE(equivalent("-3\\frac{1}{4}", "-13/4"));
  EXPECT_TRUE(equivalent("2\\frac{x}{2}", "x"));           // a product when not integers
}

TEST(MathVerifierTest, DecimalsAreExactRationals) {
  EXPECT_TRUE(equivalent("0.5", "\\frac{1}{2}"));
  EXPECT_TRUE(equivalent("2.50", "\\frac{5}{2}"));
  EXPECT_TRUE(different("0.3333", "\\frac{1}{3}"));
  EXPECT_TRUE(different("0.33333", "1/3"));  // exact below six decimal places
  // Six or more decimal places against a fraction: equal when both round to the same six
  // places, as the reference verifier (Math-Verify) compares them.
  EXPECT_TRUE(equivalent("0.33333333333", "1/3"));
  EXPECT_TRUE(equivalent("0.0833333333333333", "\\frac{1}{12}"));
  EXPECT_TRUE(different("0.666666", "\\frac{2}{3}"));
}

TEST(MathVerifierTest, ThousandsSeparatorsAreRemoved) {
  EXPECT_TRUE(equivalent("14{,}916", "14916"));
  EXPECT_TRUE(equivalent("1,000,000", "1000000"));
  EXPECT_TRUE(scores("1 000", "\\boxed{1000}", 1.f));
  EXPECT_TRUE(scores("1000", "\\boxed{1\\,000}", 1.f));
  EXPECT_TRUE(different("1,000", "100"));
  EXPECT_TRUE(scores("123", "\\boxed{1,23}", 0.f, "wrong_value"));  // a list, not 123
}

TEST(MathVerifierTest, CurrencyAndPercentSignsAreDropped) {
  EXPECT_TRUE(equivalent("\\$16,\\!386.20", "16386.2"));
  EXPECT_TRUE(scores("18", "The total is \\boxed{\\$18.00}.", 1.f));
  EXPECT_TRUE(equivalent("28\\%", "28"));
  EXPECT_TRUE(scores("28", "\\boxed{28 percent}", 1.f));
  EXPECT_TRUE(different("28\\%", "0.28"));  // the sign goes, the value is not rescaled
}

TEST(MathVerifierTest, DegreesAndUnitWordsAreDropped) {
  EXPECT_TRUE(equivalent("30^\\circ", "30"));
  EXPECT_TRUE(equivalent("45^{\\circ}", "45"));
  EXPECT_TRUE(scores("10", "\\boxed{10 \\text{ inches}}", 1.f));
  EXPECT_TRUE(scores("10\\text{ inches}", "\\boxed{10}", 1.f));
  EXPECT_TRUE(scores("12", "\\boxed{12 \\mbox{ cm}^2}", 1.f));
  EXPECT_TRUE(scores("7", "#### 7 apples", 1.f));
  EXPECT_TRUE(scores("12", "\\boxed{10 \\text{ inches}}", 0.f, "wrong_value"));
  EXPECT_TRUE(scores("2x", "\\boxed{2 xy}", 0.f, "wrong_value"));  // "xy" is no unit
}

TEST(MathVerifierTest, SizingSpacingAndTrailingPunctuationAreIgnored) {
  EXPECT_TRUE(scores("(1,2)", "\\boxed{\\left( 1,\\; 2 \\right)}", 1.f));
  EXPECT_TRUE(scores("\\frac12", "\\boxed{\\displaystyle\\frac{1}{2}}.", 1.f));
  EXPECT_TRUE(scores("5", "\\boxed{~5~}", 1.f));
  EXPECT_TRUE(scores("\\sin x", "\\boxed{\\sin\\,x}", 1.f));
  EXPECT_TRUE(scores("|x|", "\\boxed{\\left\\lvert x \\right\\rvert}", 1.f));
}

TEST(MathVerifierTest, EquationAnswerStandsForItsValue) {
  EXPECT_TRUE(scores("3", "\\boxed{x = 3}", 1.f));
  EXPECT_TRUE(scores("3", "so $x=3$", 1.f));
  EXPECT_TRUE(scores("5", "\\boxed{2 + 3 = 5}", 1.f));
  EXPECT_TRUE(scores("3", "\\boxed{x = 4}", 0.f, "wrong_value"));
  EXPECT_TRUE(scores("x = 3", "\\boxed{3}", 1.f));
  EXPECT_TRUE(scores("y = 2x + 3", "\\boxed{2x + 3}", 0.f, "wrong_value"));
}

TEST(MathVerifierTest, SurdsAreComparedExactly) {
  EXPECT_TRUE(equivalent("3\\sqrt{13}", "\\sqrt{117}"));
  EXPECT_TRUE(equivalent("\\sqrt{12}", "2\\sqrt3"));
  EXPECT_TRUE(different("3\\sqrt{13}", "\\sqrt{118}"));
  EXPECT_TRUE(different("3\\sqrt{13}", "13\\sqrt{3}"));
}

TEST(MathVerifierTest, GoldenRatioWrittenTwoWays) {
  EXPECT_TRUE(equivalent("\\frac{1+\\sqrt5}{2}", "\\frac{2}{\\sqrt{5}-1}"));
  EXPECT_TRUE(different("\\frac{1+\\sqrt5}{2}", "\\frac{1-\\sqrt5}{2}"));
}

TEST(MathVerifierTest, NthRootsOfNegativesAreReal) {
  EXPECT_TRUE(equivalent("\\sqrt[3]{-8}", "-2"));
  EXPECT_TRUE(equivalent("\\sqrt[3]{2}", "2^{1/3}"));
  EXPECT_TRUE(different("\\sqrt[3]{2}", "\\sqrt{2}"));
}

TEST(MathVerifierTest, PolynomialIdentitiesHold) {
  EXPECT_TRUE(equivalent("x^2-1", "(x-1)(x+1)"));
  EXPECT_TRUE(equivalent("(a+b)^2", "a^2+2ab+b^2"));
  EXPECT_TRUE(different("x^2-1", "(x-1)^2"));
  EXPECT_TRUE(different("x^2-1", "y^2-1"));
  EXPECT_TRUE(equivalent("\\frac{x^2-1}{x-1}", "x+1"));
}

TEST(MathVerifierTest, ProductsWrittenAnyWay) {
  EXPECT_TRUE(equivalent("2x", "2 \\cdot x"));
  EXPECT_TRUE(equivalent("2x", "x \\times 2"));
  EXPECT_TRUE(equivalent("2x", "x*2"));
  EXPECT_TRUE(equivalent("6", "2(3)"));
  EXPECT_TRUE(scores("6", "\\boxed{2 3}", 0.f, "unparsable"));  // two numbers, no product
}

TEST(MathVerifierTest, PiAndEAreConstants) {
  EXPECT_TRUE(equivalent("2\\pi", "\\pi \\cdot 2"));
  EXPECT_TRUE(equivalent("e^2", "e \\cdot e"));
  EXPECT_TRUE(equivalent("\\pi r^2", "r^2\\pi"));
  EXPECT_TRUE(different("\\pi", "3"));
}

TEST(MathVerifierTest, ImaginaryUnit) {
  EXPECT_TRUE(equivalent("3+4i", "4i+3"));
  EXPECT_TRUE(equivalent("i^2", "-1"));
  EXPECT_TRUE(different("2i", "2"));
}

TEST(MathVerifierTest, InfinityHasASign) {
  EXPECT_TRUE(equivalent("\\infty", "\\infty"));
  EXPECT_TRUE(different("-\\infty", "\\infty"));
}

TEST(MathVerifierTest, TrigAndLogIdentitiesHoldNumerically) {
  EXPECT_TRUE(equivalent("\\sin(\\pi/12)", "\\frac{\\sqrt6-\\sqrt2}{4}"));
  EXPECT_TRUE(equivalent("\\log_2 8", "3"));
  EXPECT_TRUE(equivalent("\\ln(e^3)", "3"));
  EXPECT_TRUE(equivalent("\\sin^2 x + \\cos^2 x", "1"));
  EXPECT_TRUE(equivalent("\\sin^{-1}(1/2)", "\\frac{\\pi}{6}"));
  EXPECT_TRUE(different("\\sin x", "\\cos x"));
  EXPECT_TRUE(different("\\log_2 8", "\\log_2 9"));
}

TEST(MathVerifierTest, BinomialsAndFactorials) {
  EXPECT_TRUE(equivalent("\\binom{5}{2}", "10"));
  EXPECT_TRUE(equivalent("{6 \\choose 3}", "\\dbinom{6}{3}"));
  EXPECT_TRUE(equivalent("5!", "120"));
  EXPECT_TRUE(different("5!", "24"));
  // Symbolic: no algebra proves it, the Gamma function at three points does.
  EXPECT_TRUE(equivalent("n!", "n \\cdot (n-1)!"));
  EXPECT_TRUE(different("n!", "(n+1)!"));
}

TEST(MathVerifierTest, ToleranceOnlyForDecimalsAgainstIrrationals) {
  // relative_tolerance 1e-6: 1.41421356 is within 2e-9 of sqrt 2, 1.414 within 1.5e-4.
  EXPECT_TRUE(scores("\\sqrt{2}", "\\boxed{1.41421356}", 1.f));
  EXPECT_TRUE(scores("\\sqrt{2}", "\\boxed{1.414}", 0.f, "wrong_value"));
  EXPECT_TRUE(scores("\\pi", "\\boxed{3.1415926536}", 1.f));
  EXPECT_TRUE(scores("\\frac{\\pi}{2}", "\\boxed{1.5708}", 0.f, "wrong_value"));
  // Exact expressions that agree to 20 digits but differ are different.
  EXPECT_TRUE(different("\\sqrt{10^{20}+1}", "10^{10}"));
}

TEST(MathVerifierTest, ToleranceIsConfigurable) {
  math_verifier_config cfg;
  cfg.relative_tolerance = 1e-3;
  const math_verifier loose(cfg);
  EXPECT_EQ(loose.verify(test::math_item("\\sqrt{2}"), "\\boxed{1.414}").reward, 1.f);
  EXPECT_EQ(loose.verify(test::math_item("\\sqrt{2}"), "\\boxed{1.41}").reason, "wrong_value");
}

TEST(MathVerifierTest, PlusMinusIsTwoValues) {
  EXPECT_TRUE(scores("\\frac{1\\pm\\sqrt5}{2}",
                     "\\boxed{\\frac{1+\\sqrt5}{2}, \\frac{1-\\sqrt5}{2}}", 1.f));
  EXPECT_TRUE(scores("\\frac{1+\\sqrt5}{2}, \\frac{1-\\sqrt5}{2}",
                     "\\boxed{\\frac{1\\pm\\sqrt5}{2}}", 1.f));
  EXPECT_TRUE(scores("\\frac{1\\pm\\sqrt5}{2}", "\\boxed{\\frac{1+\\sqrt5}{2}}", 0.f,
                     "wrong_value"));
  EXPECT_TRUE(scores("2 \\pm 1", "\\boxed{\\{3, 1\\}}", 1.f));
}

TEST(MathVerifierTest, ColonIsARatio) {
  EXPECT_TRUE(equivalent("3:4", "\\frac{3}{4}"));
  EXPECT_TRUE(equivalent("3:4", "0.75"));
  EXPECT_TRUE(equivalent("3:4", "3 : 4"));
  EXPECT_TRUE(different("3:4", "4:3"));
  // Two ratios compare as written: a clock time is not reduced.
  EXPECT_TRUE(different("3:4", "6:8"));
  EXPECT_TRUE(different("3:30", "1:10"));
  EXPECT_TRUE(different("3:30 \\text{ pm}", "1:10 \\text{ pm}"));
  EXPECT_TRUE(scores("V_{1}:V_{2}=11:21", "$11:21$", 1.f));
  EXPECT_TRUE(scores("S_{MBCN}:S=7:32", "\\boxed{7:32}", 1.f));
  EXPECT_TRUE(scores("A:B=1", "$$1$$", 1.f));
  EXPECT_TRUE(scores("A:B=1", "$$2$$", 0.f, "wrong_value"));
  EXPECT_TRUE(scores("3:4", "\\boxed{x := 3}", 0.f, "unparsable"));  // ":=" is no ratio
}

TEST(MathVerifierTest, NumbersSideBySideAreNoWholeAnswer) {
  EXPECT_TRUE(scores("2", "4 4/9 2", 1.f));  // the last number, as the reference verifier
  EXPECT_TRUE(scores("4 4/9", "4 4/9 2", 0.f, "wrong_value"));
  EXPECT_TRUE(scores("\\frac{40}{9}", "4 4/9", 1.f));  // a mixed number stays whole
  EXPECT_TRUE(scores("1000", "1 000", 1.f));           // and so do thousands groups
}

TEST(MathVerifierTest, BaseNumeralsAreKeptAsWritten) {
  EXPECT_TRUE(equivalent("1011_2", "1011_{2}"));
  EXPECT_TRUE(different("1011_2", "11"));  // the question asked for base 2
}

TEST(MathVerifierTest, ValuelessAnswerIsUnparsable) {
  EXPECT_TRUE(scores("3", "\\boxed{\\frac{3}{0}}", 0.f, "unparsable"));
  EXPECT_TRUE(scores("3", "\\boxed{\\log 0}", 0.f, "unparsable"));
  EXPECT_TRUE(scores("3", "\\boxed{(1, 2) + 1}", 0.f, "unparsable"));
  EXPECT_TRUE(scores("3", "\\boxed{\\frac{a}{}", 0.f, "no_answer"));  // the box never closes
  EXPECT_TRUE(scores("3", "\\boxed{3 +}", 0.f, "unparsable"));
  // Refused before GiNaC, which throws (and leaks) on these.
  EXPECT_TRUE(scores("3", "\\boxed{0^0}", 0.f, "unparsable"));
  EXPECT_TRUE(scores("3", "\\boxed{\\tan\\frac{\\pi}{2}}", 0.f, "unparsable"));
  EXPECT_TRUE(scores("3", "\\boxed{\\arctan(i)}", 0.f, "unparsable"));
  EXPECT_TRUE(scores("0", "\\boxed{\\cot\\frac{\\pi}{2}}", 1.f));  // cos/sin: no pole
}

}  // namespace
}  // namespace adarl
