// `adarl sft --config FILE [key.path=value ...]`: supervised warm start.
#include <CLI/CLI.hpp>

#include <iostream>

#include "cli/commands.hpp"
#include "experiments/sft_job.hpp"

namespace adarl {

namespace {

int run_sft_command(const std::string& file, const std::vector<std::string>& overrides) {
  auto doc = load_yaml_file(file);
  if (!doc) {
    std::cerr << doc.err().message << "\n";
    return 2;
  }
  for (const auto& o : overrides) {
    auto applied = apply_override(*doc, o);
    if (!applied) {
      std::cerr << applied.err().message << "\n";
      return 2;
    }
  }
  auto errors = std::make_shared<config_errors>();
  errors->file = file;
  config_map root(*doc, "", errors);
  const auto config = read_sft_config(root);
  if (!errors->empty()) {
    std::cerr << errors->joined();
    return 2;
  }
  auto report = run_sft_job(config, std::cout);
  if (!report) {
    std::cerr << "sft: " << report.err().message << "\n";
    return 2;
  }
  std::cout << "sft: loss " << report->loss_before << " -> " << report->loss_after
            << "; checkpoint " << report->checkpoint << "\n";
  const auto& ev = report->eval;
  if (!ev.items.empty()) {
    std::cout << "held-out greedy pass rate " << ev.overall() << " by level:";
    for (size_t l = 1; l < ev.items.size(); ++l)
      if (ev.items[l])
        std::cout << "  " << l << ": " << double(ev.passed[l]) / ev.items[l] << " ("
                  << ev.items[l] << ")";
    std::cout << "\n";
  }
  return 0;
}

}  // namespace

void add_sft_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("sft", "supervised warm start of the built-in policy");
  auto file = std::make_shared<std::string>();
  auto overrides = std::make_shared<std::vector<std::string>>();
  cmd->add_option("--config", *file, "YAML config (see configs/sft.yaml)")->required();
  cmd->add_option("overrides", *overrides, "key.path=value overrides");
  cmd->callback([&exit_code, file, overrides] {
    exit_code = run_sft_command(*file, *overrides);
  });
}

}  // namespace adarl
