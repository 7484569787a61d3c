#include "math/math_number.hpp"

#include <numeric>

#include "base/text.hpp"

namespace adarl {
namespace {

// U+2212 MINUS SIGN, as UTF-8.
constexpr std::string_view kUnicodeMinus = "\xE2\x88\x92";
// 10^19 is the largest power of ten below 2^64.
constexpr int kMaxDecimals = 19;

constexpr bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// Strips what surrounds a number without changing it: blanks, "$" and "\$", and a
// trailing period, repeatedly ("$42$.", "\$ 1,000 .").
std::string_view strip_decoration(std::string_view s) {
  for (;;) {
    const std::string_view before = trim_blanks(s);
    s = before;
    if (s.starts_with("\\$"))
      s.remove_prefix(2);
    else if (s.starts_with('$'))
      s.remove_prefix(1);
    if (s.ends_with('$')) s.remove_suffix(1);
    if (s.ends_with('.')) s.remove_suffix(1);
    if (s.size() == before.size()) return s;
  }
}

// Builds a value in canonical form; nothing to check but den != 0 (callers ensure it).
math_value make_value(bool negative, uint64_t num, uint64_t den) {
  const uint64_t g = std::gcd(num, den);
  return num == 0 ? math_value{} : math_value{negative, num / g, den / g};
}

// a / b exactly; nullopt when b is zero or a part overflows 64 bits.
std::optional<math_value> divide(const math_value& a, const math_value& b) {
  if (b.num == 0) return std::nullopt;
  if (a.num == 0) return math_value{};
  // Cross-reduce first so that only truly unrepresentable results overflow.
  const uint64_t g1 = std::gcd(a.num, b.num);
  const uint64_t g2 = std::gcd(a.den, b.den);
  uint64_t num = 0;
  uint64_t den = 0;
  if (__builtin_mul_overflow(a.num / g1, b.den / g2, &num) ||
      __builtin_mul_overflow(a.den / g2, b.num / g1, &den)) {
    return std::nullopt;
  }
  return make_value(a.negative != b.negative, num, den);
}

// A cursor over one candidate answer; every read function leaves the cursor after
// what it consumed.
class number_reader {
 public:
  explicit number_reader(std::string_view s) : s_(s) {}

  bool at_end() const { return i_ == s_.size(); }
  void skip_spaces() {
    while (i_ < s_.size() && is_blank(s_[i_])) ++i_;
  }
  bool eat(std::string_view word) {
    if (!s_.substr(i_).starts_with(word)) return false;
    i_ += word.size();
    return true;
  }
  // An optional sign, then blanks; true when it was a minus.
  bool sign() {
    const bool negative = eat("-") || eat(kUnicodeMinus);
    if (!negative) eat("+");
    skip_spaces();
    return negative;
  }

  // Unsigned decimal: digits with optional thousands groups, then an optional
  // fractional part ("12", "1,234.5", ".5").
  std::optional<math_value> decimal() {
    const size_t start = i_;
    uint64_t whole = 0;
    if (!digits(whole)) return std::nullopt;
    const size_t lead = i_ - start;
    // Thousands groups only after 1 to 3 leading digits not starting with 0.
    if (lead >= 1 && lead <= 3 && s_[start] != '0') {
      while (is_group(i_)) {
        ++i_;  // the comma
        if (!digits(whole)) return std::nullopt;
      }
    }
    if (i_ + 1 < s_.size() && s_[i_] == '.' && is_digit(s_[i_ + 1])) {
      ++i_;
      return fraction_part(whole);
    }
    if (lead == 0) return std::nullopt;
    return math_value{false, whole, 1};
  }

  // One argument of \frac: "{ -3 }" or a single digit ("\frac34").
  std::optional<math_value> frac_argument() {
    skip_spaces();
    if (i_ < s_.size() && is_digit(s_[i_])) {
      return math_value{false, static_cast<uint64_t>(s_[i_++] - '0'), 1};
    }
    if (!eat("{")) return std::nullopt;
    skip_spaces();
    const bool negative = sign();
    auto v = decimal();
    skip_spaces();
    if (!v || !eat("}")) return std::nullopt;
    v->negative = negative && v->num != 0;
    return v;
  }

 private:
  // Appends the digits at the cursor to `value`; false on overflow.
  bool digits(uint64_t& value) {
    for (; i_ < s_.size() && is_digit(s_[i_]); ++i_) {
      if (__builtin_mul_overflow(value, 10u, &value) ||
          __builtin_add_overflow(value, static_cast<uint64_t>(s_[i_] - '0'), &value)) {
        return false;
      }
    }
    return true;
  }
  // A comma followed by exactly three digits.
  bool is_group(size_t at) const {
    if (at + 3 >= s_.size() || s_[at] != ',') return false;
    for (size_t k = 1; k <= 3; ++k) {
      if (!is_digit(s_[at + k])) return false;
    }
    return at + 4 == s_.size() || !is_digit(s_[at + 4]);
  }
  // The digits after the decimal point; trailing zeros do not count toward overflow.
  std::optional<math_value> fraction_part(uint64_t whole) {
    const size_t start = i_;
    while (i_ < s_.size() && is_digit(s_[i_])) ++i_;
    size_t end = i_;
    while (end > start && s_[end - 1] == '0') --end;
    if (end - start > static_cast<size_t>(kMaxDecimals)) return std::nullopt;
    uint64_t num = whole;
    uint64_t den = 1;
    for (size_t k = start; k < end; ++k) {
      den *= 10;
      if (__builtin_mul_overflow(num, 10u, &num) ||
          __builtin_add_overflow(num, static_cast<uint64_t>(s_[k] - '0'), &num)) {
        return std::nullopt;
      }
    }
    return make_value(false, num, den);
  }

  std::string_view s_;
  size_t i_ = 0;
};

}  // namespace

std::optional<math_value> parse_math_value(std::string_view text) {
  number_reader in(strip_decoration(text));
  const bool negative = in.sign();
  std::optional<math_value> value;
  if (in.eat("\\frac") || in.eat("\\dfrac") || in.eat("\\tfrac")) {
    const auto num = in.frac_argument();
    const auto den = num ? in.frac_argument() : std::nullopt;
    if (den) value = divide(*num, *den);
  } else if ((value = in.decimal())) {
    in.skip_spaces();
    if (in.eat("/")) {
      in.skip_spaces();
      const auto den = in.decimal();
      value = den ? divide(*value, *den) : std::nullopt;
    }
  }
  in.skip_spaces();
  if (!value || !in.at_end()) return std::nullopt;
  if (negative && value->num != 0) value->negative = !value->negative;
  return value;
}

std::optional<math_value> parse_decimal_comma(std::string_view text) {
  const std::string_view t = strip_decoration(text);
  if (parse_math_value(t)) return std::nullopt;  // "1,000": thousands, not a decimal
  const size_t comma = t.find(',');
  if (comma == std::string_view::npos || t.find(',', comma + 1) != std::string_view::npos ||
      comma + 1 >= t.size() || comma == 0 || !is_digit(t[comma - 1]) ||
      !is_digit(t[comma + 1]) || t.size() > 48)
    return std::nullopt;
  for (size_t k = comma + 1; k < t.size(); ++k) {
    if (!is_digit(t[k])) return std::nullopt;
  }
  char buffer[48];
  for (size_t k = 0; k < t.size(); ++k) buffer[k] = k == comma ? '.' : t[k];
  const std::string_view dotted(buffer, t.size());
  if (dotted.find(',') != std::string_view::npos) return std::nullopt;
  return parse_math_value(dotted);
}

std::size_t decimal_places(std::string_view text) {
  const std::string_view t = strip_decoration(text);
  const size_t point = t.rfind('.');
  if (point == std::string_view::npos) return 0;
  size_t k = point + 1;
  while (k < t.size() && is_digit(t[k])) ++k;
  return k - point - 1;
}

__extension__ typedef unsigned __int128 uint128;  // GCC and Clang; no warning under -Wpedantic

bool equal_at_places(const math_value& a, const math_value& b, int places) {
  if (places < 0 || places > 12) return a == b;
  uint128 scale = 1;
  for (int k = 0; k < places; ++k) scale *= 10;
  // round(num * scale / den), half away from zero, on the magnitude.
  const auto rounded = [&](const math_value& v) {
    const uint128 twice = 2 * static_cast<uint128>(v.num) * scale;
    return (twice + v.den) / (2 * static_cast<uint128>(v.den));
  };
  const uint128 ra = rounded(a), rb = rounded(b);
  if (ra != rb) return false;
  return ra == 0 || a.negative == b.negative;
}

}  // namespace adarl
