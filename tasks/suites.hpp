#pragma once
// The built-in suites by name (math, code, general, mixed, reasoning).

#include <string>
#include <string_view>
#include <vector>

#include "base/result.hpp"
#include "tasks/task_item.hpp"

namespace adarl {

/// Names of the built-in procedural suites, sorted: code, general, math, mixed, reasoning.
std::vector<std::string> suite_names();

/// Items of the built-in suite `name`: "math" (tasks/math_suite.hpp), "code"
/// (tasks/code_suite.hpp), "general" (tasks/general_suite.hpp), "reasoning" (written
/// derivations, tasks/reasoning_suite.hpp), or "mixed": the first three in
/// even shares (count / 3 each, the remainder to math then code), interleaved
/// math, code, general, ... so that any prefix is mixed too; each keeps its own ids
/// ("math-train-1-0", "code-train-1-0", ...), so ids stay unique. A suite that runs out
/// of distinct prompts at the chosen levels yields fewer items (generate_items).
/// Deterministic in req.seed. An unknown name is an error listing the known ones.
result<std::vector<task_item>> generate_suite(std::string_view name,
                                              const suite_request& req);

}  // namespace adarl
