#pragma once
// The pre-tokenizer of a tokenizer.json: Split and ByteLevel steps.

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.hpp"
#include "tokenizers/bpe/regex_splitter.hpp"

namespace adarl {

/// The `pre_tokenizer` of a byte-level BPE tokenizer.json: Split steps (a regex or a
/// literal, with a behavior), then a ByteLevel step, alone or in a Sequence. ByteLevel
/// with use_regex true first splits with GPT-2's pattern; add_prefix_space puts a space
/// before each piece that lacks one. The words come out in the byte-level alphabet,
/// ready for the BPE model. Immutable after parse(): thread-safe.
class pre_tokenizer {
 public:
  /// The pattern ByteLevel uses when use_regex is true (GPT-2's).
  static constexpr std::string_view gpt2_pattern =
      R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";

  /// The pre-tokenizer described by `j`. An unsupported type, a missing ByteLevel step,
  /// a step after ByteLevel or a bad pattern is an error naming `where`.
  /// A value of the wrong JSON type throws nlohmann::json::exception (bpe_tokenizer
  /// turns it into an error).
  static result<pre_tokenizer> parse(const nlohmann::json& j, std::string_view where);

  /// Appends the byte-level words of `text` (valid UTF-8) to `words`. O(size).
  void split(std::string_view text, std::vector<std::string>& words) const;

 private:
  struct step {
    regex_splitter splitter;
    split_behavior behavior = split_behavior::isolated;
    bool invert = false;
  };
  pre_tokenizer() = default;

  std::vector<step> steps_;  ///< Splits, in order (ByteLevel's regex last when on).
  bool add_prefix_space_ = false;
  /// Invariant: add_prefix_space_ applies after the Split steps and before ByteLevel's
  /// own regex (prefix_step_ = steps_.size() without it, steps_.size() - 1 with it).
  size_t prefix_step_ = 0;
};

}  // namespace adarl
