#pragma once
// Continuous-batching decoder over a preallocated slot KV cache (LibTorch).

#include <cstdint>
#include <memory>
#include <vector>

#include "engines/train_config.hpp"
#include "models/decode/sampler.hpp"
#include "models/arch/transformer.hpp"

namespace adarl {

/// A row that finished decoding; its slot was freed when step() returned it.
struct decoded_row {
  uint32_t slot = 0;              ///< The slot admit() returned for it.
  std::vector<int32_t> tokens;    ///< Completion ids, the end token included if drawn.
  std::vector<float> logprobs;    ///< log pi(token) under logits / temperature.
  bool ended = false;             ///< True when an end token was drawn.
};

/// Decodes many rows together, each in its own slot of a preallocated KV cache
/// (per layer [capacity, heads, max_len, head_dim]) with its own length, so rows join
/// and leave between steps. Token t of a row is drawn with keyed_uniform(stream, t, 0, 0)
/// exactly as sample_batch does, so a row's tokens do not depend on when it was admitted
/// or on the other rows (up to floating-point summation order).
/// A row draws at most min(max_new_tokens, max_len - prompt length) tokens.
/// Shares the model (later weight changes apply to rows in flight). Runs under
/// InferenceMode; not thread-safe: one owner. Memory: O(capacity * max_len * d_model).
class decoder {
 public:
  /// A decoder of `capacity` slots (> 0) sampling with `params` (params.greedy is the
  /// default of admit()'s flag only through the caller).
  decoder(transformer model, uint32_t capacity, const sampling_params& params);
  /// A decoder over any policy_model; a row ends when it draws one of
  /// `end_ids` (not empty; the character tokenizer's is {tokenizer::eos}).
  decoder(std::shared_ptr<policy_model> model, uint32_t capacity,
          const sampling_params& params, std::vector<int32_t> end_ids);

  /// Most rows decoded together.
  uint32_t capacity() const { return uint32_t(slots_.size()); }
  /// Rows admitted and not yet returned.
  uint32_t active() const { return active_; }

  /// Puts a row in the lowest free slot and returns that slot. Its prompt is prefilled
  /// at the next step(), in one batch with the other rows admitted since. An empty
  /// prompt or one with no room under max_len finishes at the next step() with no
  /// tokens. Precondition: active() < capacity() (else throws std::logic_error). O(1).
  uint32_t admit(std::vector<int32_t> prompt, uint64_t stream, bool greedy);

  /// Draws one token for every active row (prefilling new ones in the same pass) and
  /// appends the rows that finished (end token, max_new_tokens or max_len) to `finished`,
  /// running rows in slot order, then new ones in slot order; their slots are free on
  /// return. Cost: one forward over the active rows' newest tokens and the new rows'
  /// prompts packed together (free slots cost nothing), each attending to its own
  /// keys; tokens are drawn in parallel on torch's threads.
  void step(std::vector<decoded_row>& finished);

 private:
  struct slot {
    bool used = false;
    bool prefilled = false;
    bool greedy = false;
    uint64_t stream = 0;
    int32_t limit = 0;            ///< Tokens it may draw.
    int64_t position = 0;         ///< Position of its last drawn token (fed next step).
    std::vector<int32_t> prompt;
    decoded_row row;
  };

  // The flat batch of one step: each token's id and (slot, position), and for each
  // row that draws, its slot and the index of the token whose logits it draws from.
  struct batch {
    std::vector<int64_t> tokens, slots, positions, wanted;
    std::vector<uint32_t> rows;
  };
  batch gather() const;
  // Draws the next token of slot s from its log-probs row; true when it finished.
  // Touches only s: rows draw in parallel.
  bool draw(slot& s, const float* logp, int32_t v) const;
  void finish(slot& s, std::vector<decoded_row>& finished);

  std::shared_ptr<policy_model> model_;
  std::vector<int32_t> end_ids_;  ///< Drawing one of these ends a row.
  sampling_params params_;
  torch::Device device_;
  slot_cache cache_;
  std::vector<slot> slots_;
  uint32_t active_ = 0;  ///< Invariant: the number of slots with used == true.
};

}  // namespace adarl
