#pragma once
// What every policy architecture gives the shared decoder and learner code (LibTorch):
// the built-in transformer (models/arch/transformer.hpp) and the Hugging Face decoder
// (models/arch/hf_model.hpp) implement it. Include only from models/ sources and torch tests.

#include <torch/torch.h>

#include <cstdint>
#include <vector>

namespace adarl {

/// Preallocated keys and values of a continuous-batching decoder: one slot per row,
/// each with its own length (the caller tracks it). Positions past a slot's length hold
/// stale but finite values that attention masks out.
struct slot_cache {
  std::vector<torch::Tensor> k;  ///< Per layer: [capacity, heads, max_len, head_dim].
  std::vector<torch::Tensor> v;
};

/// A policy model: the decoder's slot passes (models/decode/decoder.hpp) and the learner's
/// scoring of completions (score_completions, models/arch/logprobs.hpp) over one interface, so
/// that both serve every architecture. Not thread-safe: one owner calls it.
class policy_model {
 public:
  virtual ~policy_model() = default;
  /// Longest sequence (prompt + completion) a slot holds.
  virtual int64_t context_length() const = 0;
  /// Token ids are in [0, vocab_size()).
  virtual int64_t vocab_size() const = 0;
  /// Where the model's parameters live.
  virtual torch::Device device() const = 0;
  /// A zeroed slot cache of `capacity` rows of context_length() positions.
  virtual slot_cache make_slot_cache(int64_t capacity) = 0;
  /// One decoding pass of continuous batching: tokens, slots and positions [N] int64
  /// give each token's id and its (slot, position) in `cache`; writes every token's keys
  /// and values, attends each to its slot's keys [0, position], and returns the logits
  /// [W, V] of the tokens at indices `wanted` [W] int64. `invariant`: a token's logits
  /// do not depend on the other tokens of the pass (models/arch/invariant_linear.hpp).
  virtual torch::Tensor decode_slots(const torch::Tensor& tokens, const torch::Tensor& slots,
                                     const torch::Tensor& positions, const torch::Tensor& wanted,
                                     slot_cache& cache, bool invariant) = 0;
  /// Final-norm hidden states [B, T, D] of left-padded tokens [B, T] int64 with mask
  /// [B, T] bool (causal; each row's positions count its real tokens from 0).
  virtual torch::Tensor hidden(const torch::Tensor& tokens, const torch::Tensor& mask) = 0;
  /// Logits [..., V] of final-norm hidden states [..., D] (the output projection).
  virtual torch::Tensor logits(const torch::Tensor& hidden, bool invariant) = 0;
};

}  // namespace adarl
