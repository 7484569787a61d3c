#pragma once
// The syntax tree of one math answer, as math/math_latex_parser.hpp reads it from LaTeX.
// Plain data, GiNaC-free: math/math_ginac_*.cpp translate it.

#include <cstdint>
#include <string>
#include <vector>

namespace adarl {

/// What a node of a math answer is; math_node::kids per kind as listed.
enum class math_kind : uint8_t {
  number,      ///< An exact decimal literal: text holds digits, at most one '.'.
  symbol,      ///< A variable; text is its name ("x", "x_1", "alpha", "1011_2").
  pi,          ///< π.
  euler,       ///< e.
  imaginary,   ///< i.
  infinity,    ///< ∞ (only meaningful as itself or as an interval's end).
  add,         ///< kids[0] + kids[1] + ...
  negate,      ///< -kids[0].
  multiply,    ///< kids[0] * kids[1] * ...
  divide,      ///< kids[0] / kids[1]; text "frac" for \frac, "ratio" for "a:b".
  power,       ///< kids[0] ^ kids[1].
  root,        ///< The kids[1]-th root of kids[0] (odd roots of negative numbers real).
  function,    ///< text(kids[0]): sin cos tan cot sec csc asin acos atan sinh cosh tanh
               ///< exp abs ln (natural log) log10; "log" has kids[1] = its base.
  factorial,   ///< kids[0]!.
  binomial,    ///< \binom{kids[0]}{kids[1]}.
  plus_minus,  ///< kids[0] ± kids[1], or ±kids[0] with one kid: two values.
  tuple,       ///< (kids...), two or more elements, ordered; "(a, b)" is also an open interval.
  set,         ///< \{kids...\}; no kids: the empty set.
  list,        ///< kids separated by ',' ';' or "or"/"and" at the top: unordered answers.
               ///< text is "or" when an "or" separated them.
  interval,    ///< kids[0] to kids[1]; text is its brackets "[]", "[)" or "(]".
  set_union,   ///< kids[0] ∪ kids[1] ∪ ...
  relation,    ///< kids[0] op kids[1] op kids[2] ...; text holds one op per gap: '=',
               ///< '<', 'l' (≤), '>', 'g' (≥), 'n' (≠), 'e' (∈).
  matrix,      ///< Row-major kids, math_node::cols columns.
  text,        ///< Words; text is math_text_key of them.
};

/// One node. Invariant: kids index nodes of the same math_ast, all before this one.
struct math_node {
  math_kind kind = math_kind::number;
  uint32_t cols = 0;  ///< matrix only.
  std::string text;
  std::vector<uint32_t> kids;
};

/// A parsed answer: nodes in creation order (children first), and the root.
struct math_ast {
  std::vector<math_node> nodes;
  uint32_t root = 0;
  bool has_decimal = false;  ///< Some number literal has a decimal point (an approximation).

  const math_node& at(uint32_t i) const { return nodes[i]; }
  const math_node& top() const { return nodes[root]; }
};

/// True for the kinds that denote one number (possibly with "\pm").
bool is_scalar(math_kind kind);

/// True when the subtree at `node` names no variable (∞ counts as a constant).
bool is_constant(const math_ast& ast, uint32_t node);

/// The "\pm" nodes of the subtree at `node`, in a fixed order (bit k of a variant mask
/// chooses the sign of the k-th).
std::vector<uint32_t> plus_minus_nodes(const math_ast& ast, uint32_t node);

/// +1 for ∞ or +∞, -1 for -∞, 0 otherwise.
int infinity_sign(const math_ast& ast, uint32_t node);

}  // namespace adarl
