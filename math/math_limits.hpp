#pragma once
// Bounds on one math verification: what the LaTeX reader accepts and what reaches GiNaC,
// so that a hostile answer ("10^{10^{10}}", "1000!!", 10,000 nested parentheses) costs
// microseconds and a reason ("too_complex"), never a hang.

#include <chrono>
#include <cstddef>
#include <cstdint>

namespace adarl {

/// Limits of the math verifier. Anything past them is reason "too_complex" (for the
/// answer) or "bad_reference" (for the reference); the time budget is reason "timeout".
struct math_limits {
  /// Longest extracted answer (and extracted reference), in bytes after extraction; a
  /// completion itself may be any length (extraction is linear).
  std::size_t max_answer_chars = 1000;
  uint32_t max_nodes = 400;     ///< Syntax tree nodes of one side.
  uint32_t max_depth = 40;      ///< Nesting of atoms (brackets, fraction and root arguments).
  uint32_t max_digits = 200;    ///< Digits of one number literal.
  uint32_t max_elements = 64;   ///< Elements of one tuple, set, list or matrix.
  uint32_t max_plus_minus = 3;  ///< "\pm" signs of one value (each doubles its variants).
  /// Largest |integer exponent| of a power whose base is not a number, and largest
  /// root index and exponent denominator.
  uint32_t max_exponent = 1000;
  /// Largest exact number GiNaC may build, in bits of numerator plus denominator (a
  /// power of numbers is refused before it is computed: 2^{10000} fits, 10^{10^{10}} not).
  uint32_t max_number_bits = 20000;
  uint32_t max_factorial = 1000;  ///< Largest n of n! (and of \binom{n}{k}).
  /// Time budget of one verify(): CPU time of the verifying thread (so neither waits for
  /// the GiNaC mutex nor descheduling on a loaded machine count), checked between steps;
  /// each step is bounded by the limits above, so the overrun is small.
  std::chrono::milliseconds budget{100};
};

}  // namespace adarl
