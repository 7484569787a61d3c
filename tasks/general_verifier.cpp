#include "tasks/general_verifier.hpp"

#include <regex>
#include <utility>

#include "base/text.hpp"

namespace adarl {
namespace {


constexpr std::string_view marker = "####";

}  // namespace

general_verifier::general_verifier(general_verifier_config config)
    : config_(std::move(config)) {}

std::string general_verifier::normalise(std::string_view text,
                                        const general_verifier_config& config,
                                        bool is_completion) {
  if (is_completion && config.after_marker) {
    const auto at = text.rfind(marker);
    text = at == std::string_view::npos ? std::string_view{}
                                        : text.substr(at + marker.size());
  }
  if (config.trim) text = trim_blanks(text);
  std::string out(text);
  if (config.fold_case)
    for (char& c : out)
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

verdict general_verifier::verify(const task_item& item,
                                 std::string_view completion) const {
  const std::string got = normalise(completion, config_, /*is_completion=*/true);
  if (got.empty()) return {0.f, "no_answer"};
  if (got == normalise(item.answer, config_, /*is_completion=*/false)) return {1.f, ""};
  return {0.f, "mismatch"};
}

#if defined(__GLIBCXX__)
// The default (backtracking) executor recurses once per input character and takes
// exponential time on patterns like "(a*)*b"; the polynomial one does neither.
constexpr auto kRegexFlags = std::regex::ECMAScript | std::regex_constants::__polynomial;
#else
constexpr auto kRegexFlags = std::regex::ECMAScript;
#endif

std::string regex_verifier::check_reference(const task_item& item) const {
  if (item.answer.size() > config_.max_pattern_chars)
    return "its pattern is longer than " + std::to_string(config_.max_pattern_chars) +
           " characters";
  try {
    const std::regex pattern(item.answer, kRegexFlags);
    return "";
  } catch (const std::exception&) {  // regex_error, bad_alloc
    return "its pattern does not compile as an ECMAScript regular expression";
  }
}

verdict regex_verifier::verify(const task_item& item, std::string_view completion) const {
  const std::string_view text = trim_blanks(completion);
  if (text.empty()) return {0.f, "no_answer"};
  if (text.size() > config_.max_completion_chars) return {0.f, "too_long"};
  if (item.answer.size() > config_.max_pattern_chars) return {0.f, "bad_pattern"};
  constexpr auto flags = kRegexFlags;
  try {
    const std::regex pattern(item.answer, flags);
    if (std::regex_match(text.begin(), text.end(), pattern)) return {1.f, ""};
    return {0.f, "mismatch"};
  } catch (const std::regex_error&) {  // bad syntax, a back-reference, a resource limit
    return {0.f, "bad_pattern"};
  }
}

}  // namespace adarl
