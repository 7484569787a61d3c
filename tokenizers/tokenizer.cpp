#include "tokenizers/tokenizer.hpp"

#include <cstdio>

namespace adarl {

std::string tokenizer::default_charset() {
  std::string s = "\n";
  for (char c = ' '; c <= '~'; ++c) s += c;
  return s;
}

result<tokenizer> tokenizer::from_charset(std::string_view charset) {
  tokenizer t;
  t.id_of_.fill(-1);
  for (size_t i = 0; i < charset.size(); ++i) {
    const auto byte = static_cast<unsigned char>(charset[i]);
    if (byte == 0) return error{"tokenizer charset: NUL byte at position " + std::to_string(i)};
    if (t.id_of_[byte] >= 0)
      return error{"tokenizer charset: byte " + std::to_string(byte) + " repeated at position " +
                   std::to_string(i)};
    t.id_of_[byte] = num_special + static_cast<int32_t>(i);
  }
  t.charset_ = std::string(charset);
  return t;
}

namespace {
std::string describe(unsigned char c) {
  if (c >= 0x20 && c < 0x7f) return std::string("'") + static_cast<char>(c) + "'";
  char buf[16];
  std::snprintf(buf, sizeof buf, "byte 0x%02x", c);
  return buf;
}
}  // namespace

result<std::vector<int32_t>> tokenizer::encode(std::string_view text,
                                               std::string_view source) const {
  std::vector<int32_t> ids;
  ids.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    const int32_t id = id_of_[c];
    if (id < 0)
      return error{std::string(source) + ": character " + describe(c) + " at position " +
                   std::to_string(i) + " is not in the tokenizer's vocabulary"};
    ids.push_back(id);
  }
  return ids;
}

std::string tokenizer::decode(const std::vector<int32_t>& ids) const {
  std::string out;
  out.reserve(ids.size());
  for (int32_t id : ids) {
    if (id >= 0 && id < num_special) continue;
    const int32_t k = id - num_special;
    out += k >= 0 && k < static_cast<int32_t>(charset_.size()) ? charset_[k] : '?';
  }
  return out;
}

result<std::vector<int32_t>> tokenizer::encode_prompt(std::string_view text,
                                                      std::string_view source) const {
  auto body = encode(text, source);
  if (!body) return body.err();
  std::vector<int32_t> out;
  out.reserve(body->size() + 2);
  out.push_back(bos);
  out.insert(out.end(), body->begin(), body->end());
  out.push_back(sep);
  return out;
}

std::string tokenizer::decode_completion(std::span<const int32_t> ids) const {
  return decode(std::vector<int32_t>(ids.begin(), ids.end()));
}

const std::vector<int32_t>& tokenizer::end_ids() const {
  static const std::vector<int32_t> ends{eos};
  return ends;
}

}  // namespace adarl
