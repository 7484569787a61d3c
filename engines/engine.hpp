#pragma once
// Torch-free faces of a policy, for actors and pipelines: a continuous-batching
// generation engine and a learner engine. The LibTorch implementations live in
// models/decode/torch_generator.cpp and models/train/torch_learner.cpp; the simulated ones (no model) in engines/sim/sim_engines.cpp.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.hpp"

namespace adarl {

/// The parameters of one policy version, immutable once made. In process they travel as
/// `weights_ptr`, so every generator reads the same memory without a copy; they never
/// cross a process boundary as such (the torch snapshot has a byte form for that).
struct policy_weights {
  virtual ~policy_weights() = default;
  uint64_t version = 0;  ///< Optimizer steps the learner had taken when they were made.
  /// The weights as bytes for a generator in another process (read back by the same
  /// kind of engine's weights_from_bytes). Deterministic: equal weights, equal bytes.
  /// An error for weights that have no byte form. O(parameters).
  virtual result<std::string> to_bytes() const {
    return error{"these weights have no byte form"};
  }
};
using weights_ptr = std::shared_ptr<const policy_weights>;

/// A policy version as bytes (policy_weights::to_bytes), as a remote generator receives
/// it: its generator turns them into weights with its engine's weights_from_bytes.
struct weight_bytes {
  uint64_t version = 0;
  std::string bytes;
};
using weight_bytes_ptr = std::shared_ptr<const weight_bytes>;

/// One completion to draw.
struct generation_job {
  uint64_t ticket = 0;          ///< Caller's id, returned with the result.
  uint64_t prompt_id = 0;       ///< Stable prompt id (the simulated engine keys on it).
  std::vector<int32_t> prompt;  ///< Token ids (begin token, text, separator).
  uint64_t stream = 0;          ///< Random stream: random_keys of (seed, step, prompt, index).
  bool greedy = false;          ///< Argmax decoding (evaluation).
};

/// A drawn completion.
struct generation_result {
  uint64_t ticket = 0;
  std::vector<int32_t> tokens;    ///< Completion ids, end token included if drawn.
  std::vector<float> logprobs;    ///< Behaviour log-prob of each token.
  bool ended = false;             ///< The end token was drawn.
  uint64_t version = 0;           ///< Policy version when the row was admitted (the oldest
                                  ///< version any of its tokens used).
};

/// A generator's model: rows join and leave between decoding steps (continuous
/// batching), so a finished sequence frees its slot at once. Not thread-safe: one owner
/// (a detached generator actor).
class generation_engine {
 public:
  virtual ~generation_engine() = default;
  /// Most rows decoded together.
  virtual uint32_t capacity() const = 0;
  /// Rows in flight.
  virtual uint32_t active() const = 0;
  /// Adds a row (its prompt is prefilled now or at the next step). Precondition:
  /// active() < capacity(). A prompt that does not fit the model is finished at once
  /// with no tokens at the next step().
  virtual void admit(generation_job job) = 0;
  /// Decodes one token for every active row; appends rows that finished to `out`.
  virtual void step(std::vector<generation_result>& out) = 0;
  /// Switches to new weights between steps; rows in flight continue with them.
  /// Weights of another kind or shape are an error and leave the engine unchanged.
  virtual result<bool> load(const weights_ptr& weights) = 0;
  /// Version of the weights in use.
  virtual uint64_t version() const = 0;
  /// Weights of this engine's kind from policy_weights::to_bytes() (a remote
  /// generator's copy), tagged `version`. Malformed bytes or weights of another shape
  /// are an error; the engine is unchanged either way (load() applies them).
  virtual result<weights_ptr> weights_from_bytes(std::string_view bytes, uint64_t version) const {
    (void)bytes;
    (void)version;
    return error{"this engine takes no weights as bytes"};
  }
};

/// One sample the learner trains on.
struct train_sample {
  uint64_t prompt_id = 0;
  std::vector<int32_t> prompt;
  std::vector<int32_t> completion;
  std::vector<float> behaviour_logprobs;  ///< One per completion token.
  float advantage = 0.f;                  ///< Advantage times the prompt's weight.
  float reward = 0.f;                     ///< Raw reward (logging; the simulated engine).
  uint64_t version = 0;                   ///< Policy version that drew it.
};

/// What one optimizer step reports.
struct train_stats {
  double loss = 0;
  double grad_norm = 0;       ///< Before clipping.
  double entropy = 0;         ///< Token-mean entropy of the current policy.
  double clip_fraction = 0;
  double mean_ratio = 1;
  uint64_t samples = 0;
  uint64_t tokens = 0;        ///< Completion tokens trained on.
  /// Optimizer updates applied in the step (learner.updates_per_step mini-batches, fewer
  /// when the batch has fewer samples; 0 for an empty or non-finite step). loss,
  /// grad_norm, clip_fraction and mean_ratio are then means over the updates.
  uint32_t updates = 0;
  /// Replicated learners (models/train/replica_group.hpp): gradient bytes all-reduced by this
  /// rank in the step, and the seconds its collectives took (0 with one learner).
  uint64_t reduced_bytes = 0;
  double reduce_seconds = 0;
  /// The log-prob gap: the mean over the tokens of the first update's samples drawn by
  /// the weights the step starts from of |log p_learner - log p_behaviour| (nats per
  /// token), and how many tokens that is (0: no such sample, the gap is not measured).
  /// On-policy both sides compute the same distribution, so this is rounding unless the
  /// generator draws from another one (a server's default samplers, quantization,
  /// weights other than the learner's): docs/guides/engines.md "The log-prob check".
  double logprob_gap = 0;
  uint64_t logprob_gap_tokens = 0;
  /// Empty, or the quantity that was not finite ("loss", "gradient norm"): then the
  /// update was NOT applied (the weights are those before the step), as Megatron-LM's
  /// NaN check does; the version still advances, so the step counts as trained.
  std::string nonfinite;
};

/// Features of prompts, one row per prompt (the learned pass-rate estimator's input,
/// docs/algorithm.md "The learned estimator"). Immutable once made; travels in process only, like weights_ptr.
using prompt_features = std::vector<std::vector<float>>;
using prompt_features_ptr = std::shared_ptr<const prompt_features>;

/// A learner's model and optimizer. Not thread-safe: one owner (the learner actor).
class learner_engine {
 public:
  virtual ~learner_engine() = default;
  /// A whole step's batch: one optimizer update per mini-batch (learner.updates_per_step
  /// contiguous parts of the batch, 1 by default), each micro-batched inside as
  /// configured with the token-mean over its mini-batch. An empty batch changes nothing.
  virtual result<train_stats> train(const std::vector<train_sample>& batch) = 0;
  /// The current weights, tagged with version(). O(parameters).
  virtual weights_ptr snapshot() = 0;
  /// Optimizer steps taken.
  virtual uint64_t version() const = 0;
  /// Writes a checkpoint directory (atomically: DIR.tmp, then rename).
  virtual result<bool> save(const std::string& dir) = 0;
  /// Loads a checkpoint written by save(); the version becomes its step.
  virtual result<bool> restore(const std::string& dir) = 0;
  /// The policy's own representation of each prompt (token ids as the generators get
  /// them; `ids` its prompt ids): for the LibTorch policies the final hidden state at
  /// the prompt's last token, for the simulated one its difficulty logit plus noise.
  /// Rows of equal length. An error for an engine without one; nothing changes.
  /// O(prompts * prefill).
  virtual result<prompt_features> features(const std::vector<std::vector<int32_t>>& prompts,
                                           const std::vector<uint64_t>& ids) {
    (void)prompts;
    (void)ids;
    return error{"this policy gives no prompt features (tracker.estimator.kind learned)"};
  }
};

}  // namespace adarl
