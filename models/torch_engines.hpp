#pragma once
// Factories of the LibTorch generation and learner engines (engines/engine.hpp).
// Torch-free header: pipelines build engines without including LibTorch.

#include <atomic>
#include <functional>
#include <memory>
#include <string>

#include "base/result.hpp"
#include "engines/engine.hpp"
#include "engines/learner_spec.hpp"
#include "engines/model_config.hpp"
#include "engines/replica_config.hpp"
#include "engines/replica_join_watch.hpp"
#include "engines/train_config.hpp"

namespace adarl {

/// What both engines need to build the policy.
struct torch_policy_config {
  model_config model;          ///< Shape; vocab_size from the tokenizer.
  std::string charset;         ///< Tokenizer charset (saved with checkpoints).
  std::string device = "cpu";  ///< "cpu" or "cuda:N" (models/device.hpp).
  int32_t threads = 1;         ///< Torch intra-op threads of the owning thread.
  std::string init_checkpoint; ///< Start from this checkpoint directory ("" = random init).
  uint64_t init_seed = 1;      ///< Seed of the random init (when no checkpoint).
};

/// A generator's policy replica.
struct torch_generator_config {
  torch_policy_config policy;
  uint32_t capacity = 64;      ///< Rows decoded together (continuous batching slots).
  sampling_params sampling;    ///< `greedy` per job overrides sampling.greedy.
};

/// The learner: its settings (engines/learner_spec.hpp) and its policy.
using torch_learner_config = learner_config<torch_policy_config>;

/// Builds a generation engine; a bad device, shape or checkpoint is an error.
result<std::unique_ptr<generation_engine>> make_torch_generator(const torch_generator_config& c);

/// Builds a learner engine; a bad device, shape or checkpoint is an error. With
/// c.replicas.replicas > 1 it is rank 0 of a replicated learner (c.replicas.rank must be
/// 0): it hosts the store, blocks until every rank has joined (up to join_timeout; a
/// rank missing or running another config is an error naming it; `watch` hears which
/// ranks it waits for, and its stop flag ends the wait at once), then hands the others
/// its weights and optimizer state; it does so again after restore(). Each
/// train() hands the batch to the others, trains its share of it and all-reduces the
/// gradients; a rank that dies or hangs (collective_timeout) makes train() an error
/// naming it, with the weights of the last completed step. Its destructor tells the
/// other ranks that the run ended.
result<std::unique_ptr<learner_engine>> make_torch_learner(const torch_learner_config& c,
                                                          const replica_join_watch& watch = {});

/// Rank c.replicas.rank (> 0) of a replicated learner (`adarl worker learn`): builds the
/// model, joins rank 0's store, takes rank 0's weights and optimizer state, then trains
/// its share of every step rank 0 hands it, in lockstep with the others. Blocks; returns
/// the version reached when rank 0 ends the run. Errors: refused at join (as
/// make_torch_learner), rank 0 gone or a collective failed (naming the step), `stop`
/// (also while it waits for rank 0 to come up or to let it join).
result<uint64_t> serve_learner_replica(const torch_learner_config& c,
                                       const std::atomic<bool>* stop,
                                       const replica_step_observer& on_step = {});

/// The learner's config as sorted key=value lines, what ranks compare when they join:
/// shape, tokenizer, optimizer, loss, temperature, micro-batch, replicas, backend
/// (from the device) and the per-step check. Device index, threads, init and timeouts
/// may differ between ranks.
std::string learner_config_text(const torch_learner_config& c);

}  // namespace adarl
