#pragma once
// The procedural general suite: string transformations sized for a character policy.

#include <vector>

#include "tasks/suite_common.hpp"
#include "tasks/task_item.hpp"

namespace adarl {

/// The "general" suite: string transformations over a small ASCII charset (lowercase
/// letters, their upper-case forms for the case tasks, and a fixed list of short words),
/// sized for a character-level policy. Seven kinds, drawn evenly:
///
/// | prompt                       | answer       | verifier   |
/// |------------------------------|--------------|------------|
/// | `reverse: kqzt`              | `tzqk`       | general    |
/// | `sort: kqzt`                 | `kqtz`       | general    |
/// | `dedupe: kqkzq`              | `kqz`        | general    |
/// | `count q: kqkzq`             | `2`          | general    |
/// | `upper: kqzt`                | `KQZT`       | general    |
/// | `lower: KQZT`                | `kqzt`       | general    |
/// | `first word: owl cat fox`    | `cat`        | general_ci |
///
/// Level L (1..5) sets the size: 2L+1 to 2L+3 letters, or L+1 words. dedupe draws from
/// 4+L letters so that repeats are common; count asks, one time in eight, for any
/// letter, which is often absent (answer "0"). Answers are exact ("dedupe" keeps first
/// occurrences; "first word" is the alphabetically smallest, compared case-insensitively
/// since case is not what it tests). Deterministic in req.seed; ids and splits as
/// generate_items (tasks/suite_common.hpp).
std::vector<task_item> generate_general(const suite_request& req);

/// One general item of level `level` (1..5) from `rng`: prompt, answer, verifier.
/// The maker generate_general passes to generate_items.
task_item make_general_item(std::mt19937_64& rng, uint32_t level);

}  // namespace adarl
