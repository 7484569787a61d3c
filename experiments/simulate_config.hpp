#pragma once
// The config of `adarl simulate`: its reader and the built-in default.

#include <yaml-cpp/yaml.h>

#include <string>
#include <string_view>
#include <vector>

#include "base/result.hpp"
#include "experiments/simulate.hpp"

namespace adarl {

/// The built-in default config of `adarl simulate`: a verbatim copy of
/// configs/simulate.yaml (a test keeps the two equal).
std::string_view default_simulate_yaml();

/// The name errors use for the built-in config.
inline constexpr std::string_view default_simulate_name =
    "configs/simulate.yaml (built in)";

/// Reads a simulate document: the `simulate` section and the `strategies` list (each
/// entry a `name` plus the keys of read_strategy()). Unknown keys, wrong types and
/// out-of-range values are all reported, one line each, as `FILE:LINE: KEY.PATH: what`.
result<simulate_config> read_simulate_config(const YAML::Node& root,
                                             const std::string& file);

/// Loads `file` (the built-in default when empty), applies the `key.path=value`
/// overrides in order, then reads it. Every failure is an error naming the file.
result<simulate_config> load_simulate_config(const std::string& file,
                                             const std::vector<std::string>& overrides);

/// Keeps the first `count` seeds and, when more are wanted, adds max + 1, max + 2, ...
/// Precondition: count >= 1.
void set_seed_count(simulate_config& config, uint32_t count);

}  // namespace adarl
