#pragma once
// Building the HF model of an engine config, and the learner's log-probs of completions
// under it (LibTorch). Include only from models/ sources and torch tests.

#include <cstdint>
#include <vector>

#include "base/result.hpp"
#include "models/hf_engines.hpp"
#include "models/hf_weights.hpp"
#include "models/sampler.hpp"

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

/// score_completions (models/sampler.hpp) for the HF model: rows left-padded with `pad`,
/// the output projection applied only at the positions that predict completion tokens
/// (a vocabulary of 150k makes the full [B, T, V] logits the largest tensor of a step).
/// Log-probs agree with the decoder's (same positions and weights) within 1e-4.
completion_scores score_hf_completions(hf_model& model,
                                       const std::vector<std::vector<int32_t>>& prompts,
                                       const std::vector<std::vector<int32_t>>& completions,
                                       float temperature, int64_t pad);

}  // namespace adarl
