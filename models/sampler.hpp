#pragma once
// Batched sampling with a KV cache, and log-probs of given completions (LibTorch).

#include <cstdint>
#include <vector>

#include "models/transformer.hpp"

namespace adarl {

/// How completions are drawn.
struct sampling_params {
  float temperature = 1.f;      ///< Logits are divided by this (> 0).
  float top_p = 1.f;            ///< Nucleus: smallest set of tokens with mass >= top_p.
  int32_t max_new_tokens = 32;  ///< Completion length cap (also capped by max_len).
  bool greedy = false;          ///< Argmax instead of sampling (evaluation).
};

/// One completion to draw: the prompt's token ids and its random stream, a key derived
/// from (seed, step, prompt id, sample index) by the caller (algorithms/random_keys.hpp).
struct sample_job {
  std::vector<int32_t> prompt;
  uint64_t stream = 0;
};

/// A drawn completion.
struct sample_output {
  std::vector<int32_t> tokens;    ///< Completion ids, the end token included if drawn.
  std::vector<float> logprobs;    ///< log pi(token) under logits / temperature.
  bool ended = false;             ///< True when the end token was drawn.
};

/// Draws one completion per job in one batch: prompts are left-padded, prefilled once,
/// then decoded token by token with the cache until every row drew the end token or
/// reached its length cap. Token t of a job uses the uniform number keyed by
/// (stream, t), so a completion does not depend on the rest of the batch up to
/// floating-point summation order (see the determinism test). Runs under
/// InferenceMode; not thread-safe for one model. O(max_new_tokens * batch * cost).
std::vector<sample_output> sample_batch(transformer& model,
                                        const std::vector<sample_job>& jobs,
                                        const sampling_params& params);

/// Log-probs of completions under the model's current weights, recomputed in one
/// forward pass: returns [B, Cmax] float with zeros past each completion's end, and
/// `mask` [B, Cmax] (true on real completion tokens). Gradients flow unless the caller
/// disables them (the learner recomputes log-probs with grad).
torch::Tensor completion_logprobs(transformer& model,
                                  const std::vector<std::vector<int32_t>>& prompts,
                                  const std::vector<std::vector<int32_t>>& completions,
                                  float temperature, torch::Tensor& mask);

/// Index drawn from `probs` (sums to 1) by inverse CDF at `u` in [0, 1), after keeping
/// the smallest top-probability set with mass >= top_p. Pure; O(V log V).
int32_t draw_token(std::vector<float> probs, float top_p, double u);

}  // namespace adarl
