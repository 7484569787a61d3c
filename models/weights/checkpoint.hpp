#pragma once
// Checkpoints: model, optimizer, step, tokenizer and model config in one directory.

#include <cstdint>
#include <string>

#include "base/result.hpp"
#include "engines/model_config.hpp"
#include "models/arch/transformer.hpp"
#include "models/weights/optimizer_state.hpp"

namespace adarl {

/// What a checkpoint records besides tensors.
struct checkpoint_meta {
  int64_t step = 0;         ///< Learner steps done (the policy version).
  model_config config;      ///< Shape of the saved model.
  std::string charset;      ///< Tokenizer vocabulary (tokenizers/tokenizer.hpp).
  /// base/content_hash.hpp of model.bin, set by save_checkpoint; empty in checkpoints
  /// written before 0.3 (then loading cannot check the bytes).
  std::string model_hash;
};

/// Writes DIR/meta.json, DIR/model.bin (weight_snapshot bytes) and, when `opt` is
/// given, DIR/optimizer.safetensors (policy_optimizer::save_state; DIR/optimizer.pt of
/// older checkpoints is still read). meta.json records model.bin's content hash. Writes
/// into DIR.tmp.PID first (base/atomic_file.hpp staging_path: two processes writing one DIR
/// never share it) and renames, so a crash never leaves a half-written DIR. Every write,
/// flush and rename is checked: an error (a full disk, a file size limit) names the file
/// and the reason, DIR is left as it was and the staging directory is removed. I/O errors
/// are returned, never thrown.
result<bool> save_checkpoint(const std::string& dir, transformer& model,
                             optimizer_state* opt, const checkpoint_meta& meta);

/// Reads DIR/meta.json only (to build a model of the right shape before loading).
result<checkpoint_meta> read_checkpoint_meta(const std::string& dir);

/// Reads DIR/meta.json and checks model.bin against its content hash: an error names
/// the file when it is missing, damaged (even at the same size) or has no recorded hash.
/// What a cache hit must pass (experiments/run_engines.cpp). O(model.bin).
result<checkpoint_meta> verify_checkpoint(const std::string& dir);

/// Loads a checkpoint into `model` (and `opt` when given and saved). A checkpoint of
/// another shape than the model's is refused with both shapes named; a truncated or
/// corrupt file, or one whose content differs from its recorded hash, is an error naming
/// it, and the model is left unchanged.
result<checkpoint_meta> load_checkpoint(const std::string& dir, transformer& model,
                                        optimizer_state* opt);

}  // namespace adarl
