#pragma once
// `adarl model score` as a call (links LibTorch: adarl_experiments_torch): the per-token
// log-probs adarl's learner computes for completions under a Hugging Face checkpoint
// (models/decode/sampler.hpp score_completions: log-softmax of the raw logits,
// temperature 1), one row per input line, so that a program can hold adarl's numbers
// against another implementation's. The command parses its flags, calls score_lines and
// prints the rows.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "tokenizers/bpe/hf_text.hpp"

namespace adarl {

/// What to score with.
struct score_request {
  std::string dir;       ///< The Hugging Face checkpoint directory (or a run's .../hf).
  hf_text_options text;  ///< The chat format of text prompts (with `chat`).
  bool chat = false;     ///< Text prompts are user turns: through the chat format.
  std::string device = "cpu";  ///< cpu or cuda:N.
  uint32_t batch = 8;          ///< Lines per forward pass (> 0).
};

/// What was scored.
struct score_totals {
  size_t lines = 0;
  size_t tokens = 0;       ///< Completion tokens.
  double logp_sum = 0;     ///< Sum of their log-probs.
  std::string model_type;  ///< config.json's model_type.
};

/// Reads every JSONL line of `in` (called `name` in errors): {"prompt_ids",
/// "completion_ids"} (ids in [0, vocab)) or {"prompt", "completion"} (text: the prompt
/// through the chat format with `chat`, else the tokenizer with its special tokens; the
/// completion without them), then scores them `batch` at a time and calls `row` with each
/// line's completion log-probs, in input order. Every input problem is found before any
/// scoring: an error lists them by `name:line` (at most 20) and `row` is never called.
/// A bad request value, an unreadable checkpoint or an unknown device is an error naming
/// it. Blocks.
result<score_totals> score_lines(
    const score_request& request, std::istream& in, const std::string& name,
    const std::function<void(const std::vector<double>&)>& row);

}  // namespace adarl
