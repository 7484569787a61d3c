#pragma once
// The procedural arithmetic suite, levels 1-5.

#include <vector>

#include "tasks/suite_common.hpp"
#include "tasks/task_item.hpp"

namespace adarl {

/// The procedural arithmetic suite: prompts "Compute: <expression>. Give the final
/// answer." whose answer is the exact value, an integer ("-12") or, rarely (level 5
/// only), a reduced fraction ("-7/3"); verifier "math". Prompts use only digits,
/// "+-*/()", spaces, '.', ':' and the letters of "Compute", "Give the final answer".
/// Levels grow visibly harder:
///  1. two operands 0..99, + and -, result not negative ("43 - 5"; about 15,000
///     distinct prompts, the fewest of any level);
///  2. two or three operands up to 99, + - and * by 2..9 ("47 - 6 * 8");
///  3. three operands up to 99, + - * and exact division, precedence without
///     parentheses ("84 / 7 + 23");
///  4. three or four operands up to 199, parentheses, negative numbers (written "(-7)"),
///     factors and divisors up to 15 ("((-12) + 40) * 3 - 17");
///  5. four or five operands up to 999, parentheses (often nested), negatives, factors
///     and divisors up to 25; a dividend with no divisor in that range is divided
///     anyway one time in four, so a few percent of answers are fractions.
/// Built on generate_items("math", ...): deterministic in req.seed, train and held-out
/// disjoint by prompt, no duplicate prompts. Pure; O(req.count) expected.
std::vector<task_item> generate_math(const suite_request& req);

}  // namespace adarl
