#pragma once
// A Hugging Face byte-level BPE tokenizer (tokenizer.json), stage by stage.

#include <cstdint>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.hpp"

namespace adarl {

/// A byte-level BPE tokenizer read from a Hugging Face tokenizer.json (the GPT-2, Qwen2,
/// Qwen3 and Llama 3 family), giving the same ids as the reference `tokenizers` library:
/// added tokens are matched first (longest first, with their lstrip/rstrip/single_word/
/// normalized flags), the rest is normalized (NFC for Qwen), split by the file's own
/// pre-tokenizer regex (run by PCRE2), mapped to the byte-level alphabet and merged by
/// rank. Special token ids (bos/eos/pad/unk) come from tokenizer_config.json when given.
///
/// Move-only. Immutable after loading except a bounded cache of the BPE result per
/// word, which is behind a shared mutex: encode and decode may run on any number of
/// threads at once. Loading Qwen3's 11 MB tokenizer.json takes about a second.
class bpe_tokenizer {
 public:
  /// Reads `tokenizer_json` and, when not empty, `config_json` (tokenizer_config.json).
  /// Errors name `source` and the key: bad JSON, a model that is not BPE, a merge of
  /// tokens outside the vocabulary, an unsupported normalizer, pre-tokenizer, decoder
  /// or post-processor type, a pattern PCRE2 rejects, a config token not in the
  /// vocabulary.
  static result<bpe_tokenizer> from_json(std::string_view tokenizer_json,
                                         std::string_view config_json,
                                         std::string_view source);
  /// Reads `dir`/tokenizer.json and, when present, `dir`/tokenizer_config.json.
  static result<bpe_tokenizer> from_directory(const std::string& dir);

  bpe_tokenizer(bpe_tokenizer&&) noexcept;
  bpe_tokenizer& operator=(bpe_tokenizer&&) noexcept;
  ~bpe_tokenizer();

  /// The ids of `text`. With `add_special_tokens`, the post-processor's template adds
  /// its tokens (Llama 3's <|begin_of_text|>; Qwen's adds none). Text that is not valid
  /// UTF-8 is an error naming the byte offset. O(size) amortized: each distinct word is
  /// merged once, O(n log n) in its length, then served from the cache.
  result<std::vector<int32_t>> encode(std::string_view text,
                                      bool add_special_tokens = false) const;

  /// The text of `ids`; ids outside the vocabulary are skipped, and with
  /// `skip_special_tokens` so are special added tokens. Bytes that do not form UTF-8
  /// (a prefix of a character's tokens) become U+FFFD. O(ids + text).
  std::string decode(std::span<const int32_t> ids,
                     bool skip_special_tokens = false) const;

  /// The id of `token` (an added token's content, or a vocabulary entry in the
  /// byte-level alphabet, e.g. "Ġthe").
  std::optional<int32_t> token_to_id(std::string_view token) const;
  /// The token of `id`; nullopt outside the vocabulary. The view lives as long as this.
  std::optional<std::string_view> id_to_token(int32_t id) const;
  /// One past the largest id (vocabulary and added tokens): the embedding rows needed.
  int32_t vocab_size() const;
  /// True for a special added token (<|im_end|>, <|endoftext|>, ...).
  bool is_special(int32_t id) const;

  /// From tokenizer_config.json (bos_token, eos_token, pad_token, unk_token); nullopt
  /// when not configured (Qwen has no bos).
  std::optional<int32_t> bos_id() const;
  std::optional<int32_t> eos_id() const;
  std::optional<int32_t> pad_id() const;
  std::optional<int32_t> unk_id() const;

 private:
  struct state;
  explicit bpe_tokenizer(std::unique_ptr<state> s);
  /// from_json once the text is parsed; throws nlohmann::json::exception on a value of
  /// the wrong type, which from_json turns into an error.
  static result<bpe_tokenizer> build(const nlohmann::json& j,
                                     const nlohmann::json& config,
                                     const std::string& src);
  std::unique_ptr<state> s_;
};

}  // namespace adarl
