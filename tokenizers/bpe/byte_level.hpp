#pragma once
// GPT-2's byte-level alphabet: bytes to printable code points and back.

#include <cstdint>
#include <string>
#include <string_view>

namespace adarl {

/// GPT-2's byte-level alphabet (bytes_to_unicode in the reference): each of the 256 byte
/// values stands for one printable code point, so that any byte string becomes text a
/// BPE vocabulary can hold ("Ġ" for a space, "Ċ" for a newline). Stateless functions
/// over a constant table: thread-safe.
class byte_level {
 public:
  /// The UTF-8 of the code point that stands for `byte`.
  static std::string_view encode_byte(uint8_t byte);
  /// Appends the byte-level text of `bytes` to `out`. O(bytes).
  static void encode(std::string_view bytes, std::string& out);
  /// Appends the bytes that `text` stands for to `out` and returns true; returns false
  /// (leaving `out` as it was) when a code point of `text` is not in the alphabet.
  static bool decode(std::string_view text, std::string& out);
};

/// True when `s` is well-formed UTF-8 (no surrogates, overlongs or code points past
/// U+10FFFF). O(size).
bool is_valid_utf8(std::string_view s);

/// The offset of the first ill-formed UTF-8 sequence in `s`, or std::string_view::npos
/// when there is none. O(size).
size_t utf8_error_offset(std::string_view s);

/// `s` with each ill-formed UTF-8 sequence replaced by U+FFFD, one per maximal invalid
/// subpart, as Rust's String::from_utf8_lossy does. O(size).
std::string utf8_lossy(std::string_view s);

/// Length in bytes of the UTF-8 sequence that starts with `lead` (1 for a stray byte).
int utf8_length(unsigned char lead);

}  // namespace adarl
