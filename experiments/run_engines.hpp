#pragma once
// The engines of a run of the built-in transformer, shared by `adarl run` and
// `adarl compare` (adarl_experiments_torch: links LibTorch).

#include <atomic>
#include <iosfwd>
#include <string>

#include "base/result.hpp"
#include "models/hf_engines.hpp"
#include "models/torch_engines.hpp"
#include "pipelines/pipeline.hpp"

namespace adarl {

/// The base checkpoint of a transformer run: model.base_checkpoint when set, else the
/// SFT warm start cached under CACHE/sft/<sft_cache_key> (experiments/cache_dir.hpp) (trained now, with its
/// progress on `log`, when absent). Setting `stop` ends the warm start before its next
/// step with an error saying where it stopped and that it starts over next time (the
/// cache holds only complete warm starts).
result<std::string> base_checkpoint(const pipeline_config& c, std::ostream& log,
                                    const std::atomic<bool>* stop = nullptr);

/// The LibTorch generator and learner of a run, starting from `base` (the transformer),
/// or from model.path for model.kind hf (hf_factories with the run's codec). With
/// learner.replicas > 1 the learner's wait for the other ranks is watched by `join`.
engine_factories torch_factories(const pipeline_config& c, const std::string& base,
                                 const replica_join_watch& join = {});

/// A run's learner settings, the same for every kind (learner.optimizer, loss,
/// micro_batch, updates_per_step, autocast_bf16, replicas; sampling.temperature).
learner_spec learner_spec_of(const pipeline_config& c);

/// The transformer learner's config of a run (its base checkpoint unset): learner.device
/// (else model.device), the optimizer, loss and replicas (rank 0). `adarl worker learn`
/// builds its rank from the same function, so ranks of one config agree.
torch_learner_config torch_learner_of(const pipeline_config& c);

/// The HF learner's config of a run: model.path, learner.device (else model.device),
/// the optimizer, loss, replicas (rank 0) and the codec's padding. `adarl worker learn`
/// builds its rank from the same function, as torch_learner_of.
hf_learner_config hf_learner_of(const pipeline_config& c, const text_codec& codec);

/// The generator and learner of an HF checkpoint (model.path): the codec gives the end
/// ids of the decoder and the learner's padding. With learner.replicas > 1 the
/// learner's wait for the other ranks is watched by `join`.
engine_factories hf_factories(const pipeline_config& c, const text_codec& codec,
                              const replica_join_watch& join = {});

/// Checks that this LibTorch can run the config's device (model.device): "cuda:N" on a
/// CPU-only build, or a device it does not have, is an error naming the key. For the
/// validation of a config before anything starts; no-op for simulated runs.
result<bool> check_device(const pipeline_config& c);

/// The generation engine of a spec a run sent to a worker (`adarl worker generate`):
/// the simulated one, or the transformer on `device` with `threads` torch threads (its
/// weights come from the run before any order). A bad device or shape is an error.
result<std::unique_ptr<generation_engine>> engine_from_spec(const engine_spec& spec,
                                                            const std::string& device,
                                                            int32_t threads);

/// The engines of any run: the simulated ones for model.kind simulated (answers from
/// `prompts`), else the transformer's from base_checkpoint(). `join.stop` stops the
/// warm start (base_checkpoint) as well as the learner's wait for its other ranks.
result<engine_factories> run_engines(const pipeline_config& c, prompt_table_ptr prompts,
                                     std::ostream& log, const replica_join_watch& join = {});

}  // namespace adarl
