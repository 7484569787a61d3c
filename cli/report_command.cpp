// `adarl report DIR`: the report page of a comparison (DIR/compare.json) or of one run
// (DIR/metrics.jsonl and eval.jsonl), written to DIR/report.html.
#include <CLI/CLI.hpp>

#include <filesystem>
#include <fstream>
#include <iostream>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "experiments/compare_results.hpp"
#include "report/run_page.hpp"
#include "report/run_report.hpp"

namespace adarl {

namespace {

struct report_args {
  std::string dir;
  std::string metric = "greedy";
  double target_heldout = -1;
  double target_reward = -1;
  uint32_t smooth = 5;
};

result<nlohmann::json> report_data(const report_args& a) {
  const std::string compare_file = a.dir + "/compare.json";
  if (std::filesystem::exists(compare_file)) {
    std::ifstream f(compare_file);
    auto j = nlohmann::json::parse(f, nullptr, /*allow_exceptions=*/false);
    if (!j.is_object()) return error{compare_file + ": not a JSON object"};
    return j;
  }
  run_report_options o;
  o.metric = a.metric;
  o.target_heldout = a.target_heldout;
  o.target_reward = a.target_reward;
  o.smooth = a.smooth;
  return run_report_data(a.dir, o);
}

int report_command(const report_args& a) {
  auto data = report_data(a);
  if (!data) {
    std::cerr << "report: " << data.err().message << "\n";
    return 2;
  }
  if (const auto w = data->find("warnings"); w != data->end() && w->is_array())
    for (const auto& line : *w) std::cerr << "report: warning: " << line.get<std::string>() << "\n";
  auto out = write_report_page(a.dir, *data);
  if (!out) {
    std::cerr << "report: " << out.err().message << "\n";
    return 2;
  }
  // A comparison prints its tables; a run the verdict at the top of its page.
  if (is_run_data(*data))
    std::cout << run_verdict(*data) << "\n";
  else
    std::cout << compare_table(*data);
  std::cout << "wrote " << *out << "\n";
  return 0;
}

}  // namespace

void add_report_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("report", "draw report.html for a run or a comparison");
  auto a = std::make_shared<report_args>();
  cmd->add_option("dir", a->dir, "a run's output directory, or a comparison's")->required();
  cmd->add_option("--metric", a->metric, "held-out accuracy of a single run: greedy or sampled")
      ->check(CLI::IsMember({"greedy", "sampled"}));
  cmd->add_option("--target-heldout", a->target_heldout,
                  "held-out accuracy target for a single run (default: none)");
  cmd->add_option("--target-reward", a->target_reward,
                  "real_reward target for a single run (default: none)");
  cmd->add_option("--smooth", a->smooth, "moving-average window of real_reward")
      ->check(CLI::PositiveNumber);
  cmd->callback([&exit_code, a] { exit_code = report_command(*a); });
}

}  // namespace adarl
