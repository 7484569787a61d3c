#include "tasks/general_verifier.hpp"

#include <gtest/gtest.h>

#include <string>

namespace adarl {
namespace {

task_item with_answer(std::string answer) {
  task_item item;
  item.answer = std::move(answer);
  return item;
}

TEST(GeneralVerifierTest, DefaultTrimsAndIsCaseSensitive) {
  const general_verifier v;
  EXPECT_EQ(v.name(), "general");
  const task_item item = with_answer("tzqk");
  EXPECT_EQ(v.verify(item, "tzqk").reward, 1.f);
  const verdict padded = v.verify(item, " \t tzqk\r\n");
  EXPECT_EQ(padded.reward, 1.f);
  EXPECT_EQ(padded.reason, "");
  const verdict upper = v.verify(item, "TZQK");
  EXPECT_EQ(upper.reward, 0.f);
  EXPECT_EQ(upper.reason, "mismatch");
  EXPECT_EQ(v.verify(item, "tzq").reason, "mismatch");
  EXPECT_EQ(v.verify(item, "tz qk").reason, "mismatch");  // inner space is kept
}

TEST(GeneralVerifierTest, EmptyCompletionIsNoAnswer) {
  const general_verifier v;
  const verdict empty = v.verify(with_answer("x"), "");
  EXPECT_EQ(empty.reward, 0.f);
  EXPECT_EQ(empty.reason, "no_answer");
  EXPECT_EQ(v.verify(with_answer("x"), " \n\t ").reason, "no_answer");
}

TEST(GeneralVerifierTest, AnswerIsNormalisedToo) {
  const general_verifier v;
  EXPECT_EQ(v.verify(with_answer("  cat\n"), "cat").reward, 1.f);
}

TEST(GeneralVerifierTest, CaseInsensitiveFoldsAsciiLettersOnly) {
  const general_verifier v(general_verifier_config{
      .name = "general_ci", .trim = true, .fold_case = true, .after_marker = false});
  EXPECT_EQ(v.name(), "general_ci");
  EXPECT_EQ(v.verify(with_answer("Cat"), " cAT ").reward, 1.f);
  EXPECT_EQ(v.verify(with_answer("cat"), "cat!").reason, "mismatch");
  EXPECT_EQ(v.verify(with_answer("a[b"), "A[B").reward, 1.f);
  // '[' is 'A' + 26: a fold over more than A-Z would turn '{' and '[' into each other.
  EXPECT_EQ(v.verify(with_answer("a{b"), "A[B").reason, "mismatch");
}

TEST(GeneralVerifierTest, WithoutTrimWhitespaceCounts) {
  const general_verifier v(general_verifier_config{
      .name = "raw", .trim = false, .fold_case = false, .after_marker = false});
  EXPECT_EQ(v.verify(with_answer("abc"), "abc").reward, 1.f);
  EXPECT_EQ(v.verify(with_answer("abc"), "abc\n").reason, "mismatch");
}

TEST(GeneralVerifierTest, AfterMarkerComparesTheTextAfterTheLastMarker) {
  const general_verifier_config config{
      .name = "general_marked", .trim = true, .fold_case = false, .after_marker = true};
  const general_verifier v(config);
  const task_item item = with_answer("dog");
  EXPECT_EQ(v.verify(item, "the words are cat dog\n#### dog").reward, 1.f);
  EXPECT_EQ(v.verify(item, "#### cat then #### dog ").reward, 1.f);
  EXPECT_EQ(v.verify(item, "#### dog then #### cat").reason, "mismatch");
  EXPECT_EQ(v.verify(item, "dog").reason, "no_answer");  // no marker
  EXPECT_EQ(v.verify(item, "dog ####   ").reason, "no_answer");
  EXPECT_EQ(general_verifier::normalise("a #### b ####c", config, /*is_completion=*/true),
            "c");
  EXPECT_EQ(general_verifier::normalise(" a #### b ", config, /*is_completion=*/false),
            "a #### b");
}

TEST(RegexVerifierTest, PatternMustMatchTheWholeTrimmedCompletion) {
  const regex_verifier v;
  EXPECT_EQ(v.name(), "regex");
  const task_item item = with_answer("a+b[0-9]{2}");
  EXPECT_EQ(v.verify(item, "  aaab12\n").reward, 1.f);
  const verdict partial = v.verify(item, "xaab12");
  EXPECT_EQ(partial.reward, 0.f);
  EXPECT_EQ(partial.reason, "mismatch");  // a search would have found "aab12"
  EXPECT_EQ(v.verify(item, "aab123").reason, "mismatch");
  EXPECT_EQ(v.verify(item, "   ").reason, "no_answer");
}

TEST(RegexVerifierTest, BadPatternIsAZeroRewardNotAnException) {
  const regex_verifier v;
  for (const char* pattern : {"(", "a{2,1}", "[z-a]", "*a", "\\"}) {
    const verdict d = v.verify(with_answer(pattern), "a");
    EXPECT_EQ(d.reward, 0.f) << pattern;
    EXPECT_EQ(d.reason, "bad_pattern") << pattern;
  }
}

TEST(RegexVerifierTest, LongCompletionsAndPatternsAreRefused) {
  const regex_verifier v(
      regex_verifier_config{.max_completion_chars = 10, .max_pattern_chars = 4});
  EXPECT_EQ(v.verify(with_answer("a*"), std::string(10, 'a')).reward, 1.f);
  EXPECT_EQ(v.verify(with_answer("a*"), " " + std::string(11, 'a')).reason, "too_long");
  EXPECT_EQ(v.verify(with_answer("a{3}"), "aaa").reward, 1.f);
  EXPECT_EQ(v.verify(with_answer("a{3,}"), "aaa").reason, "bad_pattern");
}

TEST(RegexVerifierTest, LongInputsNeitherOverflowTheStackNorBacktrack) {
  const regex_verifier v;
  // A backtracking matcher recurses about 1.5 KiB per character here (15 MiB in all,
  // more than a thread's 8 MiB stack), and takes exponential time on "(a*)*b".
  EXPECT_EQ(v.verify(with_answer("(((((a|b)))))*"), std::string(10000, 'a')).reward, 1.f);
  EXPECT_EQ(v.verify(with_answer("(a*)*b"), std::string(10000, 'a')).reason, "mismatch");
}

TEST(RegexVerifierTest, BackReferencesAreRejected) {
  const verdict d = regex_verifier().verify(with_answer("(a)\\1"), "aa");
  EXPECT_EQ(d.reward, 0.f);
  EXPECT_EQ(d.reason, "bad_pattern");
}

}  // namespace
}  // namespace adarl
