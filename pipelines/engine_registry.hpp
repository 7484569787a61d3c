#pragma once
// The registry of engines: for each kind of policy (engines/engine_kind.hpp), what builds
// a run's generator and learner, a worker's generator from an engine spec, and a learner
// rank. A run, a compare arm, a prompt selection and the workers all ask here; none of
// them branches on the kind. The simulated kind is built in; the LibTorch kinds are
// registered by register_torch_engines() (experiments/run_engines.hpp), which the adarl
// executable calls first (a static library's self-registering initialisers would be
// dropped by the linker). A new kind is its own folder and one register_engines().
// CAF-free and torch-free.

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "actors/prompt_table.hpp"
#include "base/result.hpp"
#include "engines/engine.hpp"
#include "engines/engine_spec.hpp"
#include "engines/replica_join_watch.hpp"
#include "pipelines/pipeline.hpp"
#include "pipelines/pipeline_config.hpp"

namespace adarl {

/// What a run asks a kind for.
struct engine_request {
  const pipeline_config* config = nullptr;
  /// The run's prompts (the simulated world's answers, the text codec's end and pad
  /// ids); null where a kind can build its engines without them (not the simulated one).
  prompt_table_ptr prompts;
  std::string base;                ///< A warm-started kind's base checkpoint.
  replica_join_watch join;         ///< The learner's wait for its other ranks.
  /// Where an engine's warnings go (the run's log); unset = nowhere. Thread-safe.
  std::function<void(const std::string&)> warn;
};

/// What builds a kind's engines. An unset hook is an error naming the kind and what it
/// lacks.
struct engine_hooks {
  /// The generator and learner of a run.
  std::function<result<engine_factories>(const engine_request&)> engines;
  /// The generation engine of a spec a run sent to a worker (`adarl worker generate`),
  /// on `device` with `threads` threads (its weights come from the run before any order).
  std::function<result<std::unique_ptr<generation_engine>>(
      const engine_spec&, const std::string& device, int32_t threads)>
      generator;
  /// Rank `rank` (> 0) of the run's replicated learner (`adarl worker learn`), built as
  /// rank 0 builds its own, until rank 0 ends the run; the version it ended at.
  std::function<result<uint64_t>(const pipeline_config&, uint32_t rank, int32_t threads,
                                 const std::atomic<bool>* stop)>
      learner_rank;
};

/// Registers (or replaces) the hooks of `kind`. Thread-safe; meant for start-up.
void register_engines(policy_kind kind, engine_hooks hooks);

/// The engines of a run of any kind (request.config's model.kind).
result<engine_factories> engines_for(const engine_request& request);

/// A worker's generation engine from the spec a run sent it.
result<std::unique_ptr<generation_engine>> generator_for_spec(const engine_spec& spec,
                                                              const std::string& device,
                                                              int32_t threads);

/// Whether a kind's learner can have ranks > 0: an error naming the kind when it has no
/// learner to replicate (the simulated kind). What `adarl worker learn` checks first.
result<bool> check_replicable(policy_kind kind);

/// Rank `rank` of c's learner until rank 0 ends the run (`adarl worker learn`); a kind
/// check_replicable refuses is that error.
result<uint64_t> serve_learner_rank(const pipeline_config& c, uint32_t rank, int32_t threads,
                                    const std::atomic<bool>* stop);

/// The generation engine of a run as data, for generators here and on other machines:
/// the transformer's shape and tokenizer, the HF config.json and end ids, or the
/// simulated world; with the run's sampling and capacity.
engine_spec run_engine_spec(const pipeline_config& config, const prompt_table& prompts);

/// What identifies the policy of a kind that has no base checkpoint (the HF directory,
/// the simulated world's logits); "" for a warm-started kind (its checkpoint's bytes
/// identify it). Part of the prompt selection's cache key.
std::string policy_fingerprint(const policy_section& policy);

}  // namespace adarl
