#pragma once
// The procedural code suite: programs by example in the expression language.

#include <vector>

#include "tasks/task_item.hpp"

namespace adarl {

/// The procedural "code" suite: programming-by-example in the expression language of
/// tasks/expr_lang.hpp. A prompt shows a few input/output pairs,
///
///     Write an expression in x that maps 1->3, 2->5, 3->7.
///
/// and the policy answers with a program. Levels grow with the reference program:
/// 1: x+c, x-c or c*x; 2: a*x+b, b-a*x; 3: quadratics; 4: `%`, `/` or one conditional;
/// 5: combinations (a conditional over affine pieces, `%` of a polynomial, Collatz).
/// Shown inputs are consecutive (3 at levels 1-2, 4 at level 3, 8 at levels 4-5) so
/// that the rule is determined; item.tests holds them plus hidden inputs beyond them
/// (negative ones at levels 1-3, larger ones at every level) as {"cases": [[x, y],
/// ...]}, scored by verifier "expr" (tasks/expr_verifier.hpp), which accepts any
/// program that passes; item.answer is a reference program. Prompts are ASCII from a
/// small set (letters, digits, space, "-", ">", ",", "."); outputs stay within
/// +-10^4. Built on generate_items("code", req, ...): deterministic in req.seed, train
/// and held-out disjoint by prompt.
std::vector<task_item> generate_code(const suite_request& req);

}  // namespace adarl
