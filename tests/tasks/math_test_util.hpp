#pragma once
// Shared by the math verifier tests: score one (reference, completion) pair with the
// default math_verifier and compare the verdict with an expectation.

#include <gtest/gtest.h>

#include <string>

#include "tasks/math_verifier.hpp"

namespace adarl::test {

/// An item for the math verifier with `answer` as its reference.
inline task_item math_item(std::string answer) {
  task_item item;
  item.answer = std::move(answer);
  item.verifier = "math";
  return item;
}

/// Success when the default math_verifier gives `completion` the expected verdict
/// against `reference`.
inline ::testing::AssertionResult scores(const std::string& reference,
                                         const std::string& completion, float reward,
                                         const std::string& reason = "") {
  static const math_verifier v;
  const verdict got = v.verify(math_item(reference), completion);
  if (got.reward == reward && got.reason == reason) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "reference \"" << reference << "\", completion \"" << completion << "\": got "
         << got.reward << " \"" << got.reason << "\", expected " << reward << " \"" << reason
         << "\"";
}

/// Both directions: `a` as the reference and \boxed{b} as the answer, and the reverse.
inline ::testing::AssertionResult equivalent(const std::string& a, const std::string& b) {
  auto one = scores(a, "\\boxed{" + b + "}", 1.f);
  if (!one) return one;
  return scores(b, "\\boxed{" + a + "}", 1.f);
}

/// Both directions score 0 with "wrong_value".
inline ::testing::AssertionResult different(const std::string& a, const std::string& b) {
  auto one = scores(a, "\\boxed{" + b + "}", 0.f, "wrong_value");
  if (!one) return one;
  return scores(b, "\\boxed{" + a + "}", 0.f, "wrong_value");
}

}  // namespace adarl::test
