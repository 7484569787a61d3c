#pragma once
// The table and files `adarl simulate` writes.

#include <ostream>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "experiments/simulate.hpp"

namespace adarl {

/// Prints the configuration line and the table, one row per strategy (docs/guides/running.md "Reading
/// the simulate table"). O(strategies).
void print_simulate_table(std::ostream& out, const simulate_config& config,
                          const std::vector<strategy_result>& rows);

/// The whole result as JSON text: config, table rows, and every run's curve (column
/// arrays: step, samples, train, held_out, zero_gradient, samples_per_prompt).
std::string simulate_json(const simulate_config& config,
                          const std::vector<strategy_result>& rows);

/// Writes simulate_json() to `file` through `file.tmp` and a rename, so that a reader
/// never sees half a file. An error names the file when it cannot be written.
result<bool> write_simulate_json(const std::string& file, const simulate_config& config,
                                 const std::vector<strategy_result>& rows);

}  // namespace adarl
