#include "tasks/expr_verifier.hpp"

#include <gtest/gtest.h>

#include <string>

namespace adarl {
namespace {

task_item item_with(std::string tests) {
  task_item item;
  item.prompt = "Write an expression in x that maps 1->3, 2->5, 3->7.";
  item.answer = "2*x+1";
  item.verifier = "expr";
  item.tests = std::move(tests);
  return item;
}

const std::string odd_tests =
    R"({"cases": [[1, 3], [2, 5], [3, 7], [-4, -7], [10, 21]]})";

TEST(ExprVerifierTest, ExtractsWholeTextAfterHashesOrFromTheLastFence) {
  EXPECT_EQ(extract_program("  2*x+1 \n"), "2*x+1");
  EXPECT_EQ(extract_program("it doubles, so\n#### 2*x + 1\n"), "2*x + 1");
  EXPECT_EQ(extract_program("#### 1\n#### x+1"), "x+1");
  EXPECT_EQ(extract_program("try ```x``` no:\n```\nx+x+1\n```\nthat's it"), "x+x+1");
  EXPECT_EQ(extract_program("```expr\nx*2\n```"), "x*2");
  EXPECT_EQ(extract_program("```python\nprint(1)\n#### comment\n```"),
            "print(1)\n#### comment");
  EXPECT_EQ(extract_program("```x\n```"), "x");  // a lone line is the program, not a tag
  EXPECT_EQ(extract_program("```x+1```"), "x+1");
  EXPECT_EQ(extract_program("```x``` then #### x+2"), "x+2");  // the later marker wins
  EXPECT_EQ(extract_program("```unclosed x"), "```unclosed x");
  EXPECT_EQ(extract_program(" \n\t"), "");
  EXPECT_EQ(extract_program("####   "), "");
}

TEST(ExprVerifierTest, AnyProgramThatPassesEveryHiddenTestIsRight) {
  const expr_verifier v;
  EXPECT_EQ(v.name(), "expr");
  const task_item item = item_with(odd_tests);
  for (const char* right : {"2*x+1", "x+x+1", "1+2*x", "#### (x+1)*2-1",
                            "```\nif x == 1 then 3 else 2*x+1\n```"}) {
    const verdict r = v.verify(item, right);
    EXPECT_EQ(r.reward, 1.f) << right << ": " << r.reason;
    EXPECT_EQ(r.reason, "");
  }
}

TEST(ExprVerifierTest, WrongProgramsGetZeroWithTheirReason) {
  const expr_verifier v;
  const task_item item = item_with(odd_tests);
  struct expectation {
    const char* completion;
    const char* reason;
  };
  for (const auto& [completion, reason] : {
           expectation{"2*x+2", "wrong_output"},
           // Right on every shown case, wrong on the hidden ones.
           expectation{"if x<4 then 2*x+1 else 0", "wrong_output"},
           expectation{"", "no_program"},
           expectation{"#### ", "no_program"},
           expectation{"2*x+", "parse_error"},
           expectation{"the answer is 2x+1", "parse_error"},
           expectation{"10/(x-1)", "runtime_error"},
           expectation{"x*9223372036854775807*2", "runtime_error"},
           expectation{
               "x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x"
               "+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x",
               "size_limit"},
       }) {
    const verdict r = v.verify(item, completion);
    EXPECT_EQ(r.reward, 0.f) << completion;
    EXPECT_EQ(r.reason, reason) << completion;
  }
}

TEST(ExprVerifierTest, StepLimitFromConfigIsReported) {
  expr_limits lim;
  lim.max_steps = 4;
  const expr_verifier v(lim);
  EXPECT_EQ(v.verify(item_with(odd_tests), "x+x+1").reason, "step_limit");  // 5 nodes
  EXPECT_EQ(v.verify(item_with(odd_tests), "2*x+1").reason, "step_limit");
  EXPECT_EQ(v.verify(item_with(R"({"cases": [[1, 2]]})"), "x+1").reward, 1.f);  // 3 nodes
}

TEST(ExprVerifierTest, MalformedTestsAreBadTestsWhateverTheProgram) {
  const expr_verifier v;
  for (const char* tests :
       {"", "[]", "{}", R"({"cases": []})", R"({"cases": [[1]]})",
        R"({"cases": [[1, 2, 3]]})", R"({"cases": [["1", 2]]})",
        R"({"cases": [[1.5, 2]]})", R"({"cases": [[1, 2]], )",
        R"({"cases": [[1, 9223372036854775808]]})", R"({"cases": {}})"}) {
    const verdict r = v.verify(item_with(tests), "2*x+1");
    EXPECT_EQ(r.reward, 0.f) << tests;
    EXPECT_EQ(r.reason, "bad_tests") << tests;
  }
  EXPECT_EQ(
      v.verify(item_with(R"({"cases": [[-9223372036854775808, 0]]})"), "x-x").reward,
      1.f);
}

}  // namespace
}  // namespace adarl
