#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "tasks/verifier.hpp"

namespace adarl {

/// Where math_verifier looks for the final answer in a completion.
enum class extraction {
  boxed,        ///< Content of the last `\boxed{...}` (braces balanced).
  hashes,       ///< Rest of the line after the last `####` (GSM8K style).
  last_number,  ///< The last number in the text (see extract_math_answer).
};

/// Settings of math_verifier.
struct math_verifier_config {
  /// Extraction methods, tried in this order; the first that finds a non-empty
  /// candidate decides (an unparsable candidate is not passed on to the next method).
  std::vector<extraction> order{extraction::boxed, extraction::hashes,
                                extraction::last_number};
};

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

/// The answer candidate `how` finds in `completion`, as a view into it; nullopt when it
/// finds nothing or only blanks. boxed: the content of the last `\boxed{`, when its
/// braces balance (an unclosed last box finds nothing). hashes: the rest of the line
/// after the last "####". last_number: the last number token: digits with optional
/// thousands groups, decimal part and "/denominator", with a unary sign ("x=-5" gives
/// "-5", "10-5" gives "5"); a number glued to a preceding letter or '_' is part of a
/// word and skipped ("x2", "H2O"). Pure, no allocation; O(completion length).
std::optional<std::string_view> extract_math_answer(std::string_view completion,
                                                    extraction how);

/// Scores a math completion: reward 1 when the extracted final answer equals
/// item.answer as an exact rational (so "0.750" == "3/4" and "-0" == "0"), else 0
/// with reason "no_answer" (no method found a candidate), "unparsable" (the candidate
/// is not a number, or overflows), "wrong_value", or "bad_reference" (item.answer is
/// not a number). Registry name "math". Stateless and thread-safe; no heap allocation
/// per call (the reasons fit std::string's small buffer); O(completion length).
class math_verifier final : public verifier {
 public:
  explicit math_verifier(math_verifier_config cfg = {});
  std::string_view name() const override { return "math"; }
  verdict verify(const task_item& item, std::string_view completion) const override;

 private:
  math_verifier_config cfg_;
};

}  // namespace adarl
