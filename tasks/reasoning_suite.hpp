#pragma once
// The procedural reasoning suite: answers that need a short written derivation.

#include <random>
#include <vector>

#include "tasks/suite_common.hpp"
#include "tasks/task_item.hpp"

namespace adarl {

/// The "reasoning" suite: tasks a character policy answers by writing its steps, then
/// the final answer after "####"; the reward is on the final answer only (verifier
/// "math", through its "####" extraction: a trace without the marker is read whole and
/// scores 0). Each item's `solution` is the worked trace the SFT warm start trains on.
/// Two kinds, drawn evenly:
///
/// | prompt            | solution (SFT)                    | answer |
/// |-------------------|-----------------------------------|--------|
/// | `sum: 7+5-3+8`    | `7+5=12 12-3=9 9+8=17 #### 17`    | `17`   |
/// | `count a: bacaa`  | `b0 a1 c1 a2 a3 #### 3`           | `3`    |
///
/// Difficulty is the number of steps: level L (1..5) sums L + 1 digits 1..9 with + and
/// - (a running total never below 0), or counts one letter of 2L + 2 letters from
/// "abcd", one step per letter. Solutions are 12 to 46 characters (6 to 9 a step),
/// prompts at most 21: with begin, separator and end tokens an item fits model.max_len
/// 72. Deterministic in req.seed; ids and splits as generate_items
/// (tasks/suite_common.hpp).
std::vector<task_item> generate_reasoning(const suite_request& req);

/// One reasoning item of level `level` (1..5) from `rng`: prompt, solution, answer,
/// verifier. The maker generate_reasoning passes to generate_items.
task_item make_reasoning_item(std::mt19937_64& rng, uint32_t level);

}  // namespace adarl
