// `adarl run CONFIG [key.path=value ...] [--resume DIR [--resume-force]]`: train end to
// end. Links LibTorch (the built-in policy's engines and the SFT warm start).
#include <CLI/CLI.hpp>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>

#include <nlohmann/json.hpp>
#include <spdlog/logger.h>

#include "actors/clock.hpp"
#include "actors/json_lines.hpp"
#include "pipelines/pipeline.hpp"
#include "runtime/cluster.hpp"
#include "cli/commands.hpp"
#include "runtime/interrupt.hpp"
#include "runtime/logging.hpp"
#include "runtime/metrics_http.hpp"
#include "config/pipeline_reader.hpp"
#include "config/resume_check.hpp"
#include "cli/run_engines.hpp"
#include "cli/run_summary.hpp"
#include "cli/run_tasks.hpp"
#include "report/run_report.hpp"
#include "tasks/python_runner.hpp"

namespace adarl {

namespace {

/// Exit status of a run stopped by Ctrl-C or SIGTERM (128 + SIGINT, as shells report).
constexpr int interrupted_exit = 130;

struct run_args {
  std::string file;
  std::vector<std::string> overrides;
  std::string resume;
  bool resume_force = false;
};

/// A word for a shell: quoted when it holds anything but safe characters.
std::string shell_word(const std::string& s) {
  const bool safe = !s.empty() && s.find_first_not_of(
                                      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                      "0123456789_-+=.,/:@%") == std::string::npos;
  if (safe) return s;
  std::string out = "'";
  for (char ch : s) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return out + "'";
}

/// Says once how programs of the python verifier are isolated here, when the run uses it
/// (the sandbox degrades where the kernel refuses namespaces, e.g. in a chroot).
void describe_sandbox(const prompt_table& prompts) {
  for (const auto& row : prompts.rows)
    if (row.item.verifier == "python") {
      const python_runner runner;
      if (!runner.available()) {
        std::cerr << "python sandbox: no interpreter; python items score 0 (python_unavailable)\n";
        return;
      }
      const auto iso = runner.probe_isolation();
      std::cerr << "python sandbox: " << iso.describe() << "\n";
      if (!iso.private_root)
        std::cerr << "warning: programs of the python verifier can read this machine's "
                     "files (the kernel refused a private mount namespace)\n";
      return;
    }
}

/// True when `out` already holds a run's metrics (a fresh run would overwrite them).
bool holds_a_run(const std::string& out) {
  std::error_code ec;
  return std::filesystem::file_size(out + "/metrics.jsonl", ec) > 0 && !ec;
}

/// The state differences between the config a run (or checkpoint) was written under
/// and the current one, printed; false when they forbid going on (no --resume-force).
bool same_state(const run_args& a, const pipeline_config& c, const std::string& what,
                const std::map<std::string, std::string>& saved) {
  const auto diff = state_differences(saved, c.effective);
  if (diff.empty()) return true;
  std::cerr << "--resume: " << what
            << " was written under another configuration of what its state means:\n";
  for (const auto& d : diff) std::cerr << "  " << d << "\n";
  if (!a.resume_force) {
    std::cerr << "run the same configuration, or add --resume-force to continue anyway\n";
    return false;
  }
  std::cerr << "--resume-force: continuing anyway\n";
  return true;
}

/// How a --resume goes on.
struct resume_plan {
  bool ok = false;
  std::string checkpoint;  ///< "" with ok: the run holds no checkpoint yet, start over.
};

/// The checkpoint to resume from, checked against the current config; not ok, with a
/// message on stderr, when it may not be used. A run directory killed before its first
/// checkpoint (metrics but no checkpoint) starts over in the same directory.
resume_plan checked_resume(const run_args& a, const pipeline_config& c) {
  std::string note;
  auto ckpt = resolve_checkpoint(a.resume, &note);
  if (!ckpt) {
    namespace fs = std::filesystem;
    const bool any = fs::exists(a.resume + "/checkpoints/latest") ||
                     fs::exists(a.resume + "/checkpoint.json");
    if (!any && fs::exists(a.resume + "/metrics.jsonl")) {
      auto saved = read_config_values(a.resume + "/config.json");
      if (saved && !same_state(a, c, a.resume, *saved)) return {};
      std::cerr << "--resume: " << a.resume
                << " holds no checkpoint yet (stopped before its first): starting it again "
                   "from the beginning\n";
      return {true, ""};
    }
    std::cerr << "--resume: " << ckpt.err().message << "\n";
    return {};
  }
  if (!note.empty()) std::cerr << "--resume: " << note << "\n";
  auto saved = read_config_values(*ckpt + "/config.json");
  if (!saved) {
    if (!a.resume_force) {
      std::cerr << "--resume: " << saved.err().message
                << "; --resume-force continues without checking the config\n";
      return {};
    }
    return {true, *ckpt};
  }
  if (!same_state(a, c, *ckpt, *saved)) return {};
  return {true, *ckpt};
}

/// The watching parts of a run: its log and its metrics endpoint.
struct run_watchers {
  logger_ptr log;
  std::shared_ptr<metrics_endpoint> endpoint;  ///< Null with metrics.listen "".
};

/// Opens the run's log and starts its metrics endpoint, before anything else runs, and
/// says where they and the report are. A bad log file or endpoint is an error naming
/// its key (the message is printed).
std::optional<run_watchers> start_watchers(const run_args& a, const pipeline_config& c) {
  run_watchers w;
  if (!c.metrics.listen.empty()) {
    run_figures start;
    start.run = c.name;
    start.steps_planned = c.tracker.steps;
    auto e = metrics_endpoint::start(c.metrics.listen, std::move(start));
    if (!e) {
      std::cerr << a.file << ": metrics.listen: " << e.err().message << "\n";
      return std::nullopt;
    }
    w.endpoint = *e;
    std::cout << "run: metrics at " << w.endpoint->url() << "\n";
  }
  auto log = open_run_log(c.log, c.out);  // after the endpoint: a busy one leaves no file
  if (!log) {
    std::cerr << a.file << ": " << log.err().message << "\n";
    return std::nullopt;
  }
  w.log = *log;
  const auto file = log_file_path(c.log, c.out);
  std::cout << "run: report at " << c.out << "/report.html when it ends"
            << (file.empty() ? std::string() : "; log in " + file) << std::endl;  // scripts wait on it
  std::string what = describe(c);  // one line in the log
  for (size_t at; (at = what.find("\n  ")) != std::string::npos;) what.replace(at, 3, "; ");
  w.log->info("run {} started: {}", c.name, what);
  return w;
}

/// Writes OUT/report.html and prints the summary of the run's files.
void finish_run(const pipeline_config& c, const run_watchers& w, double wall_seconds) {
  run_report_options ro;
  ro.title = "adarl run: " + c.name;
  ro.metric = c.eval.greedy ? "greedy" : "sampled";
  auto data = run_report_data(c.out, ro);
  auto page = data ? write_report_page(c.out, *data) : result<std::string>(data.err());
  if (!page) w.log->warn("report: {}", page.err().message);
  run_summary_input in;
  auto steps = read_json_lines(c.out + "/metrics.jsonl", /*missing_ok=*/true);
  auto evals = read_json_lines(c.out + "/eval.jsonl", /*missing_ok=*/true);
  if (steps) in.steps = std::move(*steps);
  if (evals) in.evals = std::move(*evals);
  in.wall_seconds = wall_seconds;
  in.out = c.out;
  for (const char* f : {"report.html", "metrics.jsonl", "metrics.csv", "eval.jsonl"})
    if (std::filesystem::exists(c.out + "/" + f)) in.files.push_back(f);
  if (const auto log = log_file_path(c.log, c.out); !log.empty() && std::filesystem::exists(log))
    in.files.push_back(std::filesystem::path(log).lexically_relative(c.out).string());
  if (std::filesystem::exists(c.out + "/checkpoints")) in.files.push_back("checkpoints/");
  std::cout << run_summary(in) << "\n";
}

int run_command(const run_args& a) {
  const auto started = steady_clock::now();
  auto config = load_pipeline_config(a.file, a.overrides);
  if (!config) {
    std::cerr << config.err().message << "\n";
    return 2;
  }
  pipeline_config& c = *config;
  if (auto ok = check_device(c); !ok) {
    std::cerr << a.file << ": " << ok.err().message << "\n";
    return 2;
  }
  std::cout << describe(c) << "\n";
  auto prompts = load_run_prompts(c);
  if (!prompts) {
    std::cerr << a.file << ": " << prompts.err().message << "\n";
    return 2;
  }
  describe_sandbox(**prompts);
  run_options o;
  o.log = &std::cerr;
  o.cluster = config_cluster();  // remote verifiers and generators, when the config binds them
  if (!a.resume.empty()) {
    const auto plan = checked_resume(a, c);
    if (!plan.ok) return 2;
    o.resume_from = plan.checkpoint;
    if (o.resume_from.empty()) {
      c.out = a.resume;  // no checkpoint yet: the same directory, from the beginning
    } else {
      // The run continues in the directory its checkpoint belongs to (OUT/checkpoints/..).
      const auto parent = std::filesystem::path(o.resume_from).parent_path();
      if (parent.filename() == "checkpoints") c.out = parent.parent_path().string();
      std::cout << "run: resuming from " << o.resume_from << " into " << c.out << "\n";
    }
  } else if (holds_a_run(c.out)) {
    std::cerr << c.out << " already holds a run (metrics.jsonl): continue it with --resume "
              << c.out << ", or write this one elsewhere with out=DIR\n";
    return 2;
  }
  auto watchers = start_watchers(a, c);
  if (!watchers) return 2;
  o.logger = watchers->log;
  o.observer = watchers->endpoint;
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
  if (watchers->endpoint) watchers->endpoint->stop();  // the run is over
  if (!r) {
    std::cerr << "run: " << r.err().message << "\n";
    watchers->log->info("run failed: {}", r.err().message);  // the file's last word
    return 1;
  }
  std::cout << "run: " << (r->interrupted ? "stopped" : "finished") << " at version "
            << r->version << "; checkpoint " << r->checkpoint << "\n";
  watchers->log->info("run {} at version {}; checkpoint {}",
                      r->interrupted ? "stopped" : "finished", r->version, r->checkpoint);
  finish_run(c, *watchers, seconds_since(started));
  if (!r->interrupted) return 0;
  std::string again = "adarl run " + shell_word(a.file);
  for (const auto& o2 : a.overrides) again += " " + shell_word(o2);
  std::cout << "continue with: " << again << " --resume " << shell_word(c.out) << "\n";
  return interrupted_exit;
}

}  // namespace

void add_run_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("run", "train a policy end to end from a pipeline config");
  auto a = std::make_shared<run_args>();
  cmd->add_option("config", a->file, "pipeline YAML (see configs/quickstart.yaml)")->required();
  cmd->add_option("overrides", a->overrides, "key.path=value overrides");
  cmd->add_option("--resume", a->resume,
                  "continue a run from its output directory or a checkpoint");
  cmd->add_flag("--resume-force", a->resume_force,
                "resume even when the config differs in what the checkpoint's state means");
  cmd->callback([&exit_code, a] { exit_code = run_command(*a); });
}

}  // namespace adarl
