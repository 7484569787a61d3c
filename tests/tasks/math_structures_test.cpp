// Tuples, sets, lists, intervals, unions, inequalities, equations, matrices, text
// answers and whole-solution references (math/math_equivalence.hpp).
#include <gtest/gtest.h>

#include "math/math_limits.hpp"
#include "tests/tasks/math_test_util.hpp"

namespace adarl {
namespace {

using test::different;
using test::equivalent;
using test::math_item;
using test::scores;

TEST(MathVerifierTest, TuplesAreOrdered) {
  EXPECT_TRUE(equivalent("(1, 2)", "(1,2)"));
  EXPECT_TRUE(equivalent("(\\frac12, -3)", "(0.5, -3)"));
  EXPECT_TRUE(different("(1, 2)", "(2, 1)"));
  EXPECT_TRUE(different("(1, 2)", "(1, 2, 3)"));
  EXPECT_TRUE(scores("(1, 2)", "\\boxed{1, 2}", 0.f, "wrong_value"));  // a list is unordered
}

TEST(MathVerifierTest, SetsAndListsIgnoreOrder) {
  EXPECT_TRUE(equivalent("\\{1,2,3\\}", "\\{3,1,2\\}"));
  EXPECT_TRUE(different("\\{1,2,3\\}", "\\{1,2\\}"));
  EXPECT_TRUE(equivalent("1, 2, 3", "3, 2, 1"));
  EXPECT_TRUE(scores("1, 2", "\\boxed{\\{2, 1\\}}", 1.f));
  EXPECT_TRUE(scores("\\{1, 2\\}", "\\boxed{2 \\text{ and } 1}", 1.f));
  EXPECT_TRUE(scores("x = 1, x = 2", "\\boxed{2, 1}", 1.f));
  EXPECT_TRUE(equivalent("\\emptyset", "\\{\\}"));
  EXPECT_TRUE(different("\\{1\\}", "\\emptyset"));
}

TEST(MathVerifierTest, IntervalsKeepEndsAndOpenness) {
  EXPECT_TRUE(equivalent("[0,1)", "[0, 1)"));
  EXPECT_TRUE(equivalent("(0, \\frac12]", "(0, 0.5]"));
  EXPECT_TRUE(different("[0,1)", "[0,1]"));
  EXPECT_TRUE(different("[0,1)", "(0,1)"));
  EXPECT_TRUE(different("[2,5)", "[2,6)"));
}

TEST(MathVerifierTest, LastNumberOfAnIntervalIsNotItsValue) {
  EXPECT_TRUE(scores("[0,1)", "so the answer is 1", 0.f, "wrong_value"));
  EXPECT_TRUE(scores("[0,1)", "The answer is [0,1).", 1.f));
  // "-[0,1)" has no value: the reference is refused, never read as its last number 1.
  EXPECT_TRUE(scores("-[0,1)", "\\boxed{1}", 0.f, "bad_reference"));
  EXPECT_NE(math_verifier{}.check_reference(math_item("-[0,1)")), "");
}

TEST(MathVerifierTest, UnionsIgnoreTheOrderOfPieces) {
  EXPECT_TRUE(equivalent("(-\\infty,1)\\cup(3,\\infty)", "(3,\\infty)\\cup(-\\infty,1)"));
  EXPECT_TRUE(different("(-\\infty,1)\\cup(3,\\infty)", "(-\\infty,1]\\cup(3,\\infty)"));
  EXPECT_TRUE(different("(-\\infty,1)\\cup(3,\\infty)", "(-\\infty,1)"));
  EXPECT_TRUE(equivalent("(-\\infty, 0) \\cup \\{2\\}", "\\{2\\} \\cup (-\\infty, 0)"));
}

TEST(MathVerifierTest, InequalityReferenceAcceptsTheEquivalentInterval) {
  EXPECT_TRUE(scores("x \\geq 5", "\\boxed{[5,\\infty)}", 1.f));
  EXPECT_TRUE(scores("x > 5", "\\boxed{[5,\\infty)}", 0.f, "wrong_value"));
  EXPECT_TRUE(scores("1 < x \\le 3", "\\boxed{(1, 3]}", 1.f));
  EXPECT_TRUE(scores("-2 \\leq x < 0", "\\boxed{[-2, 0)}", 1.f));
  EXPECT_TRUE(scores("x < 1 \\text{ or } x > 3", "\\boxed{(-\\infty,1)\\cup(3,\\infty)}", 1.f));
  EXPECT_TRUE(scores("x \\ne 2", "\\boxed{(-\\infty,2)\\cup(2,\\infty)}", 1.f));
  EXPECT_TRUE(scores("x \\le 4", "\\boxed{(-\\infty, 4)}", 0.f, "wrong_value"));
}

TEST(MathVerifierTest, BoundsOfANameThatIsNoVariableAreAnInterval) {
  EXPECT_TRUE(scores("0<f(x)<1", "\\boxed{(0,1)}", 1.f));
  EXPECT_TRUE(scores("0<f(x)<1", "\\boxed{(0,2)}", 0.f, "wrong_value"));
  EXPECT_TRUE(scores("0<f(x)<1", "\\boxed{[0,1)}", 0.f, "wrong_value"));
  // Another name, or a variable, with the same bounds states something else.
  EXPECT_TRUE(scores("0<f(x)<1", "\\boxed{0<g(x)<1}", 0.f, "wrong_value"));
  EXPECT_TRUE(scores("0<f(x)<1", "\\boxed{0<x<1}", 0.f, "wrong_value"));
  EXPECT_TRUE(scores("0<2x<1", "\\boxed{(0,1)}", 0.f, "wrong_value"));  // 2x is no name
}

TEST(MathVerifierTest, ChainsOfOneRelationCompareSideBySide) {
  EXPECT_TRUE(scores("f(2) < f(1) < f(4)", "so \\boxed{f(2) < f(1) < f(4)}.", 1.f));
  EXPECT_TRUE(scores("a < b \\le c", "\\boxed{a<b\\leq c}", 1.f));
  EXPECT_TRUE(scores("f(2) < f(1) < f(4)", "\\boxed{f(1) < f(2) < f(4)}", 0.f, "wrong_value"));
  EXPECT_TRUE(scores("a < b \\le c", "\\boxed{a < b < c}", 0.f, "wrong_value"));
}

TEST(MathVerifierTest, IntervalReferenceDoesNotAcceptAnInequality) {
  EXPECT_TRUE(scores("[5,\\infty)", "\\boxed{x \\ge 5}", 0.f, "wrong_value"));
  EXPECT_TRUE(scores("(1, 3]", "\\boxed{1 < x \\le 3}", 0.f, "wrong_value"));
  EXPECT_TRUE(scores("[1, 3]", "\\boxed{x \\in [1, 3]}", 1.f));  // membership names the set
}

TEST(MathVerifierTest, InequalitiesOfTheSameVariableWrittenEitherWay) {
  EXPECT_TRUE(scores("x \\ge 5", "\\boxed{5 \\le x}", 1.f));
  EXPECT_TRUE(scores("x \\ge 5", "\\boxed{x \\geq 5}", 1.f));
  EXPECT_TRUE(scores("x \\ge 5", "\\boxed{y \\ge 5}", 0.f, "wrong_value"));
  EXPECT_TRUE(scores("x \\ge 5", "\\boxed{x \\ge 6}", 0.f, "wrong_value"));
  EXPECT_TRUE(scores("3 > x > 1", "\\boxed{1 < x < 3}", 1.f));
}

TEST(MathVerifierTest, EquationsAreEqualUpToAFactor) {
  EXPECT_TRUE(scores("y = 2x + 3", "\\boxed{y = 3 + 2x}", 1.f));
  EXPECT_TRUE(scores("y = 2x + 3", "\\boxed{2y = 4x + 6}", 1.f));
  EXPECT_TRUE(scores("x^2 + y^2 = 4", "\\boxed{y^2 = 4 - x^2}", 1.f));
  EXPECT_TRUE(scores("y = 2x + 3", "\\boxed{y = 2x + 4}", 0.f, "wrong_value"));
  EXPECT_TRUE(scores("y = 2x + 3", "\\boxed{y = 3x + 2}", 0.f, "wrong_value"));
}

TEST(MathVerifierTest, MatricesCompareShapeAndElements) {
  const std::string p = "\\begin{pmatrix} 1 & 2 \\\\ 3 & 4 \\end{pmatrix}";
  EXPECT_TRUE(equivalent(p, "\\begin{bmatrix}1&2\\\\3&4\\end{bmatrix}"));
  EXPECT_TRUE(equivalent(p, "\\begin{pmatrix} \\frac22 & 2 \\\\ 3 & 2^2 \\end{pmatrix}"));
  EXPECT_TRUE(different(p, "\\begin{pmatrix} 1 & 2 \\\\ 4 & 3 \\end{pmatrix}"));
  EXPECT_TRUE(different(p, "\\begin{pmatrix} 1 & 2 & 3 & 4 \\end{pmatrix}"));
  EXPECT_TRUE(different("\\begin{pmatrix} 1 \\\\ 2 \\end{pmatrix}", "(1, 2)"));
  EXPECT_TRUE(scores(p, "\\boxed{\\begin{vmatrix} 1 & 2 \\\\ 3 & 4 \\end{vmatrix}}", 0.f,
                     "unparsable"));  // a determinant is not a matrix
}

std::string pmatrix(const std::string& rows) {
  return "\\begin{pmatrix}" + rows + "\\end{pmatrix}";
}

TEST(MathVerifierTest, MatrixSumsAndProductsAreTheMatrixTheyDenote) {
  const std::string a = pmatrix("1 & 2 \\\\ 3 & 4"), b = pmatrix("5 & 6 \\\\ 7 & 8");
  EXPECT_TRUE(scores(pmatrix("6 & 8 \\\\ 10 & 12"), "The sum is $" + a + " + " + b + "$", 1.f));
  EXPECT_TRUE(scores(pmatrix("-4 & -4 \\\\ -4 & -4"), "$" + a + " - " + b + "$", 1.f));
  EXPECT_TRUE(scores(pmatrix("19 & 22 \\\\ 43 & 50"), "$" + a + " " + b + "$", 1.f));
  EXPECT_TRUE(scores(pmatrix("19 & 22 \\\\ 43 & 50"), "$" + a + " \\cdot " + b + "$", 1.f));
  // Matrix products do not commute.
  EXPECT_TRUE(scores(pmatrix("19 & 22 \\\\ 43 & 50"), "$" + b + " " + a + "$", 0.f,
                     "wrong_value"));
  EXPECT_TRUE(scores(pmatrix("11"), "$" + pmatrix("1 & 2") + pmatrix("3 \\\\ 4") + "$", 1.f));
  EXPECT_TRUE(scores(pmatrix("6 & 8 \\\\ 10 & 12"), "$" + a + " + " + pmatrix("5 & 6") + "$",
                     0.f, "unparsable"));  // shapes differ
  EXPECT_TRUE(scores(pmatrix("11"), "$" + pmatrix("3 \\\\ 4") + pmatrix("3 \\\\ 4") + "$", 0.f,
                     "unparsable"));
  // Each product adds nodes: a chain within the length limit is past the node limit.
  std::string chain;
  for (int k = 0; k < 26; ++k) chain += pmatrix("1&2\\\\3&4");
  ASSERT_LT(chain.size(), math_limits{}.max_answer_chars);
  EXPECT_TRUE(scores(pmatrix("1 & 0 \\\\ 0 & 1"), "$" + chain + "$", 0.f, "too_complex"));
}

TEST(MathVerifierTest, TextAnswersIgnoreCaseAndBlanks) {
  EXPECT_TRUE(scores("\\text{odd}", "The answer is Odd.", 1.f));
  EXPECT_TRUE(scores("\\text{New York}", "\\boxed{new york}", 1.f));
  EXPECT_TRUE(scores("Tuesday", "\\boxed{\\textbf{tuesday}}", 1.f));
  EXPECT_TRUE(scores("\\text{odd}", "\\boxed{\\text{even}}", 0.f, "wrong_value"));
  EXPECT_TRUE(scores("\\text{(B)}", "The answer is (B).", 1.f));
  EXPECT_TRUE(scores("B", "\\boxed{\\text{(B)}}", 1.f));
  EXPECT_TRUE(scores("\\text{(B)}", "\\boxed{C}", 0.f, "wrong_value"));
}

TEST(MathVerifierTest, TextAnswerToAMathReferenceIsUnparsable) {
  EXPECT_TRUE(scores("5", "\\boxed{five}", 0.f, "unparsable"));
  EXPECT_TRUE(scores("x^2", "\\boxed{x squared}", 0.f, "unparsable"));
}

TEST(MathVerifierTest, WholeSolutionReferencesAreReadLikeCompletions) {
  EXPECT_TRUE(scores("The answer is \\boxed{1}", "so 1", 1.f));
  EXPECT_TRUE(scores("We get $x = \\boxed{\\frac{1}{2}}$.", "\\boxed{0.5}", 1.f));
  EXPECT_TRUE(scores("She sold 48/2 = <<48/2=24>>24 clips.\nIn all 48+24 = 72.\n#### 72",
                     "#### 72", 1.f));
  EXPECT_TRUE(scores("She sold 24 clips in May and 72 in all.", "#### 72", 0.f,
                     "bad_reference"));
  EXPECT_NE(math_verifier{}.check_reference(math_item("She sold 24 clips and 72 in all.")), "");
}

TEST(MathVerifierTest, ReferenceOfJoinedMathSpansIsAList) {
  EXPECT_TRUE(scores("$1$ and $2$ and $3$", "\\boxed{1,2,3}", 1.f));
  EXPECT_TRUE(scores("$21,16$ or $11$", "$21,16,11$", 1.f));
  EXPECT_TRUE(scores("$1$ and $2$ and $3$", "\\boxed{3}", 0.f, "wrong_value"));
  EXPECT_TRUE(scores("$1$ and $2$ and $3$", "\\boxed{1,2}", 0.f, "wrong_value"));
  // Spans in a sentence are no list: the last one states the answer.
  EXPECT_TRUE(scores("The value of $x$ is $5$", "\\boxed{5}", 1.f));
}

TEST(MathVerifierTest, ListOfDefinitionsAcceptsTheirExpressions) {
  const std::string reference = "y_{1}=-2 x^{2}+4 x+3, y_{2}=3 x^{2}+12 x+10";
  EXPECT_TRUE(scores(reference, "\\boxed{-2(x - 1)^2 + 5} and \\boxed{3(x + 2)^2 - 2}", 1.f));
  EXPECT_TRUE(scores(reference, "\\boxed{-2(x - 1)^2 + 5, 3(x + 2)^2 + 2}", 0.f, "wrong_value"));
  EXPECT_TRUE(scores(reference, "\\boxed{-2(x - 1)^2 + 5}", 0.f, "wrong_value"));
  // A variable defined by itself is an equation to solve, not a value.
  EXPECT_TRUE(scores("y = 2y - 1, z = 2", "\\boxed{2y - 1, 2}", 0.f, "wrong_value"));
  // Alone, an equation still needs an equation (EquationAnswerStandsForItsValue).
  EXPECT_TRUE(scores("y = 2x + 3", "\\boxed{2x + 3}", 0.f, "wrong_value"));
}

TEST(MathVerifierTest, ValuelessReferenceMatchesItsOwnSpellingOnly) {
  EXPECT_TRUE(scores("$12:00$", "$12:00$", 1.f));
  EXPECT_TRUE(scores("$12:00$", "$1:00$", 0.f, "wrong_value"));  // times as written
  EXPECT_TRUE(scores("\\zzz", "\\boxed{\\zzz}", 1.f));
  EXPECT_TRUE(scores("\\zzz", "\\boxed{\\zzy}", 0.f, "bad_reference"));
  EXPECT_TRUE(scores("\\zzz", "\\boxed{0}", 0.f, "bad_reference"));
  EXPECT_TRUE(scores("\\frac{1}{0}", "\\boxed{\\frac{1}{0}}", 1.f));
  EXPECT_TRUE(scores("\\frac{1}{0}", "\\boxed{\\frac{2}{0}}", 0.f, "bad_reference"));
}

TEST(MathVerifierTest, CheckReferenceAcceptsWhatVerifyCanUse) {
  const math_verifier v;
  for (const char* good : {"42", "\\frac{1+\\sqrt5}{2}", "[0, 1)", "x \\ge 5", "\\text{odd}",
                           "The answer is \\boxed{1}", "#### 72", "(1, 2)", "Monday"}) {
    EXPECT_EQ(v.check_reference(math_item(good)), "") << good;
  }
  EXPECT_NE(v.check_reference(math_item("")), "");
  EXPECT_NE(v.check_reference(math_item("\\frac{1}{0}")), "");
  EXPECT_NE(v.check_reference(math_item("10^{10^{10}}")), "");
  EXPECT_NE(v.check_reference(math_item("\\frac{1}{")), "");
}

}  // namespace
}  // namespace adarl
