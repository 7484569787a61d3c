#include "tasks/python_verifier.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

namespace adarl {
namespace {

task_item sum_item() {
  task_item item;
  item.prompt = "Read two integers and print their sum.";
  item.verifier = "python";
  item.tests = R"({"cases": [{"input": "1 2\n", "output": "3"},
                            {"input": "-5 5", "output": "0\n"},
                            {"input": "100 23\n", "output": " 123 "}]})";
  return item;
}

class PythonVerifierTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!python_runner().available()) GTEST_SKIP() << "python3 not found";
  }
};

TEST_F(PythonVerifierTest, AnyCorrectProgramPassesEveryCase) {
  const python_verifier v;
  EXPECT_EQ(v.name(), "python");
  const verdict fenced =
      v.verify(sum_item(),
               "Here:\n```python\na, b = map(int, input().split())\nprint(a + b)\n```\n");
  EXPECT_EQ(fenced.reward, 1.f) << fenced.reason;
  const verdict other = v.verify(
      sum_item(), "import sys\nprint(sum(int(t) for t in sys.stdin.read().split()))");
  EXPECT_EQ(other.reward, 1.f) << other.reason;
}

TEST_F(PythonVerifierTest, FailuresGetZeroWithTheirReason) {
  python_config c;
  c.timeout = std::chrono::milliseconds(1000);  // ample under a loaded ctest -j
  const python_verifier v(c);
  struct expectation {
    std::string completion;
    const char* reason;
  };
  for (const auto& [completion, reason] : {
           expectation{"a, b = map(int, input().split())\nprint(a - b)", "wrong_output"},
           expectation{"print(3)", "wrong_output"},  // right on the first case only
           expectation{"print(1/0)", "crashed"},
           expectation{"import sys\nprint(3)\nsys.exit(1)", "crashed"},
           expectation{"while True: pass", "timeout"},
           expectation{"x = bytearray(1024 ** 3)", "memory_limit"},
           expectation{"while True: print('y' * 100)", "output_limit"},
           expectation{"```\n```", "no_program"},
           expectation{[] {
                         std::string big;
                         while (big.size() <= 100000) big += "x = 1\n";
                         return big;
                       }(),
                       "size_limit"},
       }) {
    const verdict r = v.verify(sum_item(), completion);
    EXPECT_EQ(r.reward, 0.f) << completion.substr(0, 60);
    EXPECT_EQ(r.reason, reason) << completion.substr(0, 60);
  }
}

TEST_F(PythonVerifierTest, MalformedTestsAreBadTests) {
  const python_verifier v;
  task_item item = sum_item();
  for (const char* tests :
       {"", "{}", R"({"cases": []})", R"({"cases": [{"input": "1"}]})",
        R"({"cases": [{"output": 3}]})", R"({"cases": [[1, 2]]})"}) {
    item.tests = tests;
    EXPECT_EQ(v.verify(item, "print(3)").reason, "bad_tests") << tests;
  }
  item.tests = R"({"cases": [{"output": "ok"}]})";  // stdin may be omitted
  EXPECT_EQ(v.verify(item, "print('ok')").reward, 1.f);
}

// HumanEval's and MBPP's tests (issue 37): a test program run after the completion.
TEST_F(PythonVerifierTest, HumanEvalChecksAndMbppAssertsRunAfterTheProgram) {
  python_config c;
  c.timeout = std::chrono::milliseconds(2000);
  const python_verifier v(c);
  task_item he;
  he.verifier = "python";
  he.prompt = "def add(a, b):\n    \"\"\"The sum of a and b.\"\"\"\n";
  he.tests = R"({"check": "def check(candidate):\n    assert candidate(1, 2) == 3\n    assert candidate(-4, 4) == 0\n", "entry_point": "add", "prefix": "def add(a, b):\n    \"\"\"The sum of a and b.\"\"\"\n"})";
  EXPECT_EQ(v.check_reference(he), "");
  // A body-only completion continues the prompt; its first line keeps its indentation.
  const verdict body = v.verify(he, "    return a + b\n");
  EXPECT_EQ(body.reward, 1.f) << body.reason;
  const verdict fenced = v.verify(he, "Sure:\n```python\ndef add(a, b):\n    return b + a\n```");
  EXPECT_EQ(fenced.reward, 1.f) << fenced.reason;
  EXPECT_EQ(v.verify(he, "    return a - b\n").reason, "wrong_output");
  EXPECT_EQ(v.verify(he, "    raise ValueError('no')\n").reason, "crashed");
  task_item mbpp;
  mbpp.verifier = "python";
  mbpp.tests = R"(["assert square(3) == 9", "assert square(-2) == 4"])";
  EXPECT_EQ(v.verify(mbpp, "def square(x):\n    return x * x").reward, 1.f);
  EXPECT_EQ(v.verify(mbpp, "def square(x):\n    return 2 * x").reason, "wrong_output");
  mbpp.tests = R"({"asserts": ["assert root(9) == 3"], "setup": "import math"})";
  EXPECT_EQ(v.verify(mbpp, "def root(x):\n    return math.isqrt(x)").reward, 1.f);
  // Not test programs: bad_tests, and check_reference says why before a run.
  for (const char* tests : {R"({"check": "assert True", "entry_point": "f"})",
                            R"({"check": "def check(c): pass"})", R"([1, 2])", R"([])",
                            R"({"asserts": "assert x"})"}) {
    he.tests = tests;
    EXPECT_EQ(v.verify(he, "    return 1").reason, "bad_tests") << tests;
    EXPECT_NE(v.check_reference(he), "") << tests;
  }
}

TEST(PythonVerifierUnavailableTest, EveryVerifyIsZeroWithPythonUnavailable) {
  python_config c;
  c.interpreter = "/nonexistent/python3";
  const python_verifier v(c);
  for (const char* completion : {"print(3)", "", "```\nprint(1)\n```"}) {
    const verdict r = v.verify(sum_item(), completion);
    EXPECT_EQ(r.reward, 0.f);
    EXPECT_EQ(r.reason, "python_unavailable");
  }
}

}  // namespace
}  // namespace adarl
