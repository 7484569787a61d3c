// `adarl compare CONFIG [key.path=value ...] [--jobs N] [--svg FILE]`: strategies x
// seeds at the same sample budget, then compare.json and report.html (links LibTorch
// for the transformer's engines).
#include <CLI/CLI.hpp>

#include <filesystem>
#include <fstream>
#include <iostream>

#include <nlohmann/json.hpp>

#include "base/atomic_file.hpp"
#include "cli/commands.hpp"
#include "config/pipeline_reader.hpp"
#include "experiments/compare_prompts.hpp"
#include "experiments/run_engines.hpp"
#include "experiments/run_tasks.hpp"
#include "experiments/shell_words.hpp"
#include "experiments/compare_results.hpp"
#include "report/report.hpp"
#include "runtime/interrupt.hpp"

namespace adarl {

namespace {

struct compare_args {
  std::string file;
  std::vector<std::string> overrides;
  uint32_t jobs = 0;  ///< 0 = compare.jobs
  std::string svg;
  std::string svg_axis;  ///< "" = steps with compare.equal_steps, else samples
};

bool write_text(const std::string& file, const std::string& text) {
  auto ok = write_file_atomic(file, text);
  if (!ok) std::cerr << "compare: " << ok.err().message << "\n";
  return ok.ok();
}

/// The command that continues this comparison: the same command line (without its
/// overrides it would be another comparison); finished runs are kept and skipped.
std::string continue_line(const compare_args& a) {
  std::vector<std::string> again{"adarl", "compare", a.file};
  again.insert(again.end(), a.overrides.begin(), a.overrides.end());
  if (a.jobs) again.insert(again.end(), {"--jobs", std::to_string(a.jobs)});
  if (!a.svg.empty()) again.insert(again.end(), {"--svg", a.svg});
  if (!a.svg_axis.empty()) again.insert(again.end(), {"--svg-axis", a.svg_axis});
  return shell_line(again);
}

/// A stop during the warm start or the prompt selection (`what`), said; exit status 130.
int stopped_before_runs(const compare_args& a, const std::string& what) {
  std::cout << "compare: stopped before any run: " << what
            << ". Continue with: " << continue_line(a) << std::endl;
  return 130;
}

/// The plan's first lines: strategies, seeds, budget, baseline and the shared document.
void print_plan(const compare_plan& plan) {
  const auto& s = plan.settings;
  std::string names;
  for (const auto& n : plan.strategies) names += (names.empty() ? "" : ", ") + n;
  std::cout << "compare: " << names << "; " << s.seeds.size() << " seed(s), "
            << s.sample_budget << " samples each"
            << (s.equal_steps ? ", read at step " + std::to_string(s.equal_steps) : std::string())
            << ", baseline " << s.baseline << "\n";
  // The shared part of every run (its first line is the document's own strategy).
  std::string shared = describe(plan.base);
  // The document's own `out` is not where the runs go: each has a folder under the
  // comparison's.
  if (const auto out = shared.rfind("\n  out: "); out != std::string::npos) shared.erase(out);
  std::cout << shared.substr(shared.find('\n') + 1) << "\n  out: " << s.out
            << "/<strategy>/seed-<N> (compare.out)\n";
}

/// What every run starts from: the one base checkpoint (the SFT warm start of the base
/// document; "" for the simulated policy) and the prompts. 0, or the exit status.
int prepare_runs(const compare_args& a, const compare_plan& plan, std::string& base,
                 prompt_table_ptr& prompts) {
  if (!plan.base.tasks.dataset.empty() || !plan.settings.select.enabled) {
    // Bad prompts are bad input: said before any warm start.
    if (auto p = load_run_prompts(plan.base); !p) {
      std::cerr << a.file << ": " << p.err().message << "\n";
      return 2;
    }
  }
  if (kind_traits(plan.base.policy.kind).sft_warm_start()) {
    auto b = base_checkpoint(plan.base, std::cout, &sigint_guard::flag());
    if (!b && sigint_guard::flag().load()) return stopped_before_runs(a, b.err().message);
    if (!b) {
      std::cerr << "compare: warm start: " << b.err().message << "\n";
      return 1;
    }
    base = *b;
  }
  auto p = compare_prompts(plan, base, std::cout);
  if (!p && sigint_guard::flag().load()) return stopped_before_runs(a, p.err().message);
  if (!p) {
    std::cerr << a.file << ": " << p.err().message << "\n";
    return 2;
  }
  prompts = *p;
  return 0;
}

/// compare.json, report.html (and the SVG) from the finished runs, then the tables and
/// the verdict. The exit status: 1 when a run failed or a file could not be written.
int write_results(const compare_args& a, const compare_plan& plan,
                  const compare_outcome& outcome) {
  std::vector<compare_run> done;
  for (const auto& r : plan.runs)
    if (std::filesystem::exists(r.config.out + "/done.json")) done.push_back(r);
  auto data = collect_compare(plan.settings, plan.strategies, done);
  if (!data) {
    std::cerr << "compare: " << data.err().message << "\n";
    return 1;
  }
  const std::string out = plan.settings.out;
  const bool ok = write_text(out + "/compare.json", data->dump(1) + "\n") &&
                  write_text(out + "/report.html", report_html(*data)) &&
                  (a.svg.empty() || write_text(a.svg, accuracy_svg(*data, a.svg_axis)));
  if (!ok) {
    std::cerr << "compare: cannot write the results under " << out << "\n";
    return 1;
  }
  std::cout << "\n" << compare_table(*data) << "\nwrote " << out << "/compare.json and " << out
            << "/report.html" << (a.svg.empty() ? "" : " and " + a.svg) << "\n\n"
            << compare_verdict(*data, out + "/report.html");
  for (const auto& f : outcome.failed) std::cerr << "compare: failed run: " << f << "\n";
  if (plan.strategies.size() > 1 && paired_seeds(*data) == 0) {
    std::cerr << "compare: no paired seed: no strategy has a seed whose run and the "
                 "baseline's both reached the readings (compare.equal_steps, "
                 "compare.sample_budget), so the tables answer nothing\n";
    return 1;
  }
  return outcome.failed.empty() ? 0 : 1;
}

int compare_command(const compare_args& a) {
  // Before any work: a stop during the warm start or the selection counts too.
  sigint_guard guard;
  auto plan = load_compare_config(a.file, a.overrides);
  if (!plan) {
    std::cerr << plan.err().message << "\n";
    return 2;
  }
  if (a.jobs) plan->settings.jobs = a.jobs;
  print_plan(*plan);
  std::string base;
  prompt_table_ptr prompts;
  if (int status = prepare_runs(a, *plan, base, prompts); status != 0) return status;
  register_torch_engines();
  engines_for_run engines = [&](const pipeline_config& c) -> result<engine_factories> {
    engine_request r;
    r.config = &c;
    r.prompts = prompts;
    r.base = base;
    return engines_for(r);
  };
  std::error_code ec;
  std::filesystem::create_directories(plan->settings.out, ec);
  if (ec) {
    std::cerr << "compare: " << plan->settings.out
              << ": cannot create the output directory: " << ec.message() << "\n";
    return 1;
  }
  const compare_outcome outcome =
      run_compare(*plan, prompts, engines, &sigint_guard::flag(), std::cout);
  if (outcome.interrupted) {
    std::cout << "compare: stopped; finished runs are kept. Continue with: " << continue_line(a)
              << "\n";
    return 130;
  }
  return write_results(a, *plan, outcome);
}

}  // namespace

void add_compare_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "compare", "strategies x seeds at the same sample budget; compare.json and report.html");
  auto a = std::make_shared<compare_args>();
  cmd->add_option("config", a->file, "compare YAML (see configs/compare.yaml)")->required();
  cmd->add_option("overrides", a->overrides, "key.path=value overrides (compare.* too)");
  cmd->add_option("--jobs", a->jobs, "runs at once (default: compare.jobs)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--svg", a->svg, "also write the accuracy plot as a standalone SVG");
  cmd->add_option("--svg-axis", a->svg_axis,
                  "x axis of --svg: steps, samples, tokens or seconds (default: steps with "
                  "compare.equal_steps, else samples)")
      ->check(CLI::IsMember({"steps", "samples", "tokens", "seconds"}));
  cmd->callback([&exit_code, a] { exit_code = compare_command(*a); });
}

}  // namespace adarl
