#pragma once
// The BPE model of a tokenizer.json: vocabulary, merges and their application.

#include <cstdint>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/result.hpp"

namespace adarl {

/// The `model` section of a tokenizer.json of type BPE: the vocabulary, the merges by
/// rank ("a b" strings or [a, b] pairs), byte_fallback (a character outside the
/// vocabulary becomes its <0xXX> byte tokens), ignore_merges (a word in the vocabulary
/// is one token) and unk_token/fuse_unk. A word's tokens are cached (up to a bound), so
/// repeated words cost one hash lookup. Thread-safe: the cache is behind a shared mutex,
/// everything else is immutable after parse().
class bpe_model {
 public:
  /// The model described by `j`. A type other than BPE, a merge that is not two tokens
  /// of the vocabulary or whose result is not in it, dropout, a continuing-subword prefix
  /// or end-of-word suffix are errors naming `where` and the merge's index.
  /// A value of the wrong JSON type throws nlohmann::json::exception (bpe_tokenizer
  /// turns it into an error).
  /// O(vocab + merges).
  static result<bpe_model> parse(const nlohmann::json& j, std::string_view where);

  /// Appends the ids of `word` (byte-level text, one pre-tokenized word) to `out`:
  /// merges applied lowest rank first, leftmost first among equal ranks. A character
  /// outside the vocabulary becomes <0xXX> tokens (byte_fallback), else the unknown
  /// token, else nothing, as in the reference. O(n log n) in the word's characters;
  /// O(1) for a cached word.
  void encode_word(std::string_view word, std::vector<int32_t>& out) const;

  /// The id of `token` in the vocabulary.
  std::optional<int32_t> token_to_id(std::string_view token) const;
  /// The token of `id`, or nullptr outside the vocabulary.
  const std::string* id_to_token(int32_t id) const;
  /// One past the largest id of the vocabulary.
  int32_t id_end() const { return static_cast<int32_t>(tokens_.size()); }

  bpe_model(bpe_model&& other) noexcept;
  bpe_model& operator=(bpe_model&&) = delete;
  bpe_model(const bpe_model&) = delete;

 private:
  struct merge {
    int32_t rank;
    int32_t id;  ///< The merged token.
  };
  struct string_hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const {
      return std::hash<std::string_view>{}(s);
    }
  };
  using string_map =
      std::unordered_map<std::string, int32_t, string_hash, std::equal_to<>>;
  bpe_model() = default;
  void merge_word(std::string_view word, std::vector<int32_t>& out) const;

  string_map vocab_;
  std::vector<std::string> tokens_;  ///< id -> token ("" for ids the vocabulary skips).
  std::unordered_map<uint64_t, merge> merges_;  ///< (left << 32 | right) -> merge.
  std::optional<int32_t> unk_;
  bool fuse_unk_ = false;
  bool byte_fallback_ = false;
  bool ignore_merges_ = false;
  std::optional<int32_t> byte_ids_[256];  ///< <0xXX> tokens, for byte_fallback.

  /// Words of up to max_cached_length bytes, up to max_cache_entries of them; later
  /// words are computed each time (as the reference's bounded cache does).
  static constexpr size_t max_cached_length = 256;
  static constexpr size_t max_cache_entries = 1 << 18;
  mutable std::shared_mutex cache_mutex_;
  mutable std::unordered_map<std::string, std::vector<int32_t>, string_hash,
                             std::equal_to<>>
      cache_;
};

}  // namespace adarl
