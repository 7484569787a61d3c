#pragma once
// The added tokens of a tokenizer.json, matched before pre-tokenization.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace adarl {

/// One entry of a tokenizer.json's `added_tokens`: a token matched in the text before
/// pre-tokenization, with the reference's flags.
struct added_token {
  int32_t id = 0;
  std::string content;
  bool special = false;      ///< Skipped by decode(skip_special_tokens).
  bool lstrip = false;       ///< The match absorbs the whitespace on its left.
  bool rstrip = false;       ///< The match absorbs the whitespace on its right.
  bool single_word = false;  ///< Matches only between non-word characters.
  bool normalized = false;   ///< Matched in the normalized text (else in the raw text).
};

/// A stretch of text: an added token's match (id >= 0) or text to pre-tokenize (id -1).
struct text_segment {
  std::string_view text;
  int32_t id = -1;
};

/// Finds added tokens in text as the reference's AddedVocabulary does: leftmost-longest
/// matches (an Aho-Corasick automaton there, a first-byte index here), a single_word
/// match dropped when a word character (Unicode \w) touches it, lstrip/rstrip absorbing
/// Unicode whitespace. Immutable after construction: thread-safe.
class added_token_matcher {
 public:
  /// A matcher for `tokens`, each matched as `patterns[i]` (its content, or its
  /// normalized content for normalized tokens). Empty patterns are ignored.
  added_token_matcher(const std::vector<const added_token*>& tokens,
                      const std::vector<std::string>& patterns);
  added_token_matcher() = default;

  /// Appends the segments of `text` to `out`, covering it in order. Plain segments are
  /// never empty. O(size x tokens sharing a first byte).
  void split(std::string_view text, std::vector<text_segment>& out) const;

  /// True when there is nothing to match.
  bool empty() const { return entries_.empty(); }

 private:
  struct entry {
    std::string pattern;
    const added_token* token;
  };
  std::vector<entry> entries_;
  /// Invariant: by_first_byte_[b] lists the entries whose pattern starts with byte b,
  /// longest first.
  std::array<std::vector<uint32_t>, 256> by_first_byte_;
};

}  // namespace adarl
