#pragma once
// The LibTorch kinds' engines (the built-in transformer, Hugging Face checkpoints),
// registered with pipelines/engine_registry.hpp, and the SFT warm start of a
// warm-started kind (adarl_experiments_torch: links LibTorch).

#include <atomic>
#include <iosfwd>
#include <string>

#include "base/result.hpp"
#include "engines/learner_spec.hpp"
#include "pipelines/engine_registry.hpp"

namespace adarl {

/// The base checkpoint of a warm-started kind's run: model.base_checkpoint when set, else the
/// SFT warm start cached under CACHE/sft/<sft_cache_key> (experiments/cache_dir.hpp) (trained now, with its
/// progress on `log`, when absent). Setting `stop` ends the warm start before its next
/// step with an error saying where it stopped and that it starts over next time (the
/// cache holds only complete warm starts).
result<std::string> base_checkpoint(const pipeline_config& c, std::ostream& log,
                                    const std::atomic<bool>* stop = nullptr);

/// Registers the LibTorch kinds' engines (transformer, hf) with the registry
/// (pipelines/engine_registry.hpp): their generators and learners from a run, a
/// worker's generator from an engine spec, a learner rank. Idempotent and thread-safe;
/// run_engines() calls it, and a program that asks the registry first (the adarl
/// executable, an embedding program with its own pipeline) calls it once at start.
void register_torch_engines();

/// A run's learner settings, the same for every kind (learner.optimizer, loss,
/// micro_batch, updates_per_step, autocast_bf16, replicas; sampling.temperature).
learner_spec learner_spec_of(const pipeline_config& c);

/// Checks that this LibTorch can run the config's device (model.device): "cuda:N" on a
/// CPU-only build, or a device it does not have, is an error naming the key. For the
/// validation of a config before anything starts; no-op for a kind that trains no model.
result<bool> check_device(const pipeline_config& c);

/// Checks the inference server of a run of the server kind that adarl does not start
/// itself (server.launch empty) before anything starts: it answers, speaks
/// server.dialect and samples as asked (probe_server(), waiting up to
/// server.start_timeout while it loads). An error names server.url and what it answered;
/// no-op for other kinds and for a server that adarl starts (checked when it starts).
result<bool> check_server(const pipeline_config& c);

/// The engines of any run, from the registry (LibTorch kinds registered first): a
/// warm-started kind's from base_checkpoint(). `join.stop` stops the warm start as well
/// as the learner's wait for its other ranks.
result<engine_factories> run_engines(const pipeline_config& c, prompt_table_ptr prompts,
                                     std::ostream& log, const replica_join_watch& join = {});

}  // namespace adarl
