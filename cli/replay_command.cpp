// `adarl replay`: a strategy over a log of rewards, offline (docs/guides/running.md).
#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "base/atomic_file.hpp"
#include "cli/commands.hpp"
#include "experiments/replay.hpp"

namespace adarl {
namespace {

/// Writes `text` to `path` atomically; "" on success.
std::string write_file(const std::string& path, const std::string& text) {
  auto ok = write_file_atomic(path, text);
  return ok ? "" : ok.err().message;
}

/// Registers the strategy flags; --std-norm is a flag whose presence is read later.
CLI::Option* add_strategy_flags(CLI::App& cmd, strategy_flags& f, bool& std_norm) {
  cmd.add_option("--strategy", f.strategy,
                 "grpo, dr-grpo, dapo, ada-seq, ada-est or ada-est-online");
  cmd.add_option("--group-size", f.group_size,
                 "n: samples kept per prompt (seq, uniform)");
  cmd.add_option("--round-size", f.round_size, "M: samples per round (ada-seq)");
  cmd.add_option("--max-rounds", f.max_rounds, "N: rounds before fallback (ada-seq)");
  cmd.add_option("--exit", f.exit, "exit rule: pos or balance (ada-seq)");
  cmd.add_option("--k-pos", f.k_pos, "positives to exit (ada-seq)");
  cmd.add_option("--k-neg", f.k_neg, "negatives to exit (ada-seq, balance)");
  cmd.add_option("--threshold", f.threshold, "a sample is positive when reward > this");
  auto* norm = cmd.add_flag("--std-norm", std_norm, "divide advantages by the pool std");
  cmd.add_option("--budget", f.budget, "samples of the step (ada-est*)");
  cmd.add_option("--samples-per-prompt", f.samples_per_prompt,
                 "average samples per prompt when --budget is 0 (ada-est*)");
  cmd.add_option("--n-min", f.n_min, "fewest samples per prompt (ada-est*)");
  cmd.add_option("--n-max", f.n_max, "most samples per prompt (ada-est*)");
  cmd.add_option("--wave", f.wave, "requests in flight per prompt (ada-est-online)");
  cmd.add_option("--extra-factor", f.extra_factor,
                 "extra prompts per batch prompt (dapo)");
  return norm;
}

}  // namespace

int run_replay_command(const replay_options& options, const std::string& input,
                       const std::string& output, std::istream& in, std::ostream& out,
                       std::ostream& err) {
  const bool from_stdin = input == "-";
  std::ifstream file;
  if (!from_stdin) {
    file.open(input);
    if (!file) {
      err << "adarl replay: " << input << ": cannot open the file\n";
      return 2;
    }
  }
  auto report =
      run_replay(options, from_stdin ? in : file, from_stdin ? "<stdin>" : input);
  if (!report) {
    err << "adarl replay: " << report.err().message << "\n";
    return 2;
  }
  std::ostringstream text;
  write_replay(*report, text);
  if (output.empty()) {
    out << text.str() << std::flush;
    return out ? 0 : 1;
  }
  if (auto problem = write_file(output, text.str()); !problem.empty()) {
    err << "adarl replay: " << problem << "\n";
    return 1;
  }
  return 0;
}

void add_replay_command(CLI::App& app, int& exit_code) {
  struct state {
    replay_options options;
    std::string input, output;
    bool std_norm = false;
  };
  auto s = std::make_shared<state>();
  auto* cmd = app.add_subcommand(
      "replay",
      "Run a strategy offline over logged rewards: what it would spend and keep");
  cmd->add_option("--input", s->input, "JSONL log, one prompt per line (- for stdin)")
      ->required();
  cmd->add_option("--output", s->output, "write the JSONL here instead of stdout");
  cmd->add_option(
      "--config", s->options.config_file,
      "YAML file whose strategy: section sets the parameters (flags override)");
  cmd->add_option("--batch-size", s->options.batch_size,
                  "dapo: the first lines form the batch, the rest the reserve");
  auto* norm = add_strategy_flags(*cmd, s->options.flags, s->std_norm);
  cmd->callback([s, norm, &exit_code] {
    if (norm->count() > 0) s->options.flags.std_norm = s->std_norm;
    exit_code = run_replay_command(s->options, s->input, s->output, std::cin, std::cout,
                                   std::cerr);
  });
}

}  // namespace adarl
