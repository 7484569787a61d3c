#pragma once
// What `adarl run --resume` checks before it continues a run.

#include <map>
#include <string>
#include <vector>

#include "base/result.hpp"

namespace adarl {

/// The config keys whose value gives a checkpoint's state its meaning: the seed and
/// deterministic mode, the model's kind and shape, the tasks, the strategy, and the
/// tracker's prompts per step, lag, rounds mode and estimator. Other keys (steps,
/// evaluation, actor counts, learning rate, output, ...) may change on resume.
bool is_state_key(const std::string& key);

/// The state keys whose effective values differ between a checkpoint's config
/// (`saved`) and the current one, each as `KEY: SAVED then, NOW now` ("absent" for a
/// key one side lacks), in key order. Empty when the checkpoint may be resumed. Pure.
std::vector<std::string> state_differences(const std::map<std::string, std::string>& saved,
                                           const std::map<std::string, std::string>& now);

}  // namespace adarl
