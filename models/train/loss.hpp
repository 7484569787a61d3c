#pragma once
// The learner's objective (docs/algorithm.md "Asynchrony and the loss"), in LibTorch.

#include <torch/torch.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "engines/engine.hpp"
#include "engines/train_config.hpp"

namespace adarl {

/// One batch of completions, token-aligned: [B, T] tensors and per-sample advantages.
struct loss_batch {
  torch::Tensor logp;        ///< Log-probs under the current weights (with grad).
  torch::Tensor old_logp;    ///< Behaviour log-probs from the generator (no grad).
  torch::Tensor advantages;  ///< [B]: advantage * per-prompt weight, per sample.
  torch::Tensor mask;        ///< [B, T] bool: real completion tokens.
};

/// The loss and what to log about it.
struct loss_result {
  torch::Tensor loss;         ///< Scalar: token-mean of the clipped surrogate.
  double clip_fraction = 0;   ///< Share of tokens where the clipped branch was taken.
  double mean_ratio = 0;      ///< Token-mean of the importance ratio.
};

/// Samples [begin, end) of a learner batch, ready for scoring and the loss: their
/// prompts and completions, the behaviour log-probs [n, longest completion] (zeros past
/// each completion) and the advantages [n], on the CPU.
struct micro_batch {
  std::vector<std::vector<int32_t>> prompts, completions;
  torch::Tensor old_logp;
  torch::Tensor advantages;
};
micro_batch gather_micro_batch(const std::vector<const train_sample*>& samples, size_t begin,
                               size_t end);

/// Problems of batch sample `i` that would otherwise surface as an opaque torch error
/// (or silently wrong gradients): behaviour log-probs that do not match the completion,
/// an empty prompt, more tokens than the model's context (model.max_len), a token id
/// outside [0, vocab). "" when it can be trained on. Every learner checks with it.
std::string train_sample_problem(const train_sample& s, size_t i, int64_t vocab,
                                 int64_t max_len);

/// PPO-style clipped surrogate with clip-higher and dual clip, aggregated as a
/// token-mean over the whole batch: ratio = exp(clamp(logp - old_logp)); per token
/// l = max(-A r, -A clip(r, 1 - low, 1 + high)), and for A < 0, min(l, -A c). With
/// logp == old_logp (ratio 1) its gradient is REINFORCE's, -A grad logp / tokens.
loss_result clipped_surrogate(const loss_batch& b, const loss_config& c);

/// The same surrogate for one micro-batch `b` of a larger batch: the per-token losses
/// are summed and divided by `batch_tokens`, the real-token count of the WHOLE batch,
/// and so are the clipped-token count and the ratio sum. The micro-batches' losses
/// (hence their gradients), clip fractions and mean ratios then add up to the whole
/// batch's token-mean values, whatever the split. clipped_surrogate(b, c) is this with
/// batch_tokens = b's own count. Precondition: batch_tokens > 0.
loss_result clipped_surrogate_part(const loss_batch& b, const loss_config& c,
                                   double batch_tokens);

/// Mean per-token entropy of the distributions `logits` [B, T, V] where `mask` is
/// true, for logging (no grad).
double mean_entropy(const torch::Tensor& logits, const torch::Tensor& mask);

}  // namespace adarl
