// Placeholder until the replay command lands.
#include <CLI/CLI.hpp>

#include "runtime/commands.hpp"

namespace adarl {
void add_replay_command(CLI::App& app, int& exit_code) {
  app.add_subcommand("replay", "(not yet)")->callback([&exit_code] { exit_code = 1; });
}
}  // namespace adarl
