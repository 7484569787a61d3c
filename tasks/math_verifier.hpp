#pragma once
// The "math" verifier: final answers of math problems (MATH, GSM8K, AIME, Minerva and
// OpenR1 styles, and the built-in math suite) against a reference, up to mathematical
// equivalence. The pipeline of one verification:
//   extraction (math/math_extract.hpp: \boxed{}, ####, "the answer is", $...$, last number)
//   -> fast path: both sides plain numbers (math/math_number.hpp), compared as exact
//      rationals without allocation or GiNaC (the built-in suite's case); a decimal
//      comma ("1000,99", "0,111") is read against a side written with a decimal point,
//      and a decimal of six or more places against a fraction is equal when both round
//      to the same six places (as the reference verifier, Math-Verify, compares them)
//   -> normalisation (math/math_normalize.hpp) -> LaTeX reader (math/math_latex_parser.hpp)
//   -> equivalence (math/math_equivalence.hpp) with GiNaC (math/math_scalar_engine.hpp).
// Thread-safety: verify() is const and may run on many threads; GiNaC itself is not
// thread-safe, so the GiNaC step runs under one process-wide mutex (math_scalar_engine):
// symbolic verifications are serialised, the fast path and the text steps are not.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "math/math_extract.hpp"
#include "math/math_limits.hpp"
#include "math/math_number.hpp"
#include "tasks/verifier.hpp"

namespace adarl {

/// How math_verifier compares.
enum class math_mode {
  symbolic,        ///< Normalise, parse and compare up to equivalence (the default).
  exact_rational,  ///< The verifier before GiNaC: both sides must be plain numbers
                   ///< (parse_math_value; the reference as written), equal as rationals.
};

/// Settings of math_verifier.
struct math_verifier_config {
  /// Extraction methods, tried in this order; the first that finds a non-empty
  /// candidate decides (an unparsable candidate is not passed on to the next method).
  /// The reference goes through the same methods except last_number (extract_reference).
  std::vector<extraction> order{extraction::boxed, extraction::hashes, extraction::answer_is,
                                extraction::math_delimiters, extraction::whole,
                                extraction::last_number};
  math_mode mode = math_mode::symbolic;
  /// Relative tolerance of numeric comparisons, used only where a side is written with a
  /// decimal point and the other is irrational ("1.4142136" for \sqrt{2}, "3.14159" for
  /// \pi); two rational values are compared exactly, except a plain fraction against a
  /// plain decimal of six or more places (the fast path: equal at six places).
  double relative_tolerance = 1e-6;
  math_limits limits{};
  /// A reference read as text with more words than this (or with a digit and three or
  /// more words) is a whole solution the verifier cannot read: "bad_reference".
  std::size_t max_text_words = 6;

  /// The settings of the verifier before GiNaC (exact rationals, the three old methods).
  static math_verifier_config exact_rational_only();
};

/// Scores a math completion against item.answer. Reward 1 when the extracted answer is
/// equivalent to the reference's (see compare_math_answers for the shapes: numbers and
/// expressions, tuples, sets, intervals, inequalities, equations, matrices; text answers
/// case- and blank-insensitively), else 0 with reason:
///   "no_answer"      no extraction method found a candidate (or it normalises to nothing);
///   "unparsable"     the candidate is not math the reader knows, or has no value (1/0),
///                    or is text where the reference is math;
///   "wrong_value"    a different value, shape, or an equivalence not established
///                    (a false positive is worse than a false negative);
///   "bad_reference"  item.answer states no usable answer (see check_reference); a
///                    reference without a value ("\zzz", "\frac{1}{0}") still rewards a
///                    candidate that normalises to the same text;
///   "too_complex"    past config.limits (length, size, exponents, factorials, digits);
///   "timeout"        past config.limits.budget;
///   "internal_error" an unexpected exception (none is known; verify never throws).
/// Registry name "math". Thread-safe (see the file comment). Fast path: no heap
/// allocation, O(completion length); otherwise bounded by config.limits.
class math_verifier final : public verifier {
 public:
  explicit math_verifier(math_verifier_config cfg = {});
  std::string_view name() const override { return "math"; }
  verdict verify(const task_item& item, std::string_view completion) const override;
  /// "" when item.answer states an answer this verifier can compare against, else why
  /// not: no answer found, unreadable, prose, past the limits, or without a value.
  std::string check_reference(const task_item& item) const override;

 private:
  std::string_view reference_text(std::string_view answer) const;
  verdict verify_symbolic(std::string_view reference, std::string_view candidate) const;

  math_verifier_config cfg_;
};

}  // namespace adarl
