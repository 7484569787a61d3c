// Placeholder until the simulate command lands.
#include <CLI/CLI.hpp>

#include "runtime/commands.hpp"

namespace adarl {
void add_simulate_command(CLI::App& app, int& exit_code) {
  app.add_subcommand("simulate", "(not yet)")->callback([&exit_code] { exit_code = 1; });
}
}  // namespace adarl
