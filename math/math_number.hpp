#pragma once
// Exact rational answers without allocation: the math verifier's fast path (the built-in
// math suite's answers are integers and fractions).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace adarl {

/// An exact rational number: (negative ? -1 : 1) * num / den.
/// Invariant: den > 0, gcd(num, den) == 1, and num == 0 implies !negative (so -0 == 0),
/// which makes equality of values equality of members.
struct math_value {
  bool negative = false;
  uint64_t num = 0;
  uint64_t den = 1;
  friend bool operator==(const math_value&, const math_value&) = default;
};

/// Parses one number written the ways a model or a dataset writes a final answer:
/// integers ("42", "+5", "-5", "−5" with U+2212), thousands separators ("1,234,567";
/// groups of exactly three digits, so "1,23" is not a number), decimals ("0.750", ".5"),
/// fractions ("3/4", "\frac{3}{4}", "\dfrac{3}{4}", "\tfrac34", "-\frac{-3}{ 4 }"),
/// surrounded by spaces, "$" or "\$", with a trailing period. Anything else, a zero
/// denominator, or a value whose numerator or denominator overflows 64 bits gives
/// nullopt. Pure, no allocation; O(text length).
std::optional<math_value> parse_math_value(std::string_view text);

/// `text` read with its one comma as a decimal separator ("1000,99", "0,111", "-2,74"),
/// as many datasets and models outside English write decimals: digits, ',' and digits,
/// with an optional sign and the decoration parse_math_value strips. nullopt for anything
/// else, and for a number parse_math_value reads with thousands groups ("1,000"). The
/// verifier uses this reading only against a side written with a decimal point. Pure, no
/// allocation; O(text length).
std::optional<math_value> parse_decimal_comma(std::string_view text);

/// Digits after the decimal point of the plain number `text` (0 when it has none).
std::size_t decimal_places(std::string_view text);

/// True when a and b, rounded half away from zero to `places` decimal places (at most
/// 12), are equal: how the reference verifier compares a fraction with a decimal
/// ("\frac{1}{12}" and "0.0833333333333333" at 6 places). Pure; O(1).
bool equal_at_places(const math_value& a, const math_value& b, int places);

}  // namespace adarl
