// `adarl simulate`: strategies on the simulated policy at the same sample budget.
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "experiments/simulate_config.hpp"
#include "experiments/simulate_output.hpp"

namespace adarl {
namespace {

struct simulate_options {
  std::string config;
  uint32_t seeds = 0;  ///< 0: the config's seeds.
  std::string out;
  std::vector<std::string> overrides;
};

int run_simulate(const simulate_options& o) {
  auto config = load_simulate_config(o.config, o.overrides);
  if (!config) {
    std::cerr << config.err().message << "\n";
    return 2;
  }
  if (o.seeds > 0) set_seed_count(*config, o.seeds);
  const auto rows = run_simulation(*config);
  print_simulate_table(std::cout, *config, rows);
  if (!o.out.empty()) {
    auto written = write_simulate_json(o.out, *config, rows);
    if (!written) {
      std::cerr << written.err().message << "\n";
      return 1;
    }
  }
  return 0;
}

}  // namespace

void add_simulate_command(CLI::App& app, int& exit_code) {
  auto opts = std::make_shared<simulate_options>();
  auto* sub = app.add_subcommand(
      "simulate",
      "Run strategies on a simulated policy at the same sample budget and print a table "
      "(samples to a target pass rate, ratio against the baseline, zero-gradient share)");
  sub->add_option("--config", opts->config,
                  "YAML config (default: the built-in copy of configs/simulate.yaml)");
  sub->add_option("--seeds", opts->seeds, "Number of seeds (overrides simulate.seeds)")
      ->check(CLI::PositiveNumber);
  sub->add_option("--out", opts->out, "Write the table and all curves as JSON to FILE");
  sub->add_option("overrides", opts->overrides,
                  "Config overrides KEY.PATH=VALUE, e.g. simulate.total_samples=50000");
  sub->callback([opts, &exit_code] { exit_code = run_simulate(*opts); });
}

}  // namespace adarl
