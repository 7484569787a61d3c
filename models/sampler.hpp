#pragma once
// Batched sampling with a KV cache, and log-probs of given completions (LibTorch).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "engines/train_config.hpp"
#include "models/transformer.hpp"

namespace adarl {

/// One completion to draw: the prompt's token ids and its random stream, a key derived
/// from (seed, step, prompt id, sample index) by the caller (base/random_keys.hpp).
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

/// Most rows sample_batch decodes together; further jobs join as rows finish.
inline constexpr size_t sample_batch_max_rows = 256;

/// Draws one completion per job with the continuous-batching decoder (models/decoder.hpp):
/// prompts are prefilled together, then decoded token by token until each row drew the
/// end token or reached its cap, min(max_new_tokens, max_len - its prompt length).
/// Token t of a job uses the uniform number keyed by (stream, t), so a completion does
/// not depend on the rest of the batch up to floating-point summation order (see the
/// determinism test). Runs under InferenceMode; not thread-safe for one model.
/// O(max_new_tokens * batch * cost).
std::vector<sample_output> sample_batch(transformer& model,
                                        const std::vector<sample_job>& jobs,
                                        const sampling_params& params);

/// sample_batch for any policy_model (models/policy_model.hpp), e.g. the HF model: a
/// row ends when it draws one of `end_ids`.
std::vector<sample_output> sample_batch(std::shared_ptr<policy_model> model,
                                        const std::vector<int32_t>& end_ids,
                                        const std::vector<sample_job>& jobs,
                                        const sampling_params& params);

/// Log-probs of completions under the model's current weights, recomputed in one
/// forward pass: returns [B, Cmax] float with zeros past each completion's end, and
/// `mask` [B, Cmax] (true on real completion tokens). Gradients flow unless the caller
/// disables them (the learner recomputes log-probs with grad). score_completions()
/// without the logits (models/logprobs.cpp).
torch::Tensor completion_logprobs(policy_model& model,
                                  const std::vector<std::vector<int32_t>>& prompts,
                                  const std::vector<std::vector<int32_t>>& completions,
                                  float temperature, torch::Tensor& mask, int64_t pad = 0);

/// What the learner needs of completions under the current weights, from one forward
/// pass (models/logprobs.cpp).
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

/// Index drawn from `probs` (sums to 1) by inverse CDF at `u` in [0, 1), after keeping
/// the smallest top-probability set with mass >= top_p. Pure; O(V log V).
int32_t draw_token(std::vector<float> probs, float top_p, double u);

/// draw_token for the decoding loop: the same index for the same probabilities, top_p
/// and u, but it keeps its buffers between calls and sorts plain floats instead of
/// indices (ties are resolved in id order as draw_token's stable sort does).
/// One per thread; O(V log V) without allocation once warm.
class token_drawer {
 public:
  /// Draws from probabilities exp(logp[0..v)) and returns the token id.
  int32_t draw(const float* logp, int32_t v, float top_p, double u);

 private:
  std::vector<float> probs_, sorted_;
  std::vector<uint32_t> keys_, spare_;  ///< Radix sort buffers (large vocabularies).
};

}  // namespace adarl
