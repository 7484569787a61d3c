#pragma once
// Reading a strategy section (`strategy:`) into a strategy_config.

#include "algorithms/strategy_config.hpp"
#include "config/config_reader.hpp"

namespace adarl {

/// Reads a strategy section (see docs/reference/strategies.md "Strategy parameters"): `kind` picks the
/// strategy and only that strategy's keys are accepted. Values are range-checked with
/// validate(); every problem is recorded in the map's errors with its path.
/// Starts from `defaults`, so a caller can pre-set values (for example from CLI flags).
strategy_config read_strategy(config_map& m, strategy_config defaults = {});

}  // namespace adarl
