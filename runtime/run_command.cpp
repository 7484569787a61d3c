// `adarl run CONFIG [key.path=value ...] [--resume DIR]`: train end to end.
// Links LibTorch (the built-in policy's engines and the SFT warm start).
#include <CLI/CLI.hpp>

#include <filesystem>
#include <fstream>
#include <iostream>

#include "pipelines/pipeline.hpp"
#include "runtime/commands.hpp"
#include "runtime/pipeline_reader.hpp"
#include "runtime/interrupt.hpp"
#include "runtime/run_engines.hpp"
#include "runtime/run_tasks.hpp"

namespace adarl {

namespace {

void print_line(const std::string& file, bool last, const char* label) {
  std::ifstream f(file);
  std::string line, keep;
  while (std::getline(f, line)) {
    keep = line;
    if (!last) break;
  }
  if (!keep.empty()) std::cout << label << keep << "\n";
}

int run_command(const std::string& file, const std::vector<std::string>& overrides,
                const std::string& resume) {
  auto config = load_pipeline_config(file, overrides);
  if (!config) {
    std::cerr << config.err().message << "\n";
    return 2;
  }
  const pipeline_config& c = *config;
  std::cout << describe(c) << "\n";
  auto prompts = load_run_prompts(c);
  if (!prompts) {
    std::cerr << file << ": " << prompts.err().message << "\n";
    return 2;
  }
  run_options o;
  o.log = &std::cerr;
  if (!resume.empty()) {
    auto ckpt = resolve_checkpoint(resume);
    if (!ckpt) {
      std::cerr << "--resume: " << ckpt.err().message << "\n";
      return 2;
    }
    o.resume_from = *ckpt;
    std::cout << "run: resuming from " << *ckpt << "\n";
  }
  auto engines = run_engines(c, *prompts, std::cout);
  if (!engines) {
    std::cerr << "run: warm start: " << engines.err().message << "\n";
    return 1;
  }
  std::filesystem::create_directories(c.out);
  result<run_outcome> r = error{"not run"};
  {
    sigint_guard guard;
    o.stop = &sigint_guard::flag();
    r = run_pipeline(c, *prompts, *engines, o);
  }
  if (!r) {
    std::cerr << "run: " << r.err().message << "\n";
    return 1;
  }
  std::cout << "run: " << (r->interrupted ? "stopped" : "finished") << " at version "
            << r->version << "; checkpoint " << r->checkpoint << "\n";
  print_line(c.out + "/metrics.jsonl", false, "first step: ");
  print_line(c.out + "/metrics.jsonl", true, "last step:  ");
  print_line(c.out + "/eval.jsonl", false, "first eval: ");
  print_line(c.out + "/eval.jsonl", true, "last eval:  ");
  if (r->interrupted)
    std::cout << "continue with: adarl run " << file << " --resume " << c.out << "\n";
  return 0;
}

}  // namespace

void add_run_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("run", "train a policy end to end from a pipeline config");
  auto file = std::make_shared<std::string>();
  auto resume = std::make_shared<std::string>();
  auto overrides = std::make_shared<std::vector<std::string>>();
  cmd->add_option("config", *file, "pipeline YAML (see configs/quickstart.yaml)")->required();
  cmd->add_option("overrides", *overrides, "key.path=value overrides");
  cmd->add_option("--resume", *resume, "continue a run from its output directory or a checkpoint");
  cmd->callback([&exit_code, file, overrides, resume] {
    exit_code = run_command(*file, *overrides, *resume);
  });
}

}  // namespace adarl
