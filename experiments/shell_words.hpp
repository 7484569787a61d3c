#pragma once
// Command lines printed for a user to copy ("continue with: adarl run ... --resume DIR").

#include <string>
#include <vector>

namespace adarl {

/// `s` as one word for a POSIX shell: unchanged when it holds only safe characters
/// (letters, digits, `_-+=.,/:@%`), else in single quotes. Pure; O(length).
std::string shell_word(const std::string& s);

/// The words joined by spaces, each through shell_word. Pure; O(total length).
std::string shell_line(const std::vector<std::string>& words);

}  // namespace adarl
