#pragma once
// A pipeline running in the caller's actor system (a program that embeds adarl): the
// actors are spawned into the caller's `caf::actor_system`, with the caller's parts
// (engines, verifiers, observer) where given and adarl's own otherwise. run_pipeline()
// is this with an actor system of its own.

#include <caf/fwd.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "actors/prompt_table.hpp"
#include "base/result.hpp"
#include "messages/interfaces.hpp"
#include "pipelines/pipeline.hpp"
#include "pipelines/pipeline_config.hpp"
#include "tasks/verifier_registry.hpp"

namespace adarl {

/// What a verifier actor factory is given for the verifier it makes.
struct verifier_context {
  caf::actor_system* sys = nullptr;  ///< The pipeline's (the caller's) actor system.
  uint32_t index = 0;                ///< 0 .. actors.verifiers - 1.
  prompt_table_ptr prompts;          ///< The run's prompts (codec: prompts->codec).
  /// Where scored completions go: (scored_atom, completions, credit, generator), the
  /// credit and generator exactly as the verify message brought them.
  result_sink_actor tracker;
  std::shared_ptr<const verifier_registry> registry;  ///< The run's named verifiers.
};

/// Makes one verifier actor of a run (extension point). The actor implements
/// verifier_actor (messages/interfaces.hpp): for each (verify_atom, completions, n, g) it
/// sets every completion's reward (and a reason when it is 0) and sends (scored_atom,
/// completions, n, g) to `tracker`, exactly once per batch, in any order across batches.
/// A completion must never be dropped (the tracker would re-issue it after
/// tracker.lease_seconds) and nothing may be thrown across the actor boundary; it should
/// not block the scheduler for long (spawn it detached when scoring is slow). An error
/// ends the start of the run. Called on the caller's thread, once per verifier.
using verifier_factory = std::function<result<verifier_actor>(const verifier_context&)>;

/// The caller's parts of a pipeline; an unset member means adarl's own.
struct pipeline_components {
  /// The engines (engines/engine.hpp). Unset: those of the registry
  /// (pipelines/engine_registry.hpp): the simulated ones built in, the LibTorch ones once
  /// register_torch_engines() has run (they are not part of libadarl).
  engine_factories engines;
  /// The named verifiers task items refer to (task_item::verifier). Unset: the built-in
  /// ones (verifier_registry::with_builtins); add yours to that with add().
  std::shared_ptr<const verifier_registry> verifiers;
  /// Verifier actors in place of adarl's (actors.verifiers of them). Unset: adarl's
  /// detached verifiers, scoring with `verifiers`.
  verifier_factory verifier_actors;
};

/// A running pipeline. Its actors live in the caller's actor system, which must outlive
/// the handle. Destroying the handle before wait() returned stops the run (stop(), then
/// wait()).
class pipeline_handle {
 public:
  struct impl;
  explicit pipeline_handle(std::unique_ptr<impl> state);
  ~pipeline_handle();
  pipeline_handle(const pipeline_handle&) = delete;
  pipeline_handle& operator=(const pipeline_handle&) = delete;

  /// Blocks until the run ends: its last step, stop() (or run_options::stop), or a fatal
  /// problem (the errors of run_pipeline). Supervises the run while it waits (warnings,
  /// the stall watchdog, the observer's tracker figures): call it from one thread; once
  /// it returned, later calls return the same outcome.
  result<run_outcome> wait();
  /// Asks the run to stop: the learner finishes its step and writes a checkpoint, then
  /// wait() returns with `interrupted`. Thread-safe; returns at once.
  void stop();
  /// Writes a checkpoint of the last trained step now (OUT/checkpoints/step-V) while the
  /// run goes on; returns its directory. Blocks until written or `timeout` (the learner
  /// answers between optimizer steps). An error when the learner is gone, the run is
  /// ending or the write failed. Thread-safe.
  result<std::string> checkpoint(std::chrono::seconds timeout = std::chrono::seconds(600));

  /// The run's actors, for a program that talks to them directly.
  tracker_actor tracker() const;
  learner_actor learner() const;
  metrics_actor metrics() const;

 private:
  std::unique_ptr<impl> impl_;
};

/// Spawns a pipeline into `sys` and starts it; returns at once (wait() for its end).
/// `sys` should have at least two scheduler threads (generators, verifiers and the
/// learner are detached and take none). Errors: an unreadable resume checkpoint, an
/// output directory that cannot be made, a missing engine, a failing verifier factory or
/// cluster part; nothing is left running then.
result<std::unique_ptr<pipeline_handle>> start_pipeline(caf::actor_system& sys,
                                                        const pipeline_config& config,
                                                        prompt_table_ptr prompts,
                                                        pipeline_components components,
                                                        run_options options);

}  // namespace adarl
