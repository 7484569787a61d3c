#pragma once
// The decoder of a tokenizer.json: token ids back to text.

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.hpp"

namespace adarl {

/// The `decoder` of a byte-level tokenizer.json: ByteLevel (tokens back to bytes, the
/// bytes to text with invalid UTF-8 replaced by U+FFFD), ByteFallback (runs of <0xXX>
/// tokens to their bytes), Fuse, or a Sequence of them; null joins tokens with spaces,
/// as the reference does. Immutable after parse(): thread-safe.
class token_decoder {
 public:
  /// The decoder described by `j`; another type is an error naming `where`.
  /// A value of the wrong JSON type throws nlohmann::json::exception (bpe_tokenizer
  /// turns it into an error).
  static result<token_decoder> parse(const nlohmann::json& j, std::string_view where);

  /// The text of `tokens` (vocabulary strings, in order). O(total size).
  std::string decode(std::vector<std::string> tokens) const;

 private:
  enum class step { byte_level, byte_fallback, fuse };
  token_decoder() = default;
  std::vector<step> steps_;
  bool join_with_spaces_ = false;  ///< No decoder at all.
};

}  // namespace adarl
