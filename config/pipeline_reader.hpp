#pragma once
// Reading and validating the YAML document of `adarl run` (configs/*.yaml).

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "base/result.hpp"
#include "pipelines/pipeline_config.hpp"

namespace adarl {

/// Reads a pipeline document (the layout of configs/quickstart.yaml). Every key is
/// optional and keeps pipeline_config's default; unknown keys, wrong types, values out
/// of range and inconsistent combinations (prompts_per_step > train, an unknown suite, a
/// missing dataset file...) are all reported, one per line, as
/// `FILE:LINE: KEY.PATH: what was expected, got "value"`. `name` defaults to `stem`
/// and `out` to runs/<name>. Checks the file system for tasks.dataset and
/// model.base_checkpoint only. Not thread-safe on `root` (yaml-cpp); O(keys).
result<pipeline_config> read_pipeline_config(const YAML::Node& root,
                                             const std::string& file,
                                             const std::string& stem);

/// Loads `file`, applies the `key.path=value` overrides in order (each value parsed as
/// YAML), then reads it with read_pipeline_config(). An override of an unknown key is
/// rejected like one in the file (with its path; an overridden value has no line).
/// A missing file, a YAML syntax error or a malformed override is an error naming the
/// file.
result<pipeline_config> load_pipeline_config(const std::string& file,
                                             const std::vector<std::string>& overrides);

/// Applies `key.path=value` overrides to a loaded document in order, as
/// load_pipeline_config() does (an overridden value has no line). A malformed override
/// is an error naming `file`.
result<bool> apply_overrides(YAML::Node& root, const std::vector<std::string>& overrides,
                             const std::string& file);

/// A short human summary for the start-up log: strategy and its main parameters,
/// steps and prompts per step, tasks, policy and device, actors, output directory.
/// A few lines, no trailing newline.
std::string describe(const pipeline_config& c);

}  // namespace adarl
