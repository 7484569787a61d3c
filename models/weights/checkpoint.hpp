#pragma once
// Checkpoints: model, optimizer, step, tokenizer and model config in one directory.

#include <cstdint>
#include <string>

#include "base/result.hpp"
#include "engines/model_config.hpp"
#include "models/train/optimizer.hpp"

namespace adarl {

/// What a checkpoint records besides tensors.
struct checkpoint_meta {
  int64_t step = 0;         ///< Learner steps done (the policy version).
  model_config config;      ///< Shape of the saved model.
  std::string charset;      ///< Tokenizer vocabulary (tokenizers/tokenizer.hpp).
};

/// Writes DIR/meta.json, DIR/model.bin (weight_snapshot bytes) and, when `opt` is
/// given, DIR/optimizer.safetensors (policy_optimizer::save_state; DIR/optimizer.pt of
/// older checkpoints is still read). Writes into DIR.tmp first and renames, so a crash never
/// leaves a half-written DIR. Every write, flush and rename is checked: an error (a full
/// disk, a file size limit) names the file and the reason, DIR is left as it was and
/// DIR.tmp is removed. I/O errors are returned, never thrown.
result<bool> save_checkpoint(const std::string& dir, transformer& model,
                             policy_optimizer* opt, const checkpoint_meta& meta);

/// Reads DIR/meta.json only (to build a model of the right shape before loading).
result<checkpoint_meta> read_checkpoint_meta(const std::string& dir);

/// Loads a checkpoint into `model` (and `opt` when given and saved). A checkpoint of
/// another shape than the model's is refused with both shapes named; a truncated or
/// corrupt file is an error naming it, and the model is left unchanged.
result<checkpoint_meta> load_checkpoint(const std::string& dir, transformer& model,
                                        policy_optimizer* opt);

}  // namespace adarl
