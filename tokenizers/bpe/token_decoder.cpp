#include "tokenizers/bpe/token_decoder.hpp"

#include <nlohmann/json.hpp>

#include "tokenizers/bpe/byte_level.hpp"

namespace adarl {

namespace {

/// The byte of a "<0xXX>" token (upper-case hex, as the vocabularies write it).
int fallback_byte(std::string_view t) {
  if (t.size() != 6 || t.substr(0, 3) != "<0x" || t[5] != '>') return -1;
  int v = 0;
  for (char c : t.substr(3, 2)) {
    v *= 16;
    if (c >= '0' && c <= '9') {
      v += c - '0';
    } else if (c >= 'A' && c <= 'F') {
      v += c - 'A' + 10;
    } else {
      return -1;
    }
  }
  return v;
}

std::vector<std::string> byte_fallback(std::vector<std::string> tokens) {
  std::vector<std::string> out;
  std::string bytes;
  size_t count = 0;
  const auto flush = [&] {
    if (count == 0) return;
    if (is_valid_utf8(bytes)) {
      out.push_back(bytes);
    } else {  // one replacement per byte, as the reference
      std::string r;
      for (size_t i = 0; i < count; ++i) r += "\xef\xbf\xbd";
      out.push_back(r);
    }
    bytes.clear();
    count = 0;
  };
  for (auto& t : tokens) {
    const int b = fallback_byte(t);
    if (b >= 0) {
      bytes += static_cast<char>(b);
      ++count;
    } else {
      flush();
      out.push_back(std::move(t));
    }
  }
  flush();
  return out;
}

std::vector<std::string> byte_level_decode(const std::vector<std::string>& tokens) {
  std::string bytes;
  for (const auto& t : tokens) {
    // A token outside the alphabet (an added token with a space, say) stays as it is.
    if (!byte_level::decode(t, bytes)) bytes += t;
  }
  return {utf8_lossy(bytes)};
}

result<bool> add_steps(const nlohmann::json& j, const std::string& where,
                       std::vector<int>& out) {
  const std::string type = j.is_object() ? j.value("type", "") : "";
  if (type == "ByteLevel") {
    out.push_back(0);
  } else if (type == "ByteFallback") {
    out.push_back(1);
  } else if (type == "Fuse") {
    out.push_back(2);
  } else if (type == "Sequence" && j.contains("decoders") && j["decoders"].is_array()) {
    for (const auto& d : j["decoders"]) {
      auto ok = add_steps(d, where, out);
      if (!ok.ok()) return ok;
    }
  } else {
    return error{where + ": unsupported type \"" + type +
                 "\" (expected ByteLevel, ByteFallback, Fuse or a Sequence of them)"};
  }
  return true;
}

}  // namespace

result<token_decoder> token_decoder::parse(const nlohmann::json& j,
                                           std::string_view where) {
  token_decoder d;
  if (j.is_null()) {
    d.join_with_spaces_ = true;
    return d;
  }
  std::vector<int> steps;
  auto ok = add_steps(j, std::string(where), steps);
  if (!ok.ok()) return ok.err();
  for (int s : steps) d.steps_.push_back(static_cast<step>(s));
  return d;
}

std::string token_decoder::decode(std::vector<std::string> tokens) const {
  for (step s : steps_) {
    switch (s) {
      case step::byte_level:
        tokens = byte_level_decode(tokens);
        break;
      case step::byte_fallback:
        tokens = byte_fallback(std::move(tokens));
        break;
      case step::fuse: {
        std::string all;
        for (const auto& t : tokens) all += t;
        tokens = {all};
        break;
      }
    }
  }
  std::string out;
  for (size_t i = 0; i < tokens.size(); ++i) {
    if (join_with_spaces_ && i > 0) out += ' ';
    out += tokens[i];
  }
  return out;
}

}  // namespace adarl
