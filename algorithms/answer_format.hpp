#pragma once
// Which zero-reward reasons say that a completion had no readable answer (the policy
// lost the task's answer format), not that its answer was wrong: a run whose share of
// them grows is failing in a way its reward alone does not show.

#include <array>
#include <string_view>

namespace adarl {

/// The verifiers' reason codes for a completion without a readable answer
/// (tasks/verifier.hpp): none found, one that does not parse, or one too long to read.
inline constexpr std::array<std::string_view, 3> format_failure_reasons{
    "no_answer", "unparsable", "too_long"};

/// True when a zero reward's reason is one of format_failure_reasons.
constexpr bool is_format_failure(std::string_view reason) {
  for (std::string_view r : format_failure_reasons)
    if (r == reason) return true;
  return false;
}

}  // namespace adarl
