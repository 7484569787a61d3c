#pragma once
// Equivalence of two parsed math answers (math/math_ast.hpp): the shapes (tuples, sets,
// intervals, relations, matrices) here, single values in math/math_scalar_engine.hpp.

#include "math/math_ast.hpp"
#include "math/math_scalar_engine.hpp"

namespace adarl {

/// Whether `answer` states what `reference` states. Text roots are compared by the
/// caller (tasks/math_verifier.cpp); here:
/// - an answer "x = v" (a name on the left: a variable, or products, quotients, absolute
///   values and tuples of names such as "AB", "f(x)", "|AB|", "(p, q)"; or a constant) or
///   "x \in S" stands for v or S when the reference is not a relation;
/// - scalars: math_scalar_engine::equal; a value with "\pm" is the set of its variants;
///   a ratio "3:4" is the quotient 3/4 against a side without a ratio, but two sides with
///   ratios compare as written, their terms equal ("6:8" is not "3:4", as "1:10" is not
///   the time "3:30");
/// - tuples and matrices: same shape, element by element, in order (a tuple reference
///   also against a set written "{1, 3}", in the order written, as the reference
///   verifier compares them);
/// - sets and lists: the same elements in any order (as many on each side);
/// - intervals and unions: the same pieces in any order, ends equal and each end open or
///   closed alike; "(a, b)" is an open interval against an interval or union;
/// - a reference inequality ("x \ge 5", "1 < x \le 3", "x < 1 \text{ or } x > 3", "x \ne 2")
///   accepts the equivalent intervals ("[5, \infty)") or the same inequality of the same
///   variable written another way ("5 \le x"); an interval reference does not accept an
///   inequality; "0 < f(x) < 1" (a name that is no variable in the middle) accepts the
///   interval only; a chain of relations accepts the same chain, side by side equal
///   ("f(2) < f(1) < f(4)");
/// - a reference equation accepts an equivalent equation (math_scalar_engine::
///   same_equation), "name = v" with v no scalar ("D = (0, 1)") the same name given an
///   equal v, and "name = c" with c constant accepts c; in a list of equations, "y_1 = e"
///   with e an expression not naming y_1 accepts e ("y_1 = x + 1, y_2 = 2x" and
///   "x + 1, 2x").
/// Anything else is different. Blocks on the GiNaC mutex (see math_scalar_engine);
/// bounded by settings.limits and settings.deadline.
math_status compare_math_answers(const math_ast& reference, const math_ast& answer,
                                 const math_compare_settings& settings);

}  // namespace adarl
