#pragma once
// Batched sampling with a KV cache (LibTorch); the log-probs of given completions are in
// models/arch/logprobs.hpp.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "engines/train_config.hpp"
#include "models/arch/logprobs.hpp"
#include "models/arch/transformer.hpp"

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

/// Draws one completion per job with the continuous-batching decoder (models/decode/decoder.hpp):
/// prompts are prefilled together, then decoded token by token until each row drew the
/// end token or reached its cap, min(max_new_tokens, max_len - its prompt length).
/// Token t of a job uses the uniform number keyed by (stream, t), so a completion does
/// not depend on the rest of the batch up to floating-point summation order (see the
/// determinism test). Runs under InferenceMode; not thread-safe for one model.
/// O(max_new_tokens * batch * cost).
std::vector<sample_output> sample_batch(transformer& model,
                                        const std::vector<sample_job>& jobs,
                                        const sampling_params& params);

/// sample_batch for any policy_model (models/arch/policy_model.hpp), e.g. the HF model: a
/// row ends when it draws one of `end_ids`.
std::vector<sample_output> sample_batch(std::shared_ptr<policy_model> model,
                                        const std::vector<int32_t>& end_ids,
                                        const std::vector<sample_job>& jobs,
                                        const sampling_params& params);

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
