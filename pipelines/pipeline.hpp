#pragma once
// Builds a running pipeline from a config: spawns and wires the actors, waits for the
// end (or a stop request), shuts down cleanly. Torch-free: the engines come from
// factories (runtime/ passes the LibTorch ones, tests the simulated ones).

#include <atomic>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <string>

#include "actors/checkpoint_files.hpp"
#include "actors/log.hpp"
#include "actors/prompt_table.hpp"
#include "actors/run_observer.hpp"
#include "base/result.hpp"
#include "engines/engine.hpp"
#include "engines/engine_spec.hpp"
#include "pipelines/cluster.hpp"
#include "pipelines/pipeline_config.hpp"

namespace adarl {

/// How the engines of a run are built (each on its actor's own thread).
struct engine_factories {
  std::function<result<std::unique_ptr<generation_engine>>(uint32_t generator)> generator;
  std::function<result<std::unique_ptr<learner_engine>>()> learner;
};

/// Options of one run beyond its config.
struct run_options {
  std::string resume_from;                  ///< A checkpoint directory (step-N) or "".
  const std::atomic<bool>* stop = nullptr;  ///< Set (e.g. by SIGINT) to stop cleanly.
  /// The line said when `stop` is seen; "" says nothing (a caller that stops the run
  /// itself once it has what it needs, as the prompt selection does).
  std::string stop_line = "stopping: draining the learner and writing a checkpoint";
  /// Start-up and closing lines (listening endpoints, what remote workers did); also
  /// the warnings when `logger` is unset.
  std::ostream* log = nullptr;
  /// The run's logger (runtime/logging.hpp: terminal and file): every component logs
  /// through a copy named after it, warnings included. Unset = warnings to `log`.
  logger_ptr logger;
  /// Told of every step line, evaluation and tracker status (runtime/metrics_http.hpp);
  /// unset = none.
  std::shared_ptr<run_observer> observer;
  /// Parts of the run outside this process (net/config_cluster.hpp: the remote workers of
  /// the config); unset = none.
  cluster_factory cluster;
};

/// How a run ended.
struct run_outcome {
  uint64_t version = 0;        ///< Learner version at the end (steps trained).
  bool interrupted = false;    ///< Stopped by `stop` before the last step.
  std::string checkpoint;      ///< The last checkpoint written.
  uint32_t warnings = 0;       ///< Non-fatal problems reported by actors (logged).
};

/// Runs the pipeline to its last step (or until `stop`). Output goes to config.out:
/// metrics.jsonl, metrics.csv, eval.jsonl, config.json, checkpoints/. Blocks the caller.
/// Fatal problems are errors naming the actor and its message: the learner cannot start
/// or train, every generator failed, an actor ended with an exception (then the learner
/// writes a checkpoint first, when it still can), or nothing progressed for
/// config.stall_seconds (the error says what the tracker and the learner wait for).
/// `resume_from` must be a complete checkpoint (resolve_checkpoint). This is
/// start_pipeline() (pipelines/pipeline_handle.hpp) in an actor system of its own with
/// actors.scheduler_threads threads, then wait().
result<run_outcome> run_pipeline(const pipeline_config& config, prompt_table_ptr prompts,
                                 const engine_factories& engines, const run_options& options);

/// The simulated engines for a config whose policy kind is simulated: the world's
/// answers are the prompt table's reference answers.
engine_factories sim_factories(const pipeline_config& config, prompt_table_ptr prompts);

/// The simulated generation engine of a spec (kind simulated).
result<std::unique_ptr<generation_engine>> sim_engine_of(const engine_spec& spec);

}  // namespace adarl
