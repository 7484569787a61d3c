#pragma once
// The generator actor: a policy replica decoding continuously (detached: own thread).

#include <caf/fwd.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "actors/log.hpp"
#include "actors/prompt_table.hpp"
#include "messages/interfaces.hpp"

namespace adarl {

/// Builds a generator's engine on the generator's own thread (torch thread settings are
/// per thread). An error stops that generator; the tracker re-issues its lost work.
using generation_engine_factory =
    std::function<result<std::unique_ptr<generation_engine>>()>;

/// What a generator is spawned with.
struct generator_setup {
  uint32_t index = 0;                     ///< Its number (metrics).
  generation_engine_factory make_engine;
  prompt_table_ptr prompts;
  work_source_actor tracker;  ///< Where credit goes.
  std::vector<verifier_actor> verifiers;  ///< Completions go round-robin to these.
  metrics_actor metrics;
  caf::actor supervisor;                  ///< Told (error string) if the engine fails.
  /// Prompt tokens by prompt id when the prompts are not all known up front (a remote
  /// generator learns them with its orders); unset = prompts->rows[id].tokens. Null for
  /// an unknown id (the row finishes empty). Called on the generator's thread.
  std::function<std::shared_ptr<const std::vector<int32_t>>(uint64_t)> prompt_tokens;
  uint32_t prefetch = 0;                  ///< Orders queued beyond capacity; 0 = capacity.
  /// The engine starts without the run's weights (a remote worker's, built from a spec):
  /// nothing is admitted until the first version arrives and is loaded.
  bool wait_for_weights = false;
  double load_report_seconds = 0.1;       ///< Busy-time report period.
  logger_ptr log;                         ///< "generator N"; unset = stderr.
};

/// Spawns a detached generator. It announces capacity + prefetch credits, admits orders
/// into free engine slots, runs one decoding step per decode message (so new orders and
/// weights are taken between steps), sends finished completions to a verifier and one
/// credit back to the tracker per finished row.
generator_actor spawn_generator(caf::actor_system& sys, generator_setup setup);

}  // namespace adarl
