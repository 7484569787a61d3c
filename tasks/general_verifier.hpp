#pragma once
// The general verifiers: the answer compared as text, after the configured normalisation.

#include <cstddef>
#include <string>
#include <string_view>

#include "tasks/verifier.hpp"

namespace adarl {

/// How general_verifier normalises the completion and the reference answer before
/// comparing them.
struct general_verifier_config {
  std::string name = "general";  ///< Registry name.
  bool trim = true;              ///< Drop leading and trailing ASCII whitespace.
  bool fold_case = false;        ///< Compare ASCII letters case-insensitively.
  /// Compare only the text after the last "####" of the completion (the answer is used
  /// whole); a completion without the marker then scores 0 with reason "no_answer".
  bool after_marker = false;
};

/// Exact match of a completion against item.answer after normalisation. Rewards 1 on a
/// match; otherwise 0 with reason "no_answer" (nothing left after normalisation) or
/// "mismatch". Thread-safe (const, no state); O(completion + answer).
/// The built-ins are "general" (trim, case-sensitive) and "general_ci" (trim,
/// case-insensitive).
class general_verifier final : public verifier {
 public:
  explicit general_verifier(general_verifier_config config = {});
  std::string_view name() const override { return config_.name; }
  verdict verify(const task_item& item, std::string_view completion) const override;

  /// The comparison form of `text` under `config` (trimmed, folded, marker applied
  /// when `is_completion`). Exposed for tests and for logging what was compared.
  static std::string normalise(std::string_view text,
                               const general_verifier_config& config, bool is_completion);

 private:
  general_verifier_config config_;
};

/// Limits of regex_verifier. They keep one call's time and stack bounded.
struct regex_verifier_config {
  /// Completions longer than this (after trimming) score 0 with reason "too_long".
  std::size_t max_completion_chars = 10000;
  /// Patterns longer than this score 0 with reason "bad_pattern": compiling a pattern
  /// recurses over its nesting, and about 3000 nested groups overflow a 1 MiB stack.
  std::size_t max_pattern_chars = 1000;
};

/// "regex": item.answer is an ECMAScript regular expression that must match the whole
/// trimmed completion. Rewards 1 on a match; otherwise 0 with reason "no_answer" (empty
/// completion), "mismatch", "too_long", or "bad_pattern" (too long, does not compile,
/// or std::regex_error while matching). The pattern is compiled on every call (some
/// microseconds; acceptable for the rare regex tasks). With libstdc++ the match runs in
/// its polynomial (Thompson NFA) mode: time O(completion x pattern), stack bounded by
/// the pattern, so no catastrophic backtracking and no stack overflow on long inputs;
/// the price is that back-references ("(a)\1") are rejected as "bad_pattern".
/// Thread-safe (const, no state).
class regex_verifier final : public verifier {
 public:
  explicit regex_verifier(regex_verifier_config config = {}) : config_(config) {}
  std::string_view name() const override { return "regex"; }
  verdict verify(const task_item& item, std::string_view completion) const override;
  /// "" when item.answer is a pattern verify can use (not too long, compiles).
  std::string check_reference(const task_item& item) const override;

 private:
  regex_verifier_config config_;
};

}  // namespace adarl
