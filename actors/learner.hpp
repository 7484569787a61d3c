#pragma once
// The learner actor: one optimizer step per complete step batch (detached).

#include <caf/fwd.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "actors/checkpoint_files.hpp"
#include "actors/log.hpp"
#include "actors/prompt_table.hpp"
#include "messages/interfaces.hpp"

namespace adarl {

/// Builds the learner's engine on the learner's own thread.
using learner_engine_factory = std::function<result<std::unique_ptr<learner_engine>>()>;

/// What the learner is spawned with.
struct learner_setup {
  learner_engine_factory make_engine;
  prompt_table_ptr prompts;
  learner_link_actor tracker;
  std::vector<generator_actor> generators;
  evaluator_actor evaluator;
  metrics_actor metrics;
  /// Gets (done_atom, version) at the end; (stop_atom, text) when the learner cannot go
  /// on; (progress_atom, step, true/false) around each optimizer step; warning strings.
  caf::actor supervisor;
  uint64_t steps = 1;              ///< Train this many steps (versions), then stop.
  uint64_t sample_budget = 0;      ///< Or stop once the cumulative samples reach this ...
  uint64_t min_steps = 0;          ///< ... and at least this many steps are trained.
  uint64_t samples_before = 0;     ///< Cumulative samples at resume_from.
  uint64_t tokens_before = 0;      ///< Cumulative tokens at resume_from.
  /// False for a checkpoint written before the tracker kept its budget ledger: its
  /// carried reports get their cumulative totals from samples_before and tokens_before.
  bool carried_totals_known = true;
  uint64_t last_step_samples = 0;  ///< Samples of the step that produced resume_from.
  bool evaluated = false;          ///< resume_from's version was evaluated already.
  uint64_t checkpoint_every = 0;   ///< 0 = at the end only.
  uint64_t eval_every = 0;         ///< 0 = before the first and after the last step only.
  uint64_t eval_every_samples = 0; ///< Also when the cumulative samples pass a multiple.
  bool exact_lag = false;          ///< Deterministic mode: publish v + 1 only once the
  uint32_t max_lag = 1;            ///< generation of step v + max_lag is complete.
  std::string checkpoint_dir;      ///< OUT/checkpoints.
  std::string resume_from;         ///< A checkpoint directory to restore ("" = none).
  std::string config_json;         ///< Written into every checkpoint as config.json.
  logger_ptr log;                  ///< "learner": steps (debug), checkpoints (info).
  /// Send the training prompts' features to the tracker at start (its estimator is
  /// learned); an engine without features ends the run.
  bool send_features = false;
  /// A step whose log-prob gap (train_stats::logprob_gap) passes this warns; 0 = never.
  double logprob_tolerance = 0.05;
};

/// Spawns the detached learner. At start it restores (when asked: the engine's state and
/// the steps the checkpoint carries), publishes its weights to every generator and its
/// version to the tracker, and evaluates. Groups of step t accumulate until t's report
/// arrives and every earlier step is trained; then it trains, publishes, reports the
/// step record to the metrics sink, evaluates and checkpoints when due
/// (actors/checkpoint_files.hpp). After the last step: a final evaluation, a
/// checkpoint, and (done_atom, version) to the supervisor. A failed optimizer step or a
/// checkpoint that cannot be written (a full disk: the text names the file and the
/// reason; the partial directory is removed) ends the run: (stop_atom, text) to the
/// supervisor. A checkpoint is published only once the metrics sink has flushed every
/// step up to it (save_atom). stop_atom replies with the version of the checkpoint it
/// wrote, or the error that kept it from being written. save_atom writes a checkpoint
/// between steps and training goes on (pipeline_handle::checkpoint).
learner_actor spawn_learner(caf::actor_system& sys, learner_setup setup);

}  // namespace adarl
