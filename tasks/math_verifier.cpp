#include "tasks/math_verifier.hpp"

#include <numeric>
#include <utility>

#include "tasks/text.hpp"

namespace adarl {
namespace {

// U+2212 MINUS SIGN, as UTF-8.
constexpr std::string_view kUnicodeMinus = "\xE2\x88\x92";
constexpr std::string_view kBoxed = "\\boxed{";
constexpr std::string_view kHashes = "####";
// 10^19 is the largest power of ten below 2^64.
constexpr int kMaxDecimals = 19;

constexpr bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
constexpr bool is_alpha(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
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

// The characters a number token may contain after its sign.
constexpr bool in_number_run(char c) {
  return is_digit(c) || c == ',' || c == '.' || c == '/';
}

// End of the unsigned number token starting at `i` (a digit, or '.' and a digit):
// digits, thousands groups, decimals, then optionally '/' and a second such number.
size_t number_token_end(std::string_view s, size_t i, bool allow_slash = true) {
  const size_t start = i;
  while (i < s.size() && is_digit(s[i])) ++i;
  const size_t lead = i - start;
  if (lead >= 1 && lead <= 3 && s[start] != '0') {
    while (i + 3 < s.size() && s[i] == ',' && is_digit(s[i + 1]) && is_digit(s[i + 2]) &&
           is_digit(s[i + 3]) && (i + 4 == s.size() || !is_digit(s[i + 4]))) {
      i += 4;
    }
  }
  if (i + 1 < s.size() && s[i] == '.' && is_digit(s[i + 1])) {
    for (++i; i < s.size() && is_digit(s[i]);) ++i;
  }
  if (allow_slash && i + 1 < s.size() && s[i] == '/' &&
      (is_digit(s[i + 1]) ||
       (s[i + 1] == '.' && i + 2 < s.size() && is_digit(s[i + 2])))) {
    i = number_token_end(s, i + 1, /*allow_slash=*/false);
  }
  return i;
}

// Where the token starting at `i` really starts: before a sign that is unary (not
// preceded by something that could be its left operand).
size_t with_sign(std::string_view s, size_t i) {
  size_t sign_at = i;
  if (i >= 1 && (s[i - 1] == '-' || s[i - 1] == '+'))
    sign_at = i - 1;
  else if (i >= 3 && s.substr(i - 3, 3) == kUnicodeMinus)
    sign_at = i - 3;
  if (sign_at == i || sign_at == 0) return sign_at;
  const char before = s[sign_at - 1];
  const bool binary = is_digit(before) || is_alpha(before) || before == ')' ||
                      before == ']' || before == '}' || before == '.' || before == '_';
  return binary ? i : sign_at;
}

// The last valid number token within the run [begin, end) of number characters.
std::optional<std::string_view> last_token_in_run(std::string_view s, size_t begin,
                                                  size_t end) {
  std::optional<std::string_view> last;
  for (size_t i = begin; i < end;) {
    const bool starts =
        is_digit(s[i]) || (s[i] == '.' && i + 1 < end && is_digit(s[i + 1]));
    if (!starts) {
      ++i;
      continue;
    }
    const size_t stop = number_token_end(s, i);
    const bool in_word = i > 0 && (is_alpha(s[i - 1]) || s[i - 1] == '_');
    if (!in_word) {
      const size_t from = with_sign(s, i);
      last = s.substr(from, stop - from);
    }
    i = stop;
  }
  return last;
}

// Scans backwards run by run (a run: a maximal stretch of number characters holding a
// digit), so a long completion costs only as much as its tail up to the last number.
std::optional<std::string_view> extract_last_number(std::string_view s) {
  size_t limit = s.size();
  while (limit > 0) {
    size_t digit_end = limit;
    while (digit_end > 0 && !is_digit(s[digit_end - 1])) --digit_end;
    if (digit_end == 0) return std::nullopt;
    size_t run_end = digit_end;
    while (run_end < s.size() && in_number_run(s[run_end])) ++run_end;
    size_t run_begin = digit_end - 1;
    while (run_begin > 0 && in_number_run(s[run_begin - 1])) --run_begin;
    if (auto token = last_token_in_run(s, run_begin, run_end)) return token;
    limit = run_begin;
  }
  return std::nullopt;
}

std::optional<std::string_view> extract_boxed(std::string_view s) {
  const size_t at = s.rfind(kBoxed);
  if (at == std::string_view::npos) return std::nullopt;
  const size_t open = at + kBoxed.size();
  int depth = 1;
  for (size_t i = open; i < s.size(); ++i) {
    if (s[i] == '{') ++depth;
    if (s[i] == '}' && --depth == 0) {
      const std::string_view content = trim_blanks(s.substr(open, i - open));
      if (content.empty()) return std::nullopt;
      return content;
    }
  }
  return std::nullopt;
}

std::optional<std::string_view> extract_hashes(std::string_view s) {
  const size_t at = s.rfind(kHashes);
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view rest = s.substr(at + kHashes.size());
  rest = rest.substr(0, rest.find('\n'));
  rest = trim_blanks(rest);
  if (rest.empty()) return std::nullopt;
  return rest;
}

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

std::optional<std::string_view> extract_math_answer(std::string_view completion,
                                                    extraction how) {
  switch (how) {
    case extraction::boxed:
      return extract_boxed(completion);
    case extraction::hashes:
      return extract_hashes(completion);
    case extraction::last_number:
      return extract_last_number(completion);
  }
  return std::nullopt;
}

math_verifier::math_verifier(math_verifier_config cfg) : cfg_(std::move(cfg)) {}

verdict math_verifier::verify(const task_item& item, std::string_view completion) const {
  for (const extraction how : cfg_.order) {
    const auto candidate = extract_math_answer(completion, how);
    if (!candidate) continue;
    const auto reference = parse_math_value(item.answer);
    if (!reference) return {0.f, "bad_reference"};
    const auto got = parse_math_value(*candidate);
    if (!got) return {0.f, "unparsable"};
    if (*got == *reference) return {1.f, ""};
    return {0.f, "wrong_value"};
  }
  return {0.f, "no_answer"};
}

}  // namespace adarl
