// `adarl run CONFIG [key.path=value ...] [--resume DIR [--resume-force]]`: train end to
// end. Links LibTorch (the built-in policy's engines and the SFT warm start).
#include <CLI/CLI.hpp>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>

#include <nlohmann/json.hpp>
#include <spdlog/logger.h>

#include "base/clock.hpp"
#include "base/json_lines.hpp"
#include "cli/commands.hpp"
#include "config/pipeline_reader.hpp"
#include "config/resume_check.hpp"
#include "experiments/run_dir.hpp"
#include "experiments/run_engines.hpp"
#include "experiments/run_summary.hpp"
#include "experiments/run_tasks.hpp"
#include "experiments/shell_words.hpp"
#include "net/config_cluster.hpp"
#include "pipelines/pipeline.hpp"
#include "report/run_report.hpp"
#include "runtime/interrupt.hpp"
#include "runtime/listen_check.hpp"
#include "runtime/logging.hpp"
#include "runtime/metrics_http.hpp"
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

/// The command that runs this run again: its config and overrides, and with `resume`
/// --resume OUT (and --resume-force when this one had it).
std::string again_line(const run_args& a, const pipeline_config& c, bool resume) {
  std::vector<std::string> again{"adarl", "run", a.file};
  again.insert(again.end(), a.overrides.begin(), a.overrides.end());
  if (resume) again.insert(again.end(), {"--resume", c.out});
  if (resume && a.resume_force) again.push_back("--resume-force");
  return shell_line(again);
}

/// A stop (SIGINT, SIGTERM) before the pipeline trained: says where (`what`), what was
/// kept and the command to go on with; the exit status of an interrupted run.
int stopped_before_training(const run_args& a, const pipeline_config& c,
                            const std::string& what, const logger_ptr& log) {
  const bool kept = holds_a_run(c.out);  // a resumed run keeps what it held
  std::cout << "run: stopped " << (kept ? "while starting" : "before training") << ": " << what
            << "\nrun: " << (kept ? c.out + " keeps the steps and checkpoints it held"
                                  : std::string("no step was trained; nothing to resume"))
            << "\n";
  std::cout << "continue with: " << again_line(a, c, kept) << std::endl;
  if (log) log->info("run stopped before training: {}", what);
  return 130;
}

/// Rank 0 of a replicated learner: says which ranks it waits for, at which store, and
/// the command that starts each (this run's config and overrides). `last` keeps the
/// latest wait in words, for the stop message (read once the pipeline has ended).
replica_wait_fn say_rank_wait(const run_args& a, std::shared_ptr<std::string> last) {
  return [a, last](const replica_wait& w) {
    std::string ranks;
    for (uint32_t r : w.missing) ranks += (ranks.empty() ? "" : ", ") + std::to_string(r);
    *last = "learner rank" + std::string(w.missing.size() > 1 ? "s " : " ") + ranks +
            " to join the store at " + w.store;
    std::ostringstream s;
    s << "run: learner rank 0 waits for " << *last << " (" << int(w.waited) << " s of "
      << int(w.timeout) << " s, learner.join_timeout); start "
      << (w.missing.size() > 1 ? "each" : "it") << " with:\n";
    for (uint32_t r : w.missing) {
      std::vector<std::string> cmd{"adarl", "worker", "learn", a.file};
      cmd.insert(cmd.end(), a.overrides.begin(), a.overrides.end());
      cmd.insert(cmd.end(), {"--rank", std::to_string(r)});
      s << "  " << shell_line(cmd) << "\n";
    }
    std::cout << s.str() << std::flush;
  };
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

/// The summary's input: the run's lines and the files worth naming (the report page only
/// when this run's was written, checkpoints/ only with a complete checkpoint).
run_summary_input summary_input(const pipeline_config& c, double wall_seconds,
                                bool report, bool checkpoint) {
  run_summary_input in;
  auto steps = read_json_lines(c.out + "/metrics.jsonl", /*missing_ok=*/true);
  auto evals = read_json_lines(c.out + "/eval.jsonl", /*missing_ok=*/true);
  if (steps) in.steps = std::move(*steps);
  if (evals) in.evals = std::move(*evals);
  in.wall_seconds = wall_seconds;
  in.out = c.out;
  in.alarm.share = c.metrics.alarm_share;
  if (report) in.files.push_back("report.html");
  for (const char* f : {"metrics.jsonl", "metrics.csv", "eval.jsonl"})
    if (std::filesystem::exists(c.out + "/" + f)) in.files.push_back(f);
  if (const auto log = log_file_path(c.log, c.out); !log.empty() && std::filesystem::exists(log))
    in.files.push_back(std::filesystem::path(log).lexically_relative(c.out).string());
  if (checkpoint) in.files.push_back("checkpoints/");
  return in;
}

/// The closing line (the checkpoint only when it is complete on the disk),
/// OUT/report.html and the summary of the run's files. 0, or 1 when the report, the log
/// file or stdout could not be written, each said on stderr with the file and the reason.
int finish_run(const pipeline_config& c, const run_outcome& r, const run_watchers& w,
               double wall_seconds) {
  std::vector<std::string> failures;
  auto kept = read_manifest(r.checkpoint);
  if (!kept) failures.push_back(kept.err().message);
  const std::string checkpoint = kept ? r.checkpoint : std::string("none");
  const char* how = r.interrupted ? "stopped" : "finished";
  std::cout << "run: " << how << " at version " << r.version << "; checkpoint "
            << checkpoint << "\n";
  w.log->info("run {} at version {}; checkpoint {}", how, r.version, checkpoint);
  run_report_options ro;
  ro.title = "adarl run: " + c.name;
  ro.metric = c.eval.greedy ? "greedy" : "sampled";
  bool report = false;
  if (auto data = run_report_data(c.out, ro); !data)
    w.log->warn("report: {}", data.err().message);  // nothing to draw: not a write
  else if (auto page = write_report_page(c.out, *data); !page)
    failures.push_back(page.err().message);
  else
    report = true;
  std::cout << run_summary(summary_input(c, wall_seconds, report, bool(kept))) << "\n";
  errno = 0;
  if (!std::cout.flush())
    failures.push_back(std::string("stdout: cannot write the summary") +
                       (errno ? std::string(": ") + std::strerror(errno) : ""));
  w.log->flush();
  if (auto f = log_write_failure(w.log); !f.empty()) failures.push_back(f);
  for (const auto& f : failures) std::cerr << "run: " << f << "\n";
  return failures.empty() ? 0 : 1;
}

/// The config and prompts of a run, checked before anything starts (device, SFT items,
/// listen endpoints), with what they are printed; the exit status when they fail.
struct checked_run {
  std::optional<pipeline_config> config;
  prompt_table_ptr prompts;
  int status = 0;
};

checked_run check_run(const run_args& a) {
  auto config = load_pipeline_config(a.file, a.overrides);
  if (!config) {
    std::cerr << config.err().message << "\n";
    return {std::nullopt, nullptr, 2};
  }
  const pipeline_config& c = *config;
  const auto refuse = [&a](const error& e) {
    std::cerr << a.file << ": " << e.message << "\n";
    return checked_run{std::nullopt, nullptr, 2};
  };
  if (auto ok = check_device(c); !ok) return refuse(ok.err());
  std::cout << describe(c) << "\n";
  auto prompts = load_run_prompts(c);
  if (!prompts) return refuse(prompts.err());
  std::cout << "run: " << (*prompts)->train << " training prompts, " << (*prompts)->held_out()
            << " held out (" << (c.tasks.dataset.empty() ? "suite " + c.tasks.suite : c.tasks.dataset)
            << ")\n";
  if (auto ok = check_sft_items(c); !ok) return refuse(ok.err());
  if (auto ok = check_listen_endpoints(c); !ok) return refuse(ok.err());
  describe_sandbox(**prompts);
  return {std::move(*config), *prompts, 0};
}

/// Where the run writes (c.out) and what it resumes from (o.resume_from): the resumed
/// run's directory, a new {time} directory, or the configured one when it holds no run.
/// 0, or the exit status.
int choose_out_dir(const run_args& a, pipeline_config& c, run_options& o) {
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
  } else if (c.out.find(run_dir_placeholder) != std::string::npos) {
    auto dir = make_run_dir(c.out);
    if (!dir) {
      std::cerr << a.file << ": out: " << dir.err().message << "\n";
      return 1;
    }
    c.out = *dir;
    std::cout << "run: writing to " << c.out << "\n";
  } else if (holds_a_run(c.out)) {
    std::cerr << c.out << " already holds a run (metrics.jsonl): continue it with --resume "
              << c.out << ", or write this one elsewhere with out=DIR\n";
    return 2;
  }
  return 0;
}

int run_command(const run_args& a) {
  const auto started = steady_clock::now();
  // Before any work: a stop during the warm start or the wait for learner ranks counts
  // too, even with SIGINT inherited as ignored (runtime/interrupt.hpp).
  sigint_guard guard;
  auto checked = check_run(a);
  if (checked.status != 0) return checked.status;
  pipeline_config& c = *checked.config;
  const prompt_table_ptr prompts = checked.prompts;
  run_options o;
  o.log = &std::cerr;
  o.cluster = config_cluster();  // remote verifiers and generators, when the config binds them
  if (const int status = choose_out_dir(a, c, o); status != 0) return status;
  auto watchers = start_watchers(a, c);
  if (!watchers) return 2;
  o.logger = watchers->log;
  o.observer = watchers->endpoint;
  replica_join_watch join;
  join.stop = &sigint_guard::flag();
  auto waited = std::make_shared<std::string>();
  join.on_wait = say_rank_wait(a, waited);
  // A resumed run of the built-in policy takes its weights from the checkpoint: the SFT
  // warm start (possibly gone from the cache) is not needed to start from it.
  if (!o.resume_from.empty() && c.policy.kind == policy_kind::transformer &&
      c.policy.base_checkpoint.empty() &&
      std::filesystem::exists(o.resume_from + "/meta.json")) {
    c.policy.base_checkpoint = o.resume_from;
    std::cout << "run: the policy starts from the checkpoint's weights (no SFT warm start "
                 "needed)\n";
  }
  auto engines = run_engines(c, prompts, std::cout, join);
  if (!engines && sigint_guard::flag().load())
    return stopped_before_training(a, c, engines.err().message, watchers->log);
  if (!engines) {
    std::cerr << "run: warm start: " << engines.err().message << "\n";
    return 1;
  }
  if (sigint_guard::flag().load())
    return stopped_before_training(a, c,
                                   c.policy.kind == policy_kind::transformer
                                       ? "after the warm start (cached: the next run starts from it)"
                                       : "before the pipeline started",
                                   watchers->log);
  std::filesystem::create_directories(c.out);
  result<run_outcome> r = error{"not run"};
  o.stop = &sigint_guard::flag();
  r = run_pipeline(c, prompts, *engines, o);
  if (watchers->endpoint) watchers->endpoint->stop();  // the run is over
  if (!r && sigint_guard::flag().load() && !waited->empty() && !holds_a_run(c.out))
    return stopped_before_training(a, c, "stopped while waiting for " + *waited, watchers->log);
  if (!r) {
    std::cerr << "run: " << r.err().message << "\n";
    // A failure after a complete checkpoint (a full disk, a lost worker): the way on.
    if (resolve_checkpoint(c.out))
      std::cerr << "run: once the cause is fixed, continue with: " << again_line(a, c, true)
                << "\n";
    watchers->log->info("run failed: {}", r.err().message);  // the file's last word
    return 1;
  }
  const int status = finish_run(c, *r, *watchers, seconds_since(started));
  if (status != 0) return status;
  if (!r->interrupted) return 0;
  std::cout << "continue with: " << again_line(a, c, true) << "\n";
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
