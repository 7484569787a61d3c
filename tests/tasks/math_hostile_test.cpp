// Hostile answers end within the budget with a reason, and verify() is safe to call from
// many threads at once (math/math_limits.hpp, math/math_scalar_engine.hpp).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "math/math_scalar_engine.hpp"
#include "tests/tasks/math_test_util.hpp"

namespace adarl {
namespace {

using test::math_item;

struct hostile {
  std::string reference, completion, reason;
};

std::string repeated(const std::string& s, size_t n) {
  std::string out;
  for (size_t i = 0; i < n; ++i) out += s;
  return out;
}

std::vector<hostile> hostile_cases() {
  return {
      {"5", "\\boxed{10^{10^{10}}}", "too_complex"},
      {"5", "\\boxed{2^{2^{2^{2^{2^{2}}}}}}", "too_complex"},
      {"5", "\\boxed{1000!}", "wrong_value"},  // 2568 digits: computed, then compared
      {"5", "\\boxed{(1000!)!}", "too_complex"},
      {"5", "\\boxed{10000!}", "too_complex"},
      {"5", "\\boxed{\\binom{100000}{50000}}", "too_complex"},
      {"5", "\\boxed{(x+y+z+w)^{1000}}", "wrong_value"},  // no expansion: numbers decide
      {"5", "\\boxed{x^{100000}}", "too_complex"},
      {"5", "\\boxed{" + repeated("(", 5000) + "1" + repeated(")", 5000) + "}", "too_complex"},
      {"5", "\\boxed{" + repeated("(", 300) + "1" + repeated(")", 300) + "}", "too_complex"},
      {"5", "\\boxed{" + repeated("\\sqrt{", 200) + "2" + repeated("}", 200) + "}", "too_complex"},
      {"5", "\\boxed{" + repeated("1+", 50000) + "1}", "too_complex"},  // 100 kB
      {"5", repeated("x ", 50000) + "\\boxed{6}", "wrong_value"},        // 100 kB before it
      {"5", "\\boxed{" + std::string(5000, '9') + "}", "too_complex"},
      {"5", "\\boxed{" + repeated("x^", 300) + "2}", "too_complex"},
      {"5", "\\boxed{e^{e^{e^{e^{100}}}}}", "wrong_value"},
      {"5", "\\boxed{\\sin(10^{5000})}", "wrong_value"},
      {"5", "\\boxed{" + repeated("\\pm 1", 10) + "}", "too_complex"},
      {"x", "\\boxed{\\frac{1}{x^{999} - x^{998}}}", "wrong_value"},
      // Found by fuzz_math_latex: floats this large made CLN allocate gigabytes.
      {"x", "\\boxed{" + repeated("(", 6) + "x" + repeated(")!", 6) + "}", "wrong_value"},
      {"5", "\\boxed{\\sin(e^{e^{e^{e^{3}}}})}", "wrong_value"},
      {"5", "\\boxed{2^{2^{4444444444444 x \\log 24}}}", "wrong_value"},
  };
}

// The budget is CPU time of the thread (wall time on a loaded machine says little), and
// the limits refuse these long before it: each takes a few milliseconds at most.
TEST(MathVerifierTest, HostileAnswersEndWithinTheBudgetAndSayWhy) {
  const math_verifier v;
  const auto budget = std::chrono::duration_cast<std::chrono::nanoseconds>(math_limits{}.budget);
  for (const hostile& h : hostile_cases()) {
    SCOPED_TRACE(h.completion.substr(0, 80));
    const auto start = math_thread_cpu_time();
    const verdict got = v.verify(math_item(h.reference), h.completion);
    const auto took = math_thread_cpu_time() - start;
    EXPECT_EQ(got.reward, 0.f);
    EXPECT_EQ(got.reason, h.reason);
    EXPECT_LT(took, budget);
  }
}

TEST(MathVerifierTest, TimeBudgetEndsALongComparison) {
  math_verifier_config cfg;
  cfg.limits.budget = std::chrono::milliseconds(0);
  const math_verifier v(cfg);
  // Past the fast path and the text steps, the first GiNaC step sees the deadline.
  EXPECT_EQ(v.verify(math_item("\\sqrt{2}"), "\\boxed{\\sqrt{2}}").reason, "timeout");
  // The fast path has no budget to run out of.
  EXPECT_EQ(v.verify(math_item("7"), "#### 7").reward, 1.f);
}

TEST(MathVerifierTest, HostileReferencesAreBadReferences) {
  const math_verifier v;
  EXPECT_EQ(v.verify(math_item("10^{10^{10}}"), "\\boxed{1}").reason, "bad_reference");
  EXPECT_EQ(v.verify(math_item(repeated("(", 5000) + "1" + repeated(")", 5000)), "\\boxed{1}")
                .reason,
            "bad_reference");
  EXPECT_EQ(v.verify(math_item("\\frac{1}{0}"), "\\boxed{1}").reason, "bad_reference");
}

// Symbolic and fast-path verifications from 8 threads give the serial verdicts (GiNaC
// runs under its mutex; without it this test crashes or corrupts reference counts).
TEST(MathVerifierTest, ConcurrentVerificationsAgreeWithSerialOnes) {
  const std::vector<std::pair<std::string, std::string>> pairs = {
      {"\\frac{1+\\sqrt5}{2}", "\\boxed{\\frac{2}{\\sqrt5-1}}"},
      {"x^2-1", "\\boxed{(x-1)(x+1)}"},
      {"[0,1)", "\\boxed{[0,1]}"},
      {"42", "#### 42"},
      {"\\sin(\\pi/12)", "\\boxed{\\frac{\\sqrt6-\\sqrt2}{4}}"},
      {"(1,2)", "\\boxed{(2,1)}"},
      {"3\\sqrt{13}", "\\boxed{\\sqrt{117}}"},
      {"5", "\\boxed{10^{10^{10}}}"},
  };
  const math_verifier v;
  std::vector<verdict> serial;
  for (const auto& [ref, completion] : pairs) serial.push_back(v.verify(math_item(ref), completion));
  std::atomic<int> mismatches{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 40; ++round) {
        const size_t k = static_cast<size_t>(t + round) % pairs.size();
        const verdict got = v.verify(math_item(pairs[k].first), pairs[k].second);
        if (got.reward != serial[k].reward || got.reason != serial[k].reason) ++mismatches;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(mismatches.load(), 0);
  EXPECT_EQ(serial[0].reward, 1.f);
  EXPECT_EQ(serial[2].reason, "wrong_value");
  EXPECT_EQ(serial[7].reason, "too_complex");
}

}  // namespace
}  // namespace adarl
