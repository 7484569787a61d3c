#pragma once
// What every learner is configured with, whatever its architecture (the learner.* keys of
// a pipeline config that an engine reads), and the one learner config type: these
// settings and the policy of its kind (learner_config<torch_policy_config> in
// models/torch_engines.hpp, learner_config<hf_policy_config> in models/hf_engines.hpp).
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
  int32_t pad_id = 0;            ///< Padding id of its batches (text_codec::pad_id()).
};

/// A learner's config: the settings every kind shares and its kind's policy (what builds
/// the model: shape or checkpoint, device, threads). Kinds differ only in `Policy`.
template <class Policy>
struct learner_config : learner_spec {
  Policy policy;
};

}  // namespace adarl
