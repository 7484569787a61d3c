#pragma once
// Factories of the LibTorch generation and learner engines (models/engine.hpp).
// Torch-free header: pipelines build engines without including LibTorch.

#include <memory>
#include <string>

#include "algorithms/result.hpp"
#include "models/engine.hpp"
#include "models/model_config.hpp"
#include "models/train_config.hpp"

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

/// The learner's policy and optimizer.
struct torch_learner_config {
  torch_policy_config policy;
  optimizer_config optimizer;
  loss_config loss;
  float temperature = 1.f;     ///< Must match the generators' (log-probs use it).
  int32_t micro_batch = 64;    ///< Samples per forward/backward pass (accumulated).
};

/// Builds a generation engine; a bad device, shape or checkpoint is an error.
result<std::unique_ptr<generation_engine>> make_torch_generator(const torch_generator_config& c);

/// Builds a learner engine; a bad device, shape or checkpoint is an error.
result<std::unique_ptr<learner_engine>> make_torch_learner(const torch_learner_config& c);

}  // namespace adarl
