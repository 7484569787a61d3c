#pragma once
// Building the HF model of an engine config (LibTorch). Include only from models/
// sources and torch tests.

#include <cstdint>
#include <vector>

#include "base/result.hpp"
#include "models/hf_engines.hpp"
#include "models/weights/hf_weights.hpp"
#include "models/arch/hf_model.hpp"

namespace adarl {

/// A model and where it came from.
struct hf_policy {
  hf_model model{nullptr};
  hf_source source;
};

/// The model of `c` on `device`: policy.path's architecture and weights, or config_json's
/// architecture with random weights (seeded by init_seed). A max_len outside [2,
/// max_position_embeddings] or a bad directory is an error naming it. O(parameters).
result<hf_policy> build_hf_policy(const hf_policy_config& c, const torch::Device& device);

}  // namespace adarl
