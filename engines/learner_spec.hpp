#pragma once
// What every learner is configured with, whatever its architecture (the learner.* keys of
// a pipeline config that an engine reads): one description, which each kind's learner
// config extends with its own policy (models/torch_engines.hpp, models/hf_engines.hpp).
// Torch-free.

#include <cstdint>

#include "engines/replica_config.hpp"
#include "engines/train_config.hpp"

namespace adarl {

struct learner_spec {
  optimizer_config optimizer;
  loss_config loss;
  float temperature = 1.f;       ///< Must match the generators' (log-probs use it).
  int32_t micro_batch = 64;      ///< Samples per forward/backward pass (accumulated).
  int32_t updates_per_step = 1;  ///< Optimizer updates per step (mini-batches of its batch).
  /// bfloat16 autocast of the forward and backward passes on a CUDA device (float32
  /// master weights and optimizer); ignored on the CPU.
  bool autocast_bf16 = false;
  replica_config replicas;       ///< Data-parallel replicas (1 = this learner alone).
};

}  // namespace adarl
