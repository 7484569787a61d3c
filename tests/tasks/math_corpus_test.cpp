// The answer corpus tests/data/math_answers.jsonl: reference answers as datasets write
// them (MATH, GSM8K, AIME, Minerva, OpenR1 styles, sometimes whole solutions) against
// completions, each with the verdict the math verifier must give. Written for this test
// (no dataset text copied). Prints the agreement; every line must agree.
// tests/data/math_reference_kinds.jsonl, in the same format, holds our own cases of the
// kinds the reference verifier (huggingface/Math-Verify) accepts and the corpus did not
// cover (sets and intervals, free text, numbers, relations, matrices, units), with near
// misses that must score 0; tests/tasks/math_reference_suite_test.cpp measures agreement
// with the reference's own cases.
#include <gtest/gtest.h>

#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "tasks/math_verifier.hpp"

namespace adarl {
namespace {

struct corpus_line {
  uint32_t line = 0;
  task_item item;
  std::string completion, reason, note;
  float reward = 0.f;
};

std::vector<corpus_line> read_corpus(const std::string& name = "math_answers.jsonl") {
  std::ifstream in(std::string(ADARL_TEST_DATA) + "/" + name);
  std::vector<corpus_line> out;
  std::string text;
  for (uint32_t line = 1; std::getline(in, text); ++line) {
    if (text.empty()) continue;
    const auto j = nlohmann::json::parse(text);
    corpus_line c;
    c.line = line;
    c.item.answer = j.at("answer").get<std::string>();
    c.item.verifier = "math";
    c.completion = j.at("completion").get<std::string>();
    c.reward = j.at("reward").get<float>();
    c.reason = j.at("reason").get<std::string>();
    c.note = j.at("note").get<std::string>();
    out.push_back(std::move(c));
  }
  return out;
}

TEST(MathCorpusTest, EveryLineGetsItsExpectedVerdict) {
  const auto corpus = read_corpus();
  ASSERT_GE(corpus.size(), 300u) << "tests/data/math_answers.jsonl";
  const math_verifier v;
  size_t agree = 0, positives = 0;
  std::map<std::string, size_t> reasons;
  for (const corpus_line& c : corpus) {
    const verdict got = v.verify(c.item, c.completion);
    const bool same = got.reward == c.reward && got.reason == c.reason;
    agree += same;
    positives += c.reward > 0.f;
    ++reasons[c.reason.empty() ? "(rewarded)" : c.reason];
    EXPECT_TRUE(same) << "math_answers.jsonl:" << c.line << " (" << c.note << "): got "
                      << got.reward << " \"" << got.reason << "\", expected " << c.reward
                      << " \"" << c.reason << "\"";
  }
  std::cout << "math corpus: " << agree << "/" << corpus.size() << " agree ("
            << 100.0 * static_cast<double>(agree) / static_cast<double>(corpus.size())
            << "%); expected verdicts:";
  for (const auto& [reason, n] : reasons) std::cout << " " << reason << " " << n;
  std::cout << "\n";
  // Both kinds must be well represented for agreement to mean anything.
  EXPECT_GE(positives, 120u);
  EXPECT_GE(corpus.size() - positives, 120u);
}

TEST(MathCorpusTest, ReferenceKindsGetTheirExpectedVerdicts) {
  const auto cases = read_corpus("math_reference_kinds.jsonl");
  ASSERT_GE(cases.size(), 50u) << "tests/data/math_reference_kinds.jsonl";
  const math_verifier v;
  size_t positives = 0;
  for (const corpus_line& c : cases) {
    const verdict got = v.verify(c.item, c.completion);
    positives += c.reward > 0.f;
    EXPECT_TRUE(got.reward == c.reward && got.reason == c.reason)
        << "math_reference_kinds.jsonl:" << c.line << " (" << c.note << "): got " << got.reward
        << " \"" << got.reason << "\", expected " << c.reward << " \"" << c.reason << "\"";
    EXPECT_EQ(v.check_reference(c.item), "")
        << "math_reference_kinds.jsonl:" << c.line << " (" << c.note << ")";
  }
  EXPECT_GE(positives, 25u);
  EXPECT_GE(cases.size() - positives, 20u);  // near misses: no false positives
}

// Each reference of the corpus that expects a verdict other than bad_reference is one
// the dataset check accepts, and each bad_reference one it refuses.
TEST(MathCorpusTest, ReferenceCheckAgreesWithTheVerdicts) {
  const math_verifier v;
  for (const corpus_line& c : read_corpus()) {
    const bool refused = !v.check_reference(c.item).empty();
    EXPECT_EQ(refused, c.reason == "bad_reference")
        << "math_answers.jsonl:" << c.line << " (" << c.note << "): " << v.check_reference(c.item);
  }
}

}  // namespace
}  // namespace adarl
