// Agreement of the math verifier with the reference verifier (huggingface/Math-Verify) on
// that verifier's own test expectations, transcribed into tests/data/math_reference_suite.jsonl
// (provenance in its header). A measurement: it prints the agreement and every
// disagreement, and fails on a false positive (a pair the reference refuses that adarl
// rewards) or when agreement falls below the level reached when the file was written.
#include <gtest/gtest.h>

#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

#include "tasks/math_verifier.hpp"

namespace adarl {
namespace {

struct reference_case {
  uint32_t line = 0;
  std::string gold, pred, source;
  int expected = 0;
};

std::vector<reference_case> read_suite() {
  std::ifstream in(std::string(ADARL_TEST_DATA) + "/math_reference_suite.jsonl");
  std::vector<reference_case> out;
  std::string text;
  for (uint32_t line = 1; std::getline(in, text); ++line) {
    if (text.empty() || text[0] == '#') continue;
    const auto j = nlohmann::json::parse(text);
    out.push_back({line, j.at("gold").get<std::string>(), j.at("pred").get<std::string>(),
                   j.at("source").get<std::string>(), j.at("expected").get<int>()});
  }
  return out;
}

std::string shortened(const std::string& s) {
  return s.size() <= 90 ? s : s.substr(0, 60) + " ... " + s.substr(s.size() - 25);
}

TEST(MathReferenceSuiteTest, AgreesWithTheReferenceVerifier) {
  const auto suite = read_suite();
  ASSERT_GE(suite.size(), 200u) << "tests/data/math_reference_suite.jsonl";
  const math_verifier v;
  size_t agree = 0, false_positives = 0, false_negatives = 0;
  for (const reference_case& c : suite) {
    task_item item;
    item.answer = c.gold;
    item.verifier = "math";
    const verdict got = v.verify(item, c.pred);
    const int rewarded = got.reward > 0.f ? 1 : 0;
    const auto candidate = extract_first(c.pred, math_verifier_config{}.order);
    if (rewarded == c.expected) {
      ++agree;
      continue;
    }
    (rewarded ? false_positives : false_negatives) += 1;
    std::cout << "  disagree math_reference_suite.jsonl:" << c.line << " (" << c.source
              << ") expected " << c.expected << ", got " << rewarded << " \"" << got.reason
              << "\": gold \"" << shortened(c.gold) << "\" pred \"" << shortened(c.pred)
              << "\" (read \"" << shortened(std::string(candidate.value_or("-"))) << "\")\n";
  }
  const double share = static_cast<double>(agree) / static_cast<double>(suite.size());
  std::cout << "math reference suite: " << agree << "/" << suite.size() << " agree ("
            << 100.0 * share << "%), " << false_positives << " false positives, "
            << false_negatives << " false negatives\n";
  EXPECT_EQ(false_positives, 0u);
  EXPECT_GE(share, 0.97);  // 230 of 237 when this file was written (216, 165 before)
}

}  // namespace
}  // namespace adarl
