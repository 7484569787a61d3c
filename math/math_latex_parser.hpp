#pragma once
// A recursive-descent reader of the LaTeX that math answers are written in, producing a
// math_ast (math/math_ast.hpp). GiNaC-free; GiNaC's own parser reads plain syntax only.

#include <string_view>

#include "math/math_ast.hpp"
#include "math/math_limits.hpp"

namespace adarl {

/// How reading an answer ended.
enum class math_parse_status : uint8_t {
  ok,           ///< ast holds the answer.
  unparsable,   ///< Not in the grammar below (the verifier may still compare it as text).
  too_complex,  ///< Past a limit: length, nodes, depth, digits or elements.
};

/// The outcome of parse_math_latex: the tree when status is ok.
struct math_parse_result {
  math_parse_status status = math_parse_status::unparsable;
  math_ast ast;
};

/// Reads `text`, an answer already through normalize_math_answer (math/math_normalize.hpp).
/// The grammar, loosest first:
///   answers   items separated by ',' ';' or "or"/"and" (plain or in \text{}): a list
///   relation  chain of = < > \le \ge \ne \in (also <=, >=, !=): "1 < x \le 3", "x \in [0,1)";
///             a chain of '=' keeps its first and last sides ("x = 5+6 = 11" is x = 11);
///             "\approx" ends an equation ("x = 1/3 \approx 0.33" is x = 1/3) or is one
///             ("x \approx 11" is x = 11); "-x > -1" is read as "x < 1"
///   union     \cup of intervals and sets
///   sum       + - \pm \mp, with a leading sign; a sum or product of matrices of fitting
///             shapes is the matrix it denotes ("A + B", "A B" with matrix literals)
///   term      \cdot \times * / \div, ':' as a ratio ("3:4" is 3/4), and implicit products ("2\sqrt{3}", "3x", "(x+1)(x-1)");
///             an integer before \frac of integers is a mixed number ("2\frac{1}{2}"); a
///             number followed by unit words ends there ("5 cm", "12 \text{ inches}",
///             "3\mathrm{m}^2"); a whole number, a blank and a fraction of whole numbers
///             is a mixed number ("4 4/9" is 40/9)
///   power     ^ with a braced, signed or one-number exponent ("x^{-1}", "2^10")
///   postfix   ! (factorial), ' (prime)
///   atom      numbers (exact decimals; "1011_2" base numerals as names), letters (one per
///             variable, x_1 subscripts, e and i constants, words as text), \pi \infty
///             Greek letters, \frac{}{} (and \frac12), \sqrt[n]{}, \binom{}{}, {n \choose k},
///             \sin \cos \tan \cot \sec \csc \arcsin... \sinh... \log (natural; \log_b) \ln
///             \exp (with powers: \sin^2 x, \sin^{-1} x), |x|, groups (), [], {}, tuples
///             "(1, 2)", intervals "[a, b)", sets "\{1, 2\}" (and "{1, 2}"), \emptyset, \mathbb{R},
///             matrices (pmatrix, bmatrix, Bmatrix, matrix, smallmatrix, array), \text{}
/// A text node may only be the whole answer. Pure; never throws; O(text length) with
/// recursion bounded by limits.max_depth.
math_parse_result parse_math_latex(std::string_view text, const math_limits& limits);

}  // namespace adarl
