#pragma once
// The expression language of the code suite: a bounded parser and evaluator for
// untrusted programs.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/result.hpp"

namespace adarl {

/// Bounds that make parsing and evaluating an untrusted expression program safe: the
/// parser rejects a program over any of them before evaluation starts, and evaluation
/// stops after max_steps node visits.
struct expr_limits {
  size_t max_source = 1024;  ///< Bytes of program text.
  uint32_t max_nodes = 256;  ///< Nodes of the syntax tree.
  /// Nesting depth of the syntax tree (a chain "x+x+...+x" of n terms has depth n);
  /// also bounds the recursion of parser and evaluator. Clamped to hard_max_depth.
  uint32_t max_depth = 64;
  uint64_t max_steps = 10000;  ///< Node visits per evaluation.
  /// The largest max_depth honoured, so that recursion stays far from stack limits
  /// (about 1 KiB of stack per level in the parser).
  static constexpr uint32_t hard_max_depth = 1000;
};

/// Why parsing or evaluation failed.
enum class expr_errc : uint8_t {
  parse_error,  ///< Not a program of the language.
  size_limit,   ///< Over max_source, max_nodes or max_depth.
  step_limit,   ///< Evaluation took more than max_steps node visits.
  div_by_zero,  ///< `/` or `%` by zero.
  overflow,     ///< A result outside the signed 64-bit range.
};

/// A stable lower-case name of the code: "parse_error", "size_limit", "step_limit",
/// "div_by_zero", "overflow".
std::string_view to_string(expr_errc code);

/// A failure with its code and a readable message (parse errors name the byte offset).
struct expr_error {
  expr_errc code = expr_errc::parse_error;
  std::string message;
};

/// Either a value or an expr_error.
template <class T>
using expr_result = result<T, expr_error>;

/// A parsed program of the expression language, an integer function of one variable x.
///
/// Grammar (whitespace between tokens is free; `x`, `if`, `then`, `else` are the only
/// names):
///
///     expr    := compare
///     compare := sum [("<" | "<=" | ">" | ">=" | "==" | "!=") sum]
///     sum     := term {("+" | "-") term}
///     term    := unary {("*" | "/" | "%") unary}
///     unary   := "-" unary | primary
///     primary := integer | "x" | "(" expr ")" | "if" expr "then" expr "else" expr
///
/// Operators are left-associative; a comparison is not (`1 < x < 3` is a parse error)
/// and yields 1 or 0; `if C then A else B` is A when C is non-zero, else B, and its
/// else-branch extends as far right as it can. Arithmetic is on signed 64-bit integers:
/// `/` truncates toward zero and `%` takes the sign of the dividend (as in C++);
/// division by zero and any result outside the 64-bit range are errors, never undefined
/// behaviour. A literal is a decimal integer up to 2^63 - 1 (2^63 after a unary minus).
///
/// Immutable after parse; evaluating is const and thread-safe. Nothing throws except
/// std::bad_alloc.
class expr_program {
 public:
  /// Parses `source` within `limits`. Fails with size_limit (over max_source, max_nodes
  /// or max_depth) or parse_error (with the byte offset). O(source length).
  static expr_result<expr_program> parse(std::string_view source,
                                         const expr_limits& limits = {});

  /// The value at `x`; fails with div_by_zero, overflow or step_limit (more than
  /// max_steps node visits). O(nodes); no heap allocation unless it fails.
  expr_result<int64_t> eval(int64_t x,
                            uint64_t max_steps = expr_limits{}.max_steps) const;

  /// Number of syntax-tree nodes.
  size_t size() const { return nodes_.size(); }
  /// Depth of the syntax tree (a lone literal has depth 1).
  uint32_t depth() const { return depth_; }

 private:
  friend class expr_parser;
  /// Node kinds. Invariant: lt..ne are consecutive and in this order (the parser and
  /// evaluator index by them).
  enum class op : uint8_t {
    lit,
    var,
    neg,
    add,
    sub,
    mul,
    div,
    mod,
    lt,
    le,
    gt,
    ge,
    eq,
    ne,
    cond
  };
  struct node {
    op kind = op::lit;
    int32_t a = -1, b = -1, c = -1;  ///< Children (indices into nodes_), -1 if none.
    int64_t value = 0;               ///< The literal of op::lit.
  };
  struct eval_state;
  bool eval_node(int32_t index, eval_state& s, int64_t& out) const;

  std::vector<node> nodes_;  ///< Invariant: children precede their parent.
  int32_t root_ = -1;        ///< Invariant: the last node.
  uint32_t depth_ = 0;
};

}  // namespace adarl
