#include "tokenizers/bpe/text_normalizer.hpp"

#include <unicode/unorm2.h>
#include <unicode/ustring.h>

#include <nlohmann/json.hpp>

namespace adarl {

namespace {

const UNormalizer2* instance(text_normalizer::form f) {
  UErrorCode status = U_ZERO_ERROR;
  const UNormalizer2* n = nullptr;
  switch (f) {
    case text_normalizer::form::nfc:
      n = unorm2_getNFCInstance(&status);
      break;
    case text_normalizer::form::nfd:
      n = unorm2_getNFDInstance(&status);
      break;
    case text_normalizer::form::nfkc:
      n = unorm2_getNFKCInstance(&status);
      break;
    case text_normalizer::form::nfkd:
      n = unorm2_getNFKDInstance(&status);
      break;
  }
  return U_SUCCESS(status) ? n : nullptr;
}

std::u16string to_utf16(std::string_view s) {
  std::u16string out(s.size(), u'\0');  // UTF-16 never needs more units than UTF-8 bytes
  int32_t length = 0;
  UErrorCode status = U_ZERO_ERROR;
  u_strFromUTF8(out.data(), static_cast<int32_t>(out.size()), &length, s.data(),
                static_cast<int32_t>(s.size()), &status);
  out.resize(U_SUCCESS(status) ? static_cast<size_t>(length) : 0);
  return out;
}

std::string to_utf8(const std::u16string& s) {
  std::string out(s.size() * 3, '\0');
  int32_t length = 0;
  UErrorCode status = U_ZERO_ERROR;
  u_strToUTF8(out.data(), static_cast<int32_t>(out.size()), &length, s.data(),
              static_cast<int32_t>(s.size()), &status);
  out.resize(U_SUCCESS(status) ? static_cast<size_t>(length) : 0);
  return out;
}

result<bool> add_forms(const nlohmann::json& j, std::string_view where,
                       std::vector<text_normalizer::form>& out) {
  if (j.is_null()) return true;
  const std::string type = j.is_object() ? j.value("type", "") : "";
  if (type == "NFC") {
    out.push_back(text_normalizer::form::nfc);
  } else if (type == "NFD") {
    out.push_back(text_normalizer::form::nfd);
  } else if (type == "NFKC") {
    out.push_back(text_normalizer::form::nfkc);
  } else if (type == "NFKD") {
    out.push_back(text_normalizer::form::nfkd);
  } else if (type == "Sequence" && j.contains("normalizers") &&
             j["normalizers"].is_array()) {
    for (const auto& n : j["normalizers"]) {
      auto ok = add_forms(n, where, out);
      if (!ok.ok()) return ok;
    }
  } else {
    return error{std::string(where) + ": unsupported type \"" + type +
                 "\" (expected null, NFC, NFD, NFKC, NFKD or a Sequence of them)"};
  }
  return true;
}

}  // namespace

result<text_normalizer> text_normalizer::parse(const nlohmann::json& j,
                                               std::string_view where) {
  std::vector<form> forms;
  auto ok = add_forms(j, where, forms);
  if (!ok.ok()) return ok.err();
  for (form f : forms) {
    if (instance(f) == nullptr)
      return error{std::string(where) + ": ICU has no normalizer data"};
  }
  return text_normalizer(std::move(forms));
}

std::string text_normalizer::apply(std::string_view text) const {
  bool ascii = true;
  for (unsigned char c : text) ascii = ascii && c < 0x80;
  if (forms_.empty() || ascii) return std::string(text);  // ASCII is in every normal form
  std::u16string s = to_utf16(text);
  bool changed = false;
  for (form f : forms_) {
    const UNormalizer2* n = instance(f);
    UErrorCode status = U_ZERO_ERROR;
    if (unorm2_isNormalized(n, s.data(), static_cast<int32_t>(s.size()), &status) &&
        U_SUCCESS(status)) {
      continue;
    }
    status = U_ZERO_ERROR;
    // Decompositions grow text by at most a factor of 18 (NFKD); retry if it is larger.
    std::u16string out(s.size() * 4 + 16, u'\0');
    int32_t length =
        unorm2_normalize(n, s.data(), static_cast<int32_t>(s.size()), out.data(),
                         static_cast<int32_t>(out.size()), &status);
    if (status == U_BUFFER_OVERFLOW_ERROR) {
      out.resize(static_cast<size_t>(length));
      status = U_ZERO_ERROR;
      length = unorm2_normalize(n, s.data(), static_cast<int32_t>(s.size()), out.data(),
                                static_cast<int32_t>(out.size()), &status);
    }
    if (U_FAILURE(status)) return std::string(text);  // valid input: does not happen
    out.resize(static_cast<size_t>(length));
    s = std::move(out);
    changed = true;
  }
  return changed ? to_utf8(s) : std::string(text);
}

}  // namespace adarl
