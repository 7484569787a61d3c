// `adarl run CONFIG [key.path=value ...] [--resume DIR [--resume-force]]`: train end to
// end. Parses the flags, calls the run job (experiments/run_job.hpp) and maps its status
// to the exit code. Links LibTorch (the built-in policy's engines and the SFT warm start).
#include <CLI/CLI.hpp>

#include <memory>

#include "cli/commands.hpp"
#include "experiments/run_job.hpp"

namespace adarl {

namespace {

/// The exit status of a run job: 0 finished, 130 stopped (128 + SIGINT, as shells
/// report), 2 refused (bad input), 1 failed.
int exit_code_of(const run_job_result& r) {
  switch (r.status) {
    case run_status::finished: return 0;
    case run_status::stopped: return 130;
    case run_status::refused: return 2;
    case run_status::failed: return 1;
  }
  return 1;
}

}  // namespace

void add_run_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("run", "train a policy end to end from a pipeline config");
  auto a = std::make_shared<run_request>();
  cmd->add_option("config", a->file, "pipeline YAML (see configs/quickstart.yaml)")->required();
  cmd->add_option("overrides", a->overrides, "key.path=value overrides");
  cmd->add_option("--resume", a->resume,
                  "continue a run from its output directory or a checkpoint");
  cmd->add_flag("--resume-force", a->resume_force,
                "resume even when the config differs in what the checkpoint's state means");
  // Output on stdout and stderr; SIGINT and SIGTERM stop it (hooks left at their defaults).
  cmd->callback([&exit_code, a] { exit_code = exit_code_of(run_job(*a)); });
}

}  // namespace adarl
