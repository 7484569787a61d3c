#include "math/math_latex_parser.hpp"

#include <gtest/gtest.h>

#include <string>

namespace adarl {
namespace {

math_parse_result parse(const std::string& text, math_limits limits = {}) {
  return parse_math_latex(text, limits);
}

math_kind root_kind(const std::string& text) {
  const auto r = parse(text);
  EXPECT_EQ(r.status, math_parse_status::ok) << text;
  return r.status == math_parse_status::ok ? r.ast.top().kind : math_kind::text;
}

TEST(MathLatexParserTest, ShapesOfTheRoot) {
  EXPECT_EQ(root_kind("\\frac{1}{2}"), math_kind::divide);
  EXPECT_EQ(root_kind("1 + 2"), math_kind::add);
  EXPECT_EQ(root_kind("(1, 2)"), math_kind::tuple);
  EXPECT_EQ(root_kind("[1, 2)"), math_kind::interval);
  EXPECT_EQ(root_kind("\\{1, 2\\}"), math_kind::set);
  EXPECT_EQ(root_kind("1, 2"), math_kind::list);
  EXPECT_EQ(root_kind("[0,1] \\cup [2,3]"), math_kind::set_union);
  EXPECT_EQ(root_kind("1 < x \\le 2"), math_kind::relation);
  EXPECT_EQ(root_kind("\\begin{pmatrix} 1 & 2 \\end{pmatrix}"), math_kind::matrix);
  EXPECT_EQ(root_kind("\\text{odd}"), math_kind::text);
  EXPECT_EQ(root_kind("(5)"), math_kind::number);
  EXPECT_EQ(root_kind("5!"), math_kind::factorial);
  EXPECT_EQ(root_kind("\\sqrt[3]{x}"), math_kind::root);
  EXPECT_EQ(root_kind("\\sin^2 x"), math_kind::power);
}

TEST(MathLatexParserTest, RelationOpsAndIntervalBracketsAreRecorded) {
  const auto r = parse("1 < x \\le 2");
  ASSERT_EQ(r.status, math_parse_status::ok);
  EXPECT_EQ(r.ast.top().text, "<l");
  EXPECT_EQ(r.ast.top().kids.size(), 3u);
  const auto i = parse("(0, 1]");
  ASSERT_EQ(i.status, math_parse_status::ok);
  EXPECT_EQ(i.ast.top().text, "(]");
  const auto m = parse("\\begin{bmatrix} 1 & 2 & 3 \\\\ 4 & 5 & 6 \\end{bmatrix}");
  ASSERT_EQ(m.status, math_parse_status::ok);
  EXPECT_EQ(m.ast.top().cols, 3u);
  EXPECT_EQ(m.ast.top().kids.size(), 6u);
}

TEST(MathLatexParserTest, NamesLettersAndWords) {
  const auto r = parse("x_{1}");
  ASSERT_EQ(r.status, math_parse_status::ok);
  EXPECT_EQ(r.ast.top().kind, math_kind::symbol);
  EXPECT_EQ(r.ast.top().text, "x_1");
  EXPECT_EQ(root_kind("xy"), math_kind::multiply);  // two variables
  EXPECT_EQ(root_kind("e"), math_kind::euler);
  EXPECT_EQ(root_kind("\\alpha"), math_kind::symbol);
  EXPECT_EQ(parse("New York").status, math_parse_status::unparsable);  // text, not a product
}

TEST(MathLatexParserTest, DecimalsAreMarked) {
  EXPECT_TRUE(parse("1.5 + x").ast.has_decimal);
  EXPECT_FALSE(parse("3/2 + x").ast.has_decimal);
}

TEST(MathLatexParserTest, RejectsWhatIsNotInTheGrammar) {
  for (const char* bad : {"", "1 +", "(1, 2", "\\frac{1}", "1, 2]", "[1)", "\\foo{1}",
                          "\\begin{pmatrix} 1 & 2 \\\\ 3 \\end{pmatrix}", "x \\approx",
                          "1, \\ldots, n", "|x"}) {
    EXPECT_EQ(parse(bad).status, math_parse_status::unparsable) << bad;
  }
}

TEST(MathLatexParserTest, LimitsAreTooComplex) {
  math_limits small;
  small.max_depth = 5;
  EXPECT_EQ(parse("((((((1))))))", small).status, math_parse_status::too_complex);
  EXPECT_EQ(parse("((1))", small).status, math_parse_status::ok);
  small = {};
  small.max_digits = 5;
  EXPECT_EQ(parse("123456", small).status, math_parse_status::too_complex);
  small = {};
  small.max_nodes = 10;
  EXPECT_EQ(parse("1+1+1+1+1+1+1+1+1+1+1", small).status, math_parse_status::too_complex);
  small = {};
  small.max_elements = 3;
  EXPECT_EQ(parse("\\{1, 2, 3, 4\\}", small).status, math_parse_status::too_complex);
  small = {};
  small.max_answer_chars = 8;
  EXPECT_EQ(parse("123456789", small).status, math_parse_status::too_complex);
}

}  // namespace
}  // namespace adarl
