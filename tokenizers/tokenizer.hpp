#pragma once
// The character tokenizer of the built-in tasks and policy.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.hpp"
#include "tokenizers/text_codec.hpp"

namespace adarl {

/// Character-level tokenizer for the built-in tasks. Ids 0..3 are the special tokens;
/// every other id is one byte of the charset. Immutable after construction, so it is
/// thread-safe; encode and decode are O(length). As a text_codec: a prompt is begin,
/// text, separator; the end token stops a completion; padding is `pad`.
class tokenizer : public text_codec {
 public:
  static constexpr int32_t pad = 0;  ///< Padding (never predicted).
  static constexpr int32_t bos = 1;  ///< Begin of sequence.
  static constexpr int32_t eos = 2;  ///< End of a completion: sampling stops here.
  static constexpr int32_t sep = 3;  ///< Between prompt and completion.
  static constexpr int32_t num_special = 4;

  /// The charset that covers the built-in suites: printable ASCII and newline.
  static std::string default_charset();

  /// A tokenizer over `charset` (distinct bytes, no NUL); a repeated byte is an error.
  static result<tokenizer> from_charset(std::string_view charset);

  /// Token ids of `text`. A byte outside the vocabulary is an error naming the
  /// character, its position and `source` (e.g. "dataset.jsonl:12 prompt").
  result<std::vector<int32_t>> encode(std::string_view text, std::string_view source) const;

  /// Text of `ids`; special tokens are skipped, an id out of range is shown as '?'.
  std::string decode(const std::vector<int32_t>& ids) const;

  /// Vocabulary size (special tokens included).
  int32_t size() const { return num_special + static_cast<int32_t>(charset_.size()); }
  /// The charset, in id order; saved with a model so that ids mean the same on load.
  const std::string& charset() const { return charset_; }

  // text_codec
  result<std::vector<int32_t>> encode_prompt(std::string_view text,
                                             std::string_view source) const override;
  std::string decode_completion(std::span<const int32_t> ids) const override;
  const std::vector<int32_t>& end_ids() const override;
  int32_t pad_id() const override { return pad; }
  int32_t vocab_size() const override { return size(); }

 private:
  tokenizer() = default;
  std::string charset_;
  std::array<int32_t, 256> id_of_{};  ///< -1 for bytes outside the vocabulary.
};

}  // namespace adarl
