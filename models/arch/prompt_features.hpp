#pragma once
// The learned pass-rate estimator's features from a LibTorch policy (docs/algorithm.md
// "The learned estimator"): the final hidden state at each prompt's last token, as the
// policy computes it in prefill. Shared by the learners of every architecture.

#include <torch/torch.h>

#include <functional>
#include <vector>

#include "engines/engine.hpp"

namespace adarl {

/// Final-norm hidden states [B, T, D] of left-padded tokens [B, T] with mask [B, T].
using hidden_fn = std::function<torch::Tensor(const torch::Tensor&, const torch::Tensor&)>;

/// hidden(...)[:, -1, :] of `prompts` in batches of `batch` rows, left-padded with
/// `pad`, without gradients, as float32 rows. Torch errors are errors; nothing changes.
/// O(prompts * prefill).
result<prompt_features> last_token_features(const std::vector<std::vector<int32_t>>& prompts,
                                            const hidden_fn& hidden, torch::Device device,
                                            int64_t pad = 0, size_t batch = 64);

}  // namespace adarl
