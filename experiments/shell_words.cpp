#include "experiments/shell_words.hpp"

namespace adarl {

std::string shell_word(const std::string& s) {
  const bool safe = !s.empty() && s.find_first_not_of(
                                      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                      "0123456789_-+=.,/:@%") == std::string::npos;
  if (safe) return s;
  std::string out = "'";
  for (char ch : s) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return out + "'";
}

std::string shell_line(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : " ") + shell_word(w);
  return out;
}

}  // namespace adarl
