#pragma once
// The normalizer of a tokenizer.json: Unicode normal forms with ICU.

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.hpp"

namespace adarl {

/// The `normalizer` of a tokenizer.json: none, or Unicode normal forms (NFC, NFD, NFKC,
/// NFKD), alone or in a Sequence, applied with ICU. Qwen2/Qwen3 use NFC. Immutable after
/// parse(): thread-safe.
class text_normalizer {
 public:
  /// A Unicode normal form.
  enum class form { nfc, nfd, nfkc, nfkd };

  /// The normalizer described by `j` (null for none). Another type is an error naming
  /// `where` (e.g. "tokenizer.json: normalizer") and the type.
  /// A value of the wrong JSON type throws nlohmann::json::exception (bpe_tokenizer
  /// turns it into an error).
  static result<text_normalizer> parse(const nlohmann::json& j, std::string_view where);

  /// `text` (valid UTF-8) in the configured forms, in order. ASCII text is returned as it
  /// is without calling ICU. O(size).
  std::string apply(std::string_view text) const;

  /// True when apply() is the identity.
  bool empty() const { return forms_.empty(); }

  /// A normalizer applying `forms` in order.
  explicit text_normalizer(std::vector<form> forms = {}) : forms_(std::move(forms)) {}

 private:
  std::vector<form> forms_;
};

}  // namespace adarl
