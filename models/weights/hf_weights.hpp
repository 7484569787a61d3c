#pragma once
// Hugging Face checkpoints in and out of the LibTorch HF model (models/arch/hf_model.hpp):
// weights from safetensors (one file or shards), the model written back as a directory
// that transformers and vLLM open unchanged, the learner's checkpoints (that directory
// plus optimizer state and meta.json). Snapshots are models/weights/snapshot.hpp's, as for every
// architecture.
// Include only from models/ sources and torch tests.

#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "base/result.hpp"
#include "formats/tensor_dtype.hpp"
#include "models/arch/hf_model.hpp"
#include "models/weights/optimizer_state.hpp"

namespace adarl {

/// Where an HF model came from, and so how it is written back.
struct hf_source {
  std::string dir;          ///< Its config.json and tokenizer files are copied from here.
  std::string config_json;  ///< config.json's text, written back unchanged.
  tensor_dtype dtype = tensor_dtype::f32;  ///< Of its weights; written back in it.
};

/// config.json of DIR, parsed and as text. Errors name the file and key.
result<std::pair<hf_config, hf_source>> read_hf_source(const std::string& dir);

/// Copies DIR's weights into `model` (float32, on the model's device) from
/// DIR/model.safetensors or its shards. lm_head.weight of a tied model and rotary
/// inv_freq buffers are skipped, as transformers does; a tensor the architecture lacks,
/// a missing one, a shape mismatch or a dtype other than F32/BF16/F16 is an error naming
/// it (the model may then hold part of the new weights). Returns the dtype of the
/// embeddings in model.safetensors. O(parameters).
result<tensor_dtype> load_hf_weights(hf_model& model, const std::string& dir);

/// Writes `model` into the existing directory `dir`: config.json (the source's text),
/// model.safetensors in the source's dtype (round to nearest even for BF16 and F16;
/// {"format": "pt"} metadata), and every tokenizer and generation file of the source
/// directory: a directory transformers and vLLM open as they open the source. O(parameters).
result<bool> write_hf_files(hf_model& model, const hf_source& source, const std::string& dir);

/// The learner's checkpoint DIR, written through DIR.tmp and renamed: DIR/hf/ by
/// write_hf_files (the model as a Hugging Face directory; a subdirectory because a run's
/// checkpoint keeps its own config.json beside the engine's files), with a dtype other
/// than F32 also DIR/master_weights.safetensors (float32: a resumed learner continues
/// from exact weights), DIR/meta.json ({"format": "adarl-hf-checkpoint-1", "step",
/// "dtype", "source"}) and, when `opt`, DIR/optimizer.safetensors. Errors name the file.
result<bool> save_hf_checkpoint(const std::string& dir, hf_model& model, const hf_source& source,
                                optimizer_state* opt, int64_t step);

/// Loads save_hf_checkpoint()'s DIR into `model` (the master copy when present, else
/// DIR/hf) and `opt` when given and saved; returns the step. A directory without
/// meta.json of that format is an error.
result<int64_t> load_hf_checkpoint(const std::string& dir, hf_model& model,
                                   optimizer_state* opt);

}  // namespace adarl
