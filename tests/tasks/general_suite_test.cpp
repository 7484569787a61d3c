#include "tasks/general_suite.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tasks/general_verifier.hpp"

namespace adarl {
namespace {

suite_request request(uint64_t seed, uint32_t count,
                      std::vector<double> mix = {1, 1, 1, 1, 1}) {
  suite_request req;
  req.seed = seed;
  req.count = count;
  req.difficulty_mix = std::move(mix);
  return req;
}

/// The kind of a prompt ("reverse", "count", "first word", ...) and its argument.
std::pair<std::string, std::string> parse(const std::string& prompt) {
  const auto colon = prompt.find(": ");
  EXPECT_NE(colon, std::string::npos) << prompt;
  return {prompt.substr(0, colon), prompt.substr(colon + 2)};
}

/// The answer, computed here independently of the suite's code.
std::string expected_answer(const std::string& prompt) {
  auto [kind, arg] = parse(prompt);
  std::string out;
  if (kind == "reverse") return {arg.rbegin(), arg.rend()};
  if (kind == "sort") {
    std::multiset<char> letters(arg.begin(), arg.end());
    return {letters.begin(), letters.end()};
  }
  if (kind == "dedupe") {
    std::set<char> seen;
    for (char c : arg)
      if (seen.insert(c).second) out += c;
    return out;
  }
  if (kind.rfind("count ", 0) == 0 && kind.size() == 7) {
    int n = 0;
    for (char c : arg) n += c == kind[6];
    return std::to_string(n);
  }
  if (kind == "upper" || kind == "lower") {
    for (char c : arg)
      out += static_cast<char>(kind == "upper" ? toupper(c) : tolower(c));
    return out;
  }
  if (kind == "first word") {
    std::istringstream words(arg);
    std::vector<std::string> all{std::istream_iterator<std::string>(words), {}};
    return *std::min_element(all.begin(), all.end());
  }
  ADD_FAILURE() << "unknown kind in prompt: " << prompt;
  return "";
}

TEST(GeneralSuiteTest, EveryAnswerIsRightAndVerifiesExactly) {
  const auto items = generate_general(request(7, 3000));
  ASSERT_EQ(items.size(), 3000u);
  const general_verifier exact;
  const general_verifier folded(general_verifier_config{
      .name = "general_ci", .trim = true, .fold_case = true, .after_marker = false});
  for (const auto& item : items) {
    ASSERT_EQ(item.answer, expected_answer(item.prompt)) << item.prompt;
    ASSERT_TRUE(item.verifier == "general" || item.verifier == "general_ci") << item.id;
    const verifier& v =
        item.verifier == "general" ? static_cast<const verifier&>(exact) : folded;
    ASSERT_EQ(v.verify(item, item.answer).reward, 1.f) << item.prompt;
    EXPECT_EQ(item.task, "general");
    EXPECT_TRUE(item.tests.empty());
  }
}

TEST(GeneralSuiteTest, AllSevenKindsAppearWithTheirVerifiers) {
  std::map<std::string, std::set<std::string>> verifiers;  // kind -> verifiers
  bool zero_count = false;
  for (const auto& item : generate_general(request(3, 2000))) {
    std::string kind = parse(item.prompt).first;
    if (kind.rfind("count ", 0) == 0) {
      zero_count |= item.answer == "0";
      kind = "count";
    }
    verifiers[kind].insert(item.verifier);
  }
  const std::map<std::string, std::set<std::string>> want = {
      {"count", {"general"}}, {"dedupe", {"general"}},  {"first word", {"general_ci"}},
      {"lower", {"general"}}, {"reverse", {"general"}}, {"sort", {"general"}},
      {"upper", {"general"}}};
  EXPECT_EQ(verifiers, want);
  EXPECT_TRUE(zero_count) << "some count task should ask for an absent letter";
}

TEST(GeneralSuiteTest, LevelSetsTheLength) {
  for (uint32_t level = 1; level <= 5; ++level) {
    std::vector<double> mix(5, 0.0);
    mix[level - 1] = 1;
    const auto items = generate_general(request(11, 300, mix));
    ASSERT_FALSE(items.empty());
    std::set<size_t> letter_lengths, word_counts;
    for (const auto& item : items) {
      EXPECT_EQ(item.difficulty, level);
      const auto [kind, arg] = parse(item.prompt);
      if (kind == "first word")
        word_counts.insert(std::count(arg.begin(), arg.end(), ' ') + 1);
      else
        letter_lengths.insert(arg.size());
    }
    EXPECT_EQ(letter_lengths,
              (std::set<size_t>{2 * level + 1, 2 * level + 2, 2 * level + 3}))
        << "level " << level;
    EXPECT_EQ(word_counts, (std::set<size_t>{level + 1})) << "level " << level;
  }
}

TEST(GeneralSuiteTest, UsesASmallAsciiCharset) {
  const std::string allowed =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 :";
  for (const auto& item : generate_general(request(5, 1000))) {
    for (char c : item.prompt + item.answer)
      ASSERT_NE(allowed.find(c), std::string::npos) << "'" << c << "' in " << item.prompt;
  }
}

TEST(GeneralSuiteTest, DeterministicInTheSeed) {
  const auto a = generate_general(request(42, 200));
  const auto b = generate_general(request(42, 200));
  const auto c = generate_general(request(43, 200));
  ASSERT_EQ(a.size(), 200u);
  size_t same_as_c = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].id, b[i].id);
    EXPECT_EQ(a[i].prompt, b[i].prompt);
    EXPECT_EQ(a[i].answer, b[i].answer);
    EXPECT_EQ(a[i].difficulty, b[i].difficulty);
    same_as_c += a[i].prompt == c[i].prompt;
  }
  EXPECT_LT(same_as_c, 20u);
  EXPECT_EQ(a[0].id, "general-train-42-0");
  EXPECT_EQ(a[199].id, "general-train-42-199");
}

}  // namespace
}  // namespace adarl
