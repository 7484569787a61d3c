#pragma once
// Splitting text with a tokenizer.json's own regex (PCRE2), with the reference's behaviors.

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.hpp"

namespace adarl {

/// How a Split pre-tokenizer keeps the pieces its pattern matches (the reference's
/// SplitDelimiterBehavior).
enum class split_behavior {
  isolated,
  removed,
  merged_with_previous,
  merged_with_next,
  contiguous
};

/// A compiled pattern that cuts text into pieces, as the Split pre-tokenizer of a
/// tokenizer.json does. Runs the file's own regex with PCRE2 in UTF + UCP mode (\p{L},
/// \p{N}, \s, lookahead and Unicode case folding in (?i:...), as the reference's
/// Oniguruma), JIT-compiled when the platform allows. PCRE2 10.42 counts U+180E as \s,
/// which Unicode (since 6.3) and Oniguruma do not, so the pattern is patched first
/// (oniguruma_whitespace). \p{L} and \p{N} follow PCRE2's Unicode 14 tables, as the
/// Oniguruma 6.9.8 of the Rust reference does. The compiled code is shared and
/// immutable; split() may run on any number of threads.
class regex_splitter {
 public:
  /// Compiles `pattern` (`literal`: match the text as it is). A pattern PCRE2 rejects is
  /// an error naming `where`, the offset and PCRE2's message. O(pattern).
  static result<regex_splitter> compile(std::string_view pattern, bool literal,
                                        std::string_view where);

  /// Appends the pieces of `text` (valid UTF-8; views into it) to `out`: each match and
  /// each stretch between matches, arranged by `behavior` (`invert`: the stretches
  /// between matches play the matches' part), empty pieces dropped. O(size) for the
  /// tokenizers' patterns.
  void split(std::string_view text, split_behavior behavior, bool invert,
             std::vector<std::string_view>& out) const;

 private:
  struct code;
  explicit regex_splitter(std::shared_ptr<const code> c) : code_(std::move(c)) {}
  std::shared_ptr<const code> code_;
};

/// `pattern` with \s and \S meaning what they mean in Oniguruma (Unicode White_Space)
/// when PCRE2 compiles it: U+180E taken out of \s and put into \S, outside classes
/// ([^\S\x{180e}]) and inside them (the class wrapped in a group that adds or excludes
/// U+180E). Escapes, \Q..\E and POSIX classes are followed; the rest is copied.
std::string oniguruma_whitespace(std::string_view pattern);

}  // namespace adarl
