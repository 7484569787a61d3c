#pragma once
// The start of a run job (experiments/run_job.hpp), before anything trains: the config
// and prompts checked, the directory chosen (a new {time} one, or the resumed run's after
// its checks), the run's log and metrics endpoint started. Internal to the job: each step
// prints what `adarl run` prints and, where the job ends there, says how.

#include <atomic>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>

#include "base/clock.hpp"
#include "experiments/run_job.hpp"
#include "pipelines/pipeline.hpp"
#include "runtime/logging.hpp"

namespace adarl {

class metrics_endpoint;

/// One job's request, where it talks and what stops it (run_job_hooks resolved).
struct run_io {
  const run_request& req;
  std::ostream& out;
  std::ostream& err;
  const std::atomic<bool>& stop;
  replica_wait_fn on_rank_wait;       ///< Unset: rank waits are printed on `out`.
  steady_clock::time_point started;  ///< For the summary's wall time.
};

/// How a step of the start ended the job; nullopt: the job goes on.
using run_ended = std::optional<run_job_result>;

/// Says `line` on `err` and returns the job's end with that status and error.
run_job_result said(const run_io& j, run_status s, const std::string& out,
                    const std::string& line);

/// True when `out` already holds a run's metrics (a fresh run would overwrite them).
bool holds_a_run(const std::string& out);

/// The command that runs this run again: its config and overrides, and with `resume`
/// --resume OUT (and --resume-force when this one had it).
std::string again_line(const run_request& a, const pipeline_config& c, bool resume);

/// Loads the config (overrides applied) and checks it before anything starts (device,
/// prompts, SFT items, listen endpoints), printing what it is; refused with the message
/// naming the file or key otherwise.
run_ended check_run(const run_io& j, pipeline_config& c, prompt_table_ptr& prompts);

/// Where the run writes (c.out) and what it resumes from (o.resume_from): the resumed
/// run's directory after its checks, a new {time} directory, or the configured one when
/// it holds no run.
run_ended choose_out_dir(const run_io& j, pipeline_config& c, run_options& o);

/// The watching parts of a run: its log and its metrics endpoint.
struct run_watchers {
  logger_ptr log;
  std::shared_ptr<metrics_endpoint> endpoint;  ///< Null with metrics.listen "".
};

/// Opens the run's log and starts its metrics endpoint, before anything else runs, and
/// says where they and the report are. A bad log file or endpoint refuses the run,
/// naming its key.
run_ended start_watchers(const run_io& j, const pipeline_config& c, run_watchers& w);

}  // namespace adarl
