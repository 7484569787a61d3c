#include "tokenizers/bpe/byte_level.hpp"

#include <array>

namespace adarl {

namespace {

struct tables {
  std::array<std::string, 256> text;  ///< Byte -> UTF-8 of its code point.
  std::array<int16_t, 324> byte_of;   ///< Code point (< 324) -> byte, or -1.
};

std::string utf8_of(uint32_t cp) {
  std::string s;
  if (cp < 0x80) {
    s += static_cast<char>(cp);
  } else {  // the alphabet stays below U+0800
    s += static_cast<char>(0xc0 | (cp >> 6));
    s += static_cast<char>(0x80 | (cp & 0x3f));
  }
  return s;
}

const tables& table() {
  static const tables t = [] {
    tables t{};
    t.byte_of.fill(-1);
    // Printable bytes stand for themselves ('!'..'~', '¡'..'¬', '®'..'ÿ'); the others
    // take the code points 256, 257, ... in byte order.
    uint32_t next = 256;
    for (uint32_t b = 0; b < 256; ++b) {
      const bool printable =
          (b >= '!' && b <= '~') || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
      const uint32_t cp = printable ? b : next++;
      t.text[b] = utf8_of(cp);
      t.byte_of[cp] = static_cast<int16_t>(b);
    }
    return t;
  }();
  return t;
}

/// The length of the well-formed UTF-8 sequence at s[i], or 0 when it is ill-formed
/// (then `bad` is the length of its maximal invalid subpart, at least 1).
size_t well_formed(std::string_view s, size_t i, size_t& bad) {
  const auto c = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char b0 = c(i);
  bad = 1;
  if (b0 < 0x80) return 1;
  size_t n;
  unsigned char lo = 0x80, hi = 0xbf;  // allowed range of the second byte
  if (b0 >= 0xc2 && b0 <= 0xdf) {
    n = 2;
  } else if (b0 >= 0xe0 && b0 <= 0xef) {
    n = 3;
    if (b0 == 0xe0) lo = 0xa0;  // overlong
    if (b0 == 0xed) hi = 0x9f;  // surrogates
  } else if (b0 >= 0xf0 && b0 <= 0xf4) {
    n = 4;
    if (b0 == 0xf0) lo = 0x90;  // overlong
    if (b0 == 0xf4) hi = 0x8f;  // past U+10FFFF
  } else {
    return 0;
  }
  for (size_t k = 1; k < n; ++k) {
    const bool ok = i + k < s.size() && (k == 1 ? (c(i + k) >= lo && c(i + k) <= hi)
                                                : (c(i + k) >= 0x80 && c(i + k) <= 0xbf));
    if (!ok) {
      bad = k;  // bytes i..i+k-1 are a valid prefix: one replacement for all of them
      return 0;
    }
  }
  return n;
}

}  // namespace

std::string_view byte_level::encode_byte(uint8_t byte) {
  return table().text[byte];
}

void byte_level::encode(std::string_view bytes, std::string& out) {
  const auto& t = table().text;
  for (unsigned char b : bytes) out += t[b];
}

bool byte_level::decode(std::string_view text, std::string& out) {
  const auto& byte_of = table().byte_of;
  const size_t start = out.size();
  for (size_t i = 0; i < text.size();) {
    const auto b0 = static_cast<unsigned char>(text[i]);
    uint32_t cp;
    if (b0 < 0x80) {
      cp = b0;
      i += 1;
    } else if ((b0 & 0xe0) == 0xc0 && i + 1 < text.size()) {
      cp = ((b0 & 0x1fu) << 6) | (static_cast<unsigned char>(text[i + 1]) & 0x3fu);
      i += 2;
    } else {
      cp = 0xffff;  // three bytes or more: outside the alphabet
    }
    if (cp >= byte_of.size() || byte_of[cp] < 0) {
      out.resize(start);
      return false;
    }
    out += static_cast<char>(byte_of[cp]);
  }
  return true;
}

size_t utf8_error_offset(std::string_view s) {
  size_t bad;
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {  // the common case, without the call
      ++i;
      continue;
    }
    const size_t n = well_formed(s, i, bad);
    if (n == 0) return i;
    i += n;
  }
  return std::string_view::npos;
}

bool is_valid_utf8(std::string_view s) {
  return utf8_error_offset(s) == std::string_view::npos;
}

std::string utf8_lossy(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  size_t bad;
  for (size_t i = 0; i < s.size();) {
    const size_t n = well_formed(s, i, bad);
    if (n == 0) {
      out += "\xef\xbf\xbd";
      i += bad;
    } else {
      out.append(s, i, n);
      i += n;
    }
  }
  return out;
}

int utf8_length(unsigned char lead) {
  if (lead < 0xc0) return 1;
  if (lead < 0xe0) return 2;
  if (lead < 0xf0) return 3;
  return lead < 0xf8 ? 4 : 1;
}

}  // namespace adarl
