#pragma once
// Shared by the replay tests: fixture paths and option builders.

#include <string>

#include "experiments/replay.hpp"

namespace adarl::testing {

/// Path of a fixture in tests/data/.
inline std::string data(const std::string& file) {
  return std::string(ADARL_TEST_DATA) + "/" + file;
}

/// Replay options that pick a strategy by its config name, all else default.
inline replay_options with_strategy(const std::string& kind) {
  replay_options o;
  o.flags.strategy = kind;
  return o;
}

}  // namespace adarl::testing
