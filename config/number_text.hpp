#pragma once
// Shortest text of a number, for config messages and summaries.

#include <charconv>
#include <concepts>
#include <string>

namespace adarl {

/// The shortest decimal text that reads back as `v`.
inline std::string text(double v) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}
inline std::string text(std::integral auto v) { return std::to_string(v); }

}  // namespace adarl
