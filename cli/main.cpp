// The `adarl` command line: one subcommand per job (docs/reference/cli.md).
#include <CLI/CLI.hpp>

#include <cstdlib>
#include <exception>
#include <iostream>
#include <string>
#include <string_view>

#include "adarl/version.hpp"
#include "base/atomic_file.hpp"
#include "cli/commands.hpp"
#include "runtime/process_env.hpp"

namespace {

/// The subcommands that run LibTorch (and so OpenMP and OpenBLAS); the others start
/// without the restart of ensure_process_env (about 0.8 s).
bool runs_torch(int argc, char** argv) {
  if (argc < 2) return false;
  const std::string_view command = argv[1];
  if (command == "worker")
    return argc > 2 && (std::string_view(argv[2]) == "generate" || std::string_view(argv[2]) == "learn");
  if (command == "tasks") return argc > 2 && std::string_view(argv[2]) == "select";
  if (command == "model") return argc > 2 && std::string_view(argv[2]) == "score";
  return command == "run" || command == "sft" || command == "compare";
}

/// "adarl: unknown command ..." when a word of the command line names no subcommand
/// where one is expected (CLI11 would say only that a subcommand is required); "" else.
std::string unknown_command(CLI::App& app, int argc, char** argv) {
  CLI::App* at = &app;
  std::string path = "adarl";
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    const auto subs = at->get_subcommands([](CLI::App*) { return true; });
    if (subs.empty() || word.empty() || word[0] == '-') return "";
    CLI::App* next = nullptr;
    std::string names;
    for (auto* sub : subs) {
      if (sub->check_name(word)) next = sub;
      names += (names.empty() ? "" : ", ") + sub->get_name();
    }
    if (!next)
      return path + ": unknown command \"" + word + "\" (commands: " + names + "; " + path +
             " --help says more)";
    path += " " + next->get_name();
    at = next;
  }
  return "";
}

}  // namespace

int main(int argc, char** argv) {
  // Writes past `ulimit -f` fail with EFBIG and are reported (SIGXFSZ would kill us).
  adarl::ignore_file_size_signal();
  // OMP_WAIT_POLICY and OPENBLAS_CORETYPE are read before main: may start again with them.
  if (runs_torch(argc, argv)) adarl::ensure_process_env(argv);
  CLI::App app{"adarl: adaptive-sampling reinforcement learning for language models"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("adarl ") + adarl::version);  // project(VERSION)
  int exit_code = 0;
  adarl::add_replay_command(app, exit_code);
  adarl::add_simulate_command(app, exit_code);
  adarl::add_tasks_select_command(*adarl::add_tasks_command(app, exit_code), exit_code);
  adarl::add_sft_command(app, exit_code);
  adarl::add_run_command(app, exit_code);
  adarl::add_compare_command(app, exit_code);
  adarl::add_report_command(app, exit_code);
  adarl::add_model_score_command(*adarl::add_model_command(app, exit_code), exit_code);
  auto* worker = adarl::add_worker_command(app, exit_code);
  adarl::add_worker_generate_command(*worker, exit_code);
  adarl::add_worker_learn_command(*worker, exit_code);
  if (const auto unknown = unknown_command(app, argc, argv); !unknown.empty()) {
    std::cerr << unknown << "\n";
    return 2;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version end here with 0; a malformed command line is bad input (2),
    // like every other input error, not CLI11's own codes.
    return app.exit(e) == 0 ? 0 : 2;
  } catch (const std::exception& e) {
    std::cerr << "adarl: " << e.what() << "\n";
    return 1;
  }
  return exit_code;
}
