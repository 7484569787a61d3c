#include "experiments/run_job.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <optional>
#include <sstream>

#include <nlohmann/json.hpp>
#include <spdlog/logger.h>

#include "base/clock.hpp"
#include "base/json_lines.hpp"
#include "experiments/run_engines.hpp"
#include "experiments/run_start.hpp"
#include "experiments/run_summary.hpp"
#include "experiments/shell_words.hpp"
#include "report/run_facts.hpp"
#include "net/config_cluster.hpp"
#include "report/run_report.hpp"
#include "runtime/interrupt.hpp"
#include "runtime/logging.hpp"
#include "runtime/metrics_http.hpp"

namespace adarl {

namespace {

/// A stop before the pipeline trained: says where (`what`), what was kept and the
/// command to go on with.
run_job_result stopped_before_training(const run_io& j, const pipeline_config& c,
                                       const std::string& what, const logger_ptr& log) {
  const bool kept = holds_a_run(c.out);  // a resumed run keeps what it held
  j.out << "run: stopped " << (kept ? "while starting" : "before training") << ": " << what
        << "\nrun: " << (kept ? c.out + " keeps the steps and checkpoints it held"
                              : std::string("no step was trained; nothing to resume"))
        << "\n";
  run_job_result r{run_status::stopped, c.out, 0, "", again_line(j.req, c, kept), what};
  j.out << "continue with: " << r.again << std::endl;
  if (log) log->info("run stopped before training: {}", what);
  return r;
}

/// Rank 0 of a replicated learner: tells j.on_rank_wait (else says on `out`) which
/// ranks it waits for, at which store, and the command that starts each (this run's
/// config and overrides). `last` keeps the latest wait in words, for the stop message
/// (read once the pipeline has ended).
replica_wait_fn say_rank_wait(const run_io& j, std::shared_ptr<std::string> last) {
  return [a = j.req, out = &j.out, told = j.on_rank_wait, last](const replica_wait& w) {
    std::string ranks;
    for (uint32_t r : w.missing) ranks += (ranks.empty() ? "" : ", ") + std::to_string(r);
    *last = "learner rank" + std::string(w.missing.size() > 1 ? "s " : " ") + ranks +
            " to join the store at " + w.store;
    if (told) return told(w);
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
    *out << s.str() << std::flush;
  };
}

/// The summary's input: the files worth naming (the report page only when this run's
/// was written, checkpoints/ only with a complete checkpoint).
run_summary_input summary_input(const pipeline_config& c, double wall_seconds,
                                bool report, bool checkpoint) {
  run_summary_input in;
  in.wall_seconds = wall_seconds;
  in.out = c.out;
  in.alarm.share = c.metrics.alarm_share;
  in.logprob_tolerance = c.learner.logprob_tolerance;
  if (report) in.files.push_back("report.html");
  for (const char* f : {"metrics.jsonl", "metrics.csv", "eval.jsonl"})
    if (std::filesystem::exists(c.out + "/" + f)) in.files.push_back(f);
  if (const auto log = log_file_path(c.log, c.out); !log.empty() && std::filesystem::exists(log))
    in.files.push_back(std::filesystem::path(log).lexically_relative(c.out).string());
  if (checkpoint) in.files.push_back("checkpoints/");
  return in;
}

/// The run's facts when its page's data could not be read (no metrics.jsonl: a run that
/// ended before its first step): what the files there give, else none.
nlohmann::json facts_without_page(const std::string& out, const run_report_options& o) {
  auto steps = read_json_lines(out + "/metrics.jsonl", /*missing_ok=*/true);
  auto evals = read_json_lines(out + "/eval.jsonl", /*missing_ok=*/true);
  return run_facts(steps ? std::move(*steps) : std::vector<nlohmann::json>{},
                   evals ? std::move(*evals) : std::vector<nlohmann::json>{}, o);
}

/// The closing line (the checkpoint only when it is complete on the disk),
/// OUT/report.html and the summary of the run's files. Finished or stopped as the
/// pipeline ended, or failed when the report, the log file or `out` could not be
/// written, each said on `err` with the file and the reason.
run_job_result finish_run(const run_io& j, const pipeline_config& c, const run_outcome& r,
                          const run_watchers& w, double wall_seconds) {
  std::vector<std::string> failures;
  auto kept = read_manifest(r.checkpoint);
  if (!kept) failures.push_back(kept.err().message);
  const std::string checkpoint = kept ? r.checkpoint : std::string("none");
  const char* how = r.interrupted ? "stopped" : "finished";
  j.out << "run: " << how << " at version " << r.version << "; checkpoint " << checkpoint
        << "\n";
  w.log->info("run {} at version {}; checkpoint {}", how, r.version, checkpoint);
  run_report_options ro;
  ro.title = "adarl run: " + c.name;
  ro.metric = c.eval.greedy ? "greedy" : "sampled";
  bool report = false;
  auto data = run_report_data(c.out, ro);  // the run's facts, for its page and summary
  if (!data)
    w.log->warn("report: {}", data.err().message);  // nothing to draw: not a write
  else if (auto page = write_report_page(c.out, *data); !page)
    failures.push_back(page.err().message);
  else
    report = true;
  const auto input = summary_input(c, wall_seconds, report, bool(kept));
  j.out << run_summary(data ? *data : facts_without_page(c.out, ro), input) << "\n";
  errno = 0;
  if (!j.out.flush())
    failures.push_back(std::string("stdout: cannot write the summary") +
                       (errno ? std::string(": ") + std::strerror(errno) : ""));
  w.log->flush();
  if (auto f = log_write_failure(w.log); !f.empty()) failures.push_back(f);
  run_job_result out{r.interrupted ? run_status::stopped : run_status::finished, c.out,
                     r.version, kept ? r.checkpoint : "", "", ""};
  for (const auto& f : failures) {
    j.err << "run: " << f << "\n";
    out.error += (out.error.empty() ? "" : "; ") + f;
  }
  if (!failures.empty()) out.status = run_status::failed;
  return out;
}

/// The engines, the pipeline and the closing lines of a run whose config, directory and
/// watchers are ready; `o` holds its options but the stop flag.
run_job_result train(const run_io& j, pipeline_config& c, const prompt_table_ptr& prompts,
                     run_options& o, const run_watchers& w) {
  replica_join_watch join;
  join.stop = &j.stop;
  auto waited = std::make_shared<std::string>();
  join.on_wait = say_rank_wait(j, waited);
  // A resumed run of the built-in policy takes its weights from the checkpoint: the SFT
  // warm start (possibly gone from the cache) is not needed to start from it.
  const engine_kind_traits& kind = kind_traits(c.policy.kind);
  if (!o.resume_from.empty() && kind.sft_warm_start() &&
      c.policy.base_checkpoint.empty() &&
      std::filesystem::exists(o.resume_from + "/meta.json")) {
    c.policy.base_checkpoint = o.resume_from;
    j.out << "run: the policy starts from the checkpoint's weights (no SFT warm start "
             "needed)\n";
  }
  auto engines = run_engines(c, prompts, j.out, join);
  if (!engines && j.stop.load())
    return stopped_before_training(j, c, engines.err().message, w.log);
  if (!engines)
    return said(j, run_status::failed, c.out,
                std::string(kind.sft_warm_start() ? "run: warm start: " : "run: engines: ") +
                    engines.err().message);
  if (j.stop.load())
    return stopped_before_training(j, c,
                                   kind.sft_warm_start()
                                       ? "after the warm start (cached: the next run starts from it)"
                                       : "before the pipeline started",
                                   w.log);
  std::filesystem::create_directories(c.out);
  o.stop = &j.stop;
  auto r = run_pipeline(c, prompts, *engines, o);
  if (w.endpoint) w.endpoint->stop();  // the run is over
  if (!r && j.stop.load() && !waited->empty() && !holds_a_run(c.out))
    return stopped_before_training(j, c, "stopped while waiting for " + *waited, w.log);
  if (!r) {
    auto failed = said(j, run_status::failed, c.out, "run: " + r.err().message);
    // A failure after a complete checkpoint (a full disk, a lost worker): the way on.
    if (auto ckpt = resolve_checkpoint(c.out)) {
      failed.checkpoint = *ckpt;
      failed.again = again_line(j.req, c, true);
      j.err << "run: once the cause is fixed, continue with: " << failed.again << "\n";
    }
    w.log->info("run failed: {}", r.err().message);  // the file's last word
    return failed;
  }
  auto done = finish_run(j, c, *r, w, seconds_since(j.started));
  if (done.status != run_status::stopped) return done;
  done.again = again_line(j.req, c, true);
  j.out << "continue with: " << done.again << "\n";
  return done;
}

}  // namespace

run_job_result run_job(const run_request& req, const run_job_hooks& hooks) {
  const auto started = steady_clock::now();
  // Before any work: a stop during the warm start or the wait for learner ranks counts
  // too, even with SIGINT inherited as ignored (runtime/interrupt.hpp).
  std::optional<sigint_guard> guard;
  if (!hooks.stop) guard.emplace();
  const run_io j{req,
                 hooks.out ? *hooks.out : std::cout,
                 hooks.err ? *hooks.err : std::cerr,
                 hooks.stop ? *hooks.stop : sigint_guard::flag(),
                 hooks.on_rank_wait,
                 started};
  pipeline_config c;
  prompt_table_ptr prompts;
  if (auto ended = check_run(j, c, prompts)) return *ended;
  run_options o;
  o.log = &j.err;
  o.cluster = config_cluster();  // remote verifiers and generators, when the config binds them
  if (auto ended = choose_out_dir(j, c, o)) return *ended;
  run_watchers w;
  if (auto ended = start_watchers(j, c, w)) return *ended;
  o.logger = w.log;
  o.observer = w.endpoint;
  return train(j, c, prompts, o, w);
}

}  // namespace adarl
