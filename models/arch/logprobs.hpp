#pragma once
// Log-probs of given completions under a policy_model's current weights, from one
// forward pass, for every architecture: what the learner trains on and the tests check
// the decoder against (LibTorch).

#include <torch/torch.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "models/arch/policy_model.hpp"

namespace adarl {

/// Log-probs of completions under the model's current weights, recomputed in one
/// forward pass: returns [B, Cmax] float with zeros past each completion's end, and
/// `mask` [B, Cmax] (true on real completion tokens). Gradients flow unless the caller
/// disables them (the learner recomputes log-probs with grad). score_completions()
/// without the logits (models/arch/logprobs.cpp).
torch::Tensor completion_logprobs(policy_model& model,
                                  const std::vector<std::vector<int32_t>>& prompts,
                                  const std::vector<std::vector<int32_t>>& completions,
                                  float temperature, torch::Tensor& mask, int64_t pad = 0);

/// What the learner needs of completions under the current weights, from one forward
/// pass (models/arch/logprobs.cpp).
struct completion_scores {
  torch::Tensor logp;    ///< [B, Cmax] float log-probs, zeros past each end; grad flows
                         ///< unless the caller disables it.
  torch::Tensor logits;  ///< [B, Cmax, V] logits / temperature that predicted each
                         ///< completion token (detached: for entropy logging).
  torch::Tensor mask;    ///< [B, Cmax] bool: true on real completion tokens.
};

/// completion_logprobs plus the tempered logits behind each log-prob, so the learner
/// logs the entropy without a second forward pass, for every architecture: rows
/// left-padded with `pad` (the codec's pad id), the output projection applied only at
/// the positions that predict completion tokens (with a vocabulary of 150k the full
/// [B, T, V] logits would be the largest tensor of a step), logits in float32 (under
/// bf16 autocast too). The log-probs agree with the decoder's (same positions and
/// weights) within 1e-4; not thread-safe for one model.
/// O(B * (prompt + completion) * cost).
completion_scores score_completions(policy_model& model,
                                    const std::vector<std::vector<int32_t>>& prompts,
                                    const std::vector<std::vector<int32_t>>& completions,
                                    float temperature, int64_t pad = 0);

/// Left-pads token rows to a common length (at least 1): tokens [B, L] int64 (`pad`, the
/// codec's pad id; masked out, so it only has to be in the vocabulary) and mask [B, L]
/// bool, true on real tokens. The one padding of the sampler and the learner, so that
/// positions and log-probs agree between them. O(B * L).
std::pair<torch::Tensor, torch::Tensor> left_pad(const std::vector<std::vector<int32_t>>& rows,
                                                 int64_t pad = 0);

}  // namespace adarl
