#pragma once
// Where a run's prompts come from: the config's suite or dataset, or the caller's own
// source (extension point). Torch-free and CAF-free.

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "pipelines/pipeline_config.hpp"
#include "tasks/task_item.hpp"
#include "tasks/verifier_registry.hpp"

namespace adarl {

/// The items of a run: training prompts (ids 0..train-1 in the prompt table) and
/// held-out prompts (evaluation only).
struct task_set {
  std::vector<task_item> train;
  std::vector<task_item> held_out;
  /// Dataset items: id -> "FILE:LINE", for messages about an item; empty for a suite.
  std::map<std::string, std::string> origin;
};

/// "FILE:LINE: " of an item of `set` (a dataset's), or "" (a suite's).
std::string item_origin(const task_set& set, const task_item& item);

/// Produces a run's items (extension point). Called once, on the caller's thread,
/// before anything is spawned. Each item names a verifier of the run's registry
/// (task_item::verifier); ids should be unique. At least one training item; an error
/// ends the start of the run with its message.
using task_source = std::function<result<task_set>(const pipeline_config&)>;

/// The seed of a suite's held-out items, and the key of a dataset's split: a constant,
/// so that every seed of a comparison is evaluated on the same held-out set.
inline constexpr uint64_t held_out_key = 0x48454c44'4f555431ull;  // "HELDOUT1"

/// The items `adarl run` takes from config.tasks: `train` items of the built-in suite
/// (seeded from config.seed, apart from the SFT warm start's) and `held_out` items of its
/// held-out split (seeded with held_out_key: the same for every config.seed); or, with
/// tasks.dataset, the JSONL file split by a shuffle keyed by held_out_key (held-out
/// first, at most half). Dataset items must name a verifier of `known` (null: the
/// built-in ones) that can use their reference (load_checked_dataset). Deterministic in
/// config.seed; O(items). Errors: an unknown suite, a dataset problem or an unusable
/// reference (naming the file and line); no items is not an error here. tasks.fields,
/// tasks.verifier and tasks.prompt_template read a dataset as published (dataset_format).
result<task_set> config_tasks(const pipeline_config& config,
                              const verifier_registry* known = nullptr);

}  // namespace adarl
