#pragma once
// `adarl run` as a library call (links LibTorch: adarl_experiments_torch): a pipeline
// config and its overrides in, a run directory and a status out, with everything the
// command does between: the resume checks, the run's log and metrics endpoint, the SFT
// warm start (or the checkpoint's weights on resume), the engines, the pipeline, the
// report page and the closing summary. cli/run_command.cpp only parses its flags and
// maps the status to an exit code.

#include <atomic>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "engines/replica_join_watch.hpp"

namespace adarl {

/// What to run: `adarl run FILE [OVERRIDES...] [--resume DIR [--resume-force]]`.
struct run_request {
  std::string file;                    ///< The pipeline YAML (configs/quickstart.yaml).
  std::vector<std::string> overrides;  ///< key.path=value, applied in order.
  std::string resume;  ///< A run directory or a checkpoint to continue; "" = a new run.
  bool resume_force = false;  ///< Resume even when the state config differs.
};

/// How a run job ended (the exit status of `adarl run` in brackets).
enum class run_status {
  finished,  ///< Every step trained; report and summary written (0).
  stopped,   ///< The stop flag was set: a checkpoint, or nothing trained yet (130).
  refused,   ///< Bad input, before training: config, device, prompts, a resume whose
             ///< config differs, an `out` holding a run, a busy endpoint (2).
  failed,    ///< The warm start, the pipeline, or writing the run's files failed (1).
};

/// What the job reports back; everything in it was also printed.
struct run_job_result {
  run_status status = run_status::failed;
  std::string out;         ///< The run's directory; "" when refused before one was chosen.
  uint64_t version = 0;    ///< The learner's version at the end; 0 when it did not train.
  std::string checkpoint;  ///< The last complete checkpoint at the end; "" when none.
  /// The command that continues the run (stopped, or failed after a checkpoint):
  /// `adarl run FILE OVERRIDES... [--resume OUT]`; "" when there is nothing to continue.
  std::string again;
  /// Why, when refused or failed (as printed on `err`, its first line); where, when
  /// stopped before training.
  std::string error;
};

/// Where the job talks and what stops it. The streams must outlive the call; the run's
/// log (log.file, warnings on the terminal) and progress line go where the config says.
struct run_job_hooks {
  /// What the run is, where it writes, the summary: `adarl run`'s stdout. Null = std::cout.
  std::ostream* out = nullptr;
  /// Refusals, failures, resume notes and the pipeline's own start-up and closing lines
  /// (run_options::log): `adarl run`'s stderr. Null = std::cerr.
  std::ostream* err = nullptr;
  /// Set to stop: the warm start or the wait for learner ranks ends, the pipeline writes
  /// a checkpoint. Null = SIGINT and SIGTERM stop the job (a sigint_guard while it runs,
  /// runtime/interrupt.hpp).
  const std::atomic<bool>* stop = nullptr;
  /// Told what learner rank 0 waits for (learner.replicas > 1), on the joining thread.
  /// Unset = printed on `out`, with the `adarl worker learn` command of each rank.
  replica_wait_fn on_rank_wait;
};

/// Runs `req` to its end as `adarl run` does, with its output on `hooks`: the same lines,
/// the same files. Blocks the caller until the run ends. A refused resume leaves the run
/// as it was; a stopped or failed run keeps its last complete checkpoint, and `again`
/// continues it. With hooks.stop null it holds a sigint_guard for its length, so it must
/// be called on the thread that makes the process's other guards (runtime/interrupt.hpp).
run_job_result run_job(const run_request& req, const run_job_hooks& hooks = {});

}  // namespace adarl
