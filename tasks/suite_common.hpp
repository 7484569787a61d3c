#pragma once
// What the procedural suites share: the train/held-out split by prompt hash and the item
// generator over levels.

#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "tasks/task_item.hpp"

namespace adarl {

/// The split a prompt belongs to, from a hash of its text (FNV-1a 64): about 1 in 5
/// prompts is held out. Train and held-out therefore never share a prompt, whatever the
/// seeds or counts used to generate them. Pure; O(prompt length).
split split_of(std::string_view prompt);

/// What a suite's generator makes for one difficulty level: prompt, answer, tests and
/// verifier; generate_items fills id, task and difficulty.
using item_maker = std::function<task_item(std::mt19937_64& rng, uint32_t level)>;

/// The loop every procedural suite shares: draws a level from req.difficulty_mix for
/// each candidate, makes an item with `make`, keeps it when its prompt falls in
/// req.part and was not produced before, until req.count items are kept. Ids are
/// "<suite>-<train|heldout>-<seed>-<n>" with n = 0, 1, ... Deterministic in the seed.
/// Gives up (returns fewer items) after 50 * count + 1000 candidates, so a suite with too
/// few distinct prompts at the chosen levels cannot loop forever.
std::vector<task_item> generate_items(std::string_view suite, const suite_request& req,
                                      const item_maker& make);

}  // namespace adarl
