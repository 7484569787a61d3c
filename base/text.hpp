#pragma once
// Text helpers (ASCII blanks, trimming) shared by the verifiers and the math engine. Pure,
// no allocation.

#include <string_view>

namespace adarl {

/// ASCII whitespace: space, tab, newline, carriage return, vertical tab, form feed.
constexpr bool is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/// `s` without leading and trailing ASCII whitespace, as a view into it.
constexpr std::string_view trim_blanks(std::string_view s) {
  while (!s.empty() && is_blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_blank(s.back())) s.remove_suffix(1);
  return s;
}

}  // namespace adarl
