#include "math/math_extract.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <string>

namespace adarl {
namespace {

std::optional<std::string> found(std::string_view text, extraction how) {
  const auto got = extract_math_answer(text, how);
  return got ? std::optional<std::string>(std::string(*got)) : std::nullopt;
}

TEST(MathExtractTest, BoxAndFboxWithNestedBraces) {
  EXPECT_EQ(found("so \\fbox{3}", extraction::boxed), "3");
  EXPECT_EQ(found("\\fbox{1} then \\boxed{\\frac{1}{2}}", extraction::boxed), "\\frac{1}{2}");
  EXPECT_EQ(found("\\boxed{1} then \\fbox{2}", extraction::boxed), "2");
  EXPECT_EQ(found("\\boxed {x^{2}}", extraction::boxed), "x^{2}");
  EXPECT_EQ(found("\\boxed{\\{1, 2\\}}", extraction::boxed), "\\{1, 2\\}");
  EXPECT_EQ(found("\\boxed 5 is it", extraction::boxed), "5");
  EXPECT_EQ(found("\\boxed{1} and \\boxed{2", extraction::boxed), std::nullopt);
}

TEST(MathExtractTest, AnswerIsTakesTheRestOfTheSentence) {
  EXPECT_EQ(found("So the answer is 42. Done", extraction::answer_is), "42");
  EXPECT_EQ(found("The answer is 3.5\nmore", extraction::answer_is), "3.5");
  EXPECT_EQ(found("Final Answer: The final answer is $\\frac{1}{2}$. I hope it is correct.",
                  extraction::answer_is),
            "\\frac{1}{2}");
  EXPECT_EQ(found("Answer: 7", extraction::answer_is), "7");
  EXPECT_EQ(found("THE ANSWER IS: (B)", extraction::answer_is), "(B)");
  EXPECT_EQ(found("the answer is therefore \\(x=2\\).", extraction::answer_is), "x=2");
  EXPECT_EQ(found("the answer is \\boxed{9} indeed", extraction::answer_is), "9");
  EXPECT_EQ(found("the answers isolated", extraction::answer_is), std::nullopt);
  EXPECT_EQ(found("no marker here", extraction::answer_is), std::nullopt);
}

TEST(MathExtractTest, MathDelimitersTakeTheLastSpan) {
  EXPECT_EQ(found("$x$ and then $y = 3$.", extraction::math_delimiters), "y = 3");
  EXPECT_EQ(found("\\(a\\) then \\[b + 1\\]", extraction::math_delimiters), "b + 1");
  EXPECT_EQ(found("so $$\\frac{1}{2}$$", extraction::math_delimiters), "\\frac{1}{2}");
  EXPECT_EQ(found("$\\text{odd}$", extraction::math_delimiters), "\\text{odd}");
}

TEST(MathExtractTest, PricesAreNotMathSpans) {
  EXPECT_EQ(found("It costs $3 and then $5.", extraction::math_delimiters), std::nullopt);
  EXPECT_EQ(found("\\$5 and \\$6", extraction::math_delimiters), std::nullopt);
  EXPECT_EQ(found("It costs $5.", extraction::math_delimiters), std::nullopt);
  EXPECT_TRUE(reads_as_prose("3 and then "));
  EXPECT_FALSE(reads_as_prose("\\sin x + \\text{cost} = 5"));
  EXPECT_FALSE(reads_as_prose("x = 5 \\text{ apples}"));
}

TEST(MathExtractTest, DefaultOrderPrefersTheStrongestMarker) {
  const std::vector<extraction> order{extraction::boxed, extraction::hashes,
                                      extraction::answer_is, extraction::math_delimiters,
                                      extraction::last_number};
  EXPECT_EQ(extract_first("$1$ the answer is 2 #### 3 \\boxed{4} 5", order), "4");
  EXPECT_EQ(extract_first("$1$ the answer is 2 #### 3 then 5", order), "3 then 5");
  EXPECT_EQ(extract_first("$1$ the answer is 2 then 5", order), "2 then 5");
  EXPECT_EQ(extract_first("$1$ then 5", order), "1");
  EXPECT_EQ(extract_first("then 5", order), "5");
  EXPECT_EQ(extract_first("nothing", order), std::nullopt);
}

TEST(MathExtractTest, BoxesListingOneAnswerAreFoundTogether) {
  EXPECT_EQ(found("so \\boxed{1} and \\boxed{2}.", extraction::boxed), "\\boxed{1} and \\boxed{2}");
  EXPECT_EQ(found("\\boxed{1},\\boxed{2}", extraction::boxed), "\\boxed{1},\\boxed{2}");
  EXPECT_EQ(found("\\boxed{1}\\boxed{2}", extraction::boxed), "\\boxed{1}\\boxed{2}");
  EXPECT_EQ(found("\\boxed{20} so \\boxed{143}", extraction::boxed), "143");
  EXPECT_EQ(found("$$\\boxed{20}$$ \\boxed{143}", extraction::boxed), "143");
  EXPECT_EQ(found("\\boxed{1} no no no no no \\boxed{2}", extraction::boxed), "2");
  EXPECT_TRUE(boxes_joinable(" \\quad \\text{and} \\quad "));
  EXPECT_FALSE(boxes_joinable(", but "));
}

TEST(MathExtractTest, WholeCompletionWhenItIsOneAnswer) {
  EXPECT_EQ(found("\\frac{10}{9}", extraction::whole), "\\frac{10}{9}");
  EXPECT_EQ(found(" $odd$ ", extraction::whole), "odd");
  EXPECT_EQ(found("1 000", extraction::whole), "1 000");
  EXPECT_EQ(found("so 1", extraction::whole), std::nullopt);
  EXPECT_EQ(found("$1$ or $2$", extraction::whole), std::nullopt);
  EXPECT_EQ(found("\\boxed{ } so 7", extraction::whole), std::nullopt);
  EXPECT_EQ(found("1\n2", extraction::whole), std::nullopt);
  EXPECT_EQ(found("4 4/9", extraction::whole), "4 4/9");
  EXPECT_EQ(found("1 000 000", extraction::whole), "1 000 000");
  EXPECT_EQ(found("4 4/9 2", extraction::whole), std::nullopt);  // numbers side by side
  EXPECT_EQ(found("3 5", extraction::whole), std::nullopt);
  EXPECT_EQ(found("1.5 1/2", extraction::whole), std::nullopt);
}

TEST(MathExtractTest, FinalAnswerSentenceGivesTheAnswerInIt) {
  EXPECT_EQ(found("Final Answer: The largest $n$ is 34.", extraction::answer_is), "34");
  EXPECT_EQ(found("Final Answer: The ratio is $\\frac{1}{2}$.", extraction::answer_is), "\\frac{1}{2}");
  EXPECT_EQ(found("Final Answer: She walked 7 miles.", extraction::answer_is), "7");
  EXPECT_EQ(found("Final Answer: Monday", extraction::answer_is), "Monday");
}

TEST(MathExtractTest, ReferenceIsTheWholeTextWithoutAMarker) {
  const std::vector<extraction> order{extraction::boxed, extraction::hashes,
                                      extraction::answer_is, extraction::last_number};
  EXPECT_EQ(extract_reference("\\frac{1}{2}", order), "\\frac{1}{2}");
  EXPECT_EQ(extract_reference("  [0, 1) ", order), "[0, 1)");
  EXPECT_EQ(extract_reference("The answer is \\boxed{1}", order), "1");
  EXPECT_EQ(extract_reference("48/2 = <<48/2=24>>24\n#### 72", order), "72");
}

TEST(MathExtractTest, ReferenceOfJoinedSpansIsFoundWhole) {
  const std::vector<extraction> order{extraction::boxed, extraction::math_delimiters};
  EXPECT_EQ(extract_reference("$1$ and $2$ and $3$", order), "$1$ and $2$ and $3$");
  EXPECT_EQ(extract_reference(" $21,16$ or $$11$$ ", order), "$21,16$ or $$11$$");
  EXPECT_EQ(extract_reference("$x$ is $5$", order), "5");
  EXPECT_EQ(extract_reference("so $1$ and $2$", order), "2");
  EXPECT_EQ(extract_reference("$1$ and $2", order), "1");  // the second never closes
}

}  // namespace
}  // namespace adarl
