#pragma once
// Factories of the generation and learner engines (engines/engine.hpp) of a Hugging Face
// checkpoint (Qwen2 / Llama family, models/arch/hf_model.hpp). Torch-free header: pipelines
// and commands build engines without including LibTorch.

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "engines/engine.hpp"
#include "engines/learner_spec.hpp"
#include "engines/replica_config.hpp"
#include "engines/replica_join_watch.hpp"
#include "engines/train_config.hpp"

namespace adarl {

/// What both engines need to build the model.
struct hf_policy_config {
  /// The HF directory to load (config.json, *.safetensors), or an adarl HF checkpoint.
  /// "" builds config_json's architecture with random weights (a remote generator:
  /// its weights arrive as bytes before any order).
  std::string path;
  std::string config_json;     ///< config.json text, used when path is "".
  int32_t max_len = 1024;      ///< Positions a sequence may take (prompt + completion);
                               ///< at most the config's max_position_embeddings.
  std::string device = "cpu";  ///< "cpu" or "cuda:N" (models/device.hpp).
  int32_t threads = 1;         ///< Torch intra-op threads of the owning thread.
  uint64_t init_seed = 1;      ///< Seed of the random weights (path "").
};

/// A generator's replica.
struct hf_generator_config {
  hf_policy_config policy;
  uint32_t capacity = 64;        ///< Rows decoded together (slots).
  sampling_params sampling;      ///< `greedy` per job overrides sampling.greedy.
  std::vector<int32_t> end_ids;  ///< Drawing one ends a row (text_codec::end_ids()).
};

/// The learner: its settings (engines/learner_spec.hpp, pad_id the codec's) and its model.
using hf_learner_config = learner_config<hf_policy_config>;

/// Builds a generation engine; a bad directory, config, device or max_len is an error
/// naming it. Its snapshots' byte form is the transformer's (ADWS1, by HF name).
result<std::unique_ptr<generation_engine>> make_hf_generator(const hf_generator_config& c);

/// Builds a learner engine starting from policy.path (version 0, a fresh optimizer).
/// save() writes DIR/hf, an HF directory (config.json, model.safetensors in the input's
/// dtype, tokenizer files) that transformers and vLLM open unchanged, plus
/// optimizer.safetensors, meta.json and, for a BF16/F16 input, the float32
/// master_weights.safetensors (models/weights/hf_weights.hpp); restore() reads it back exactly.
/// With c.replicas.replicas > 1 it is rank 0 of a replicated learner, as
/// make_torch_learner's (models/torch_engines.hpp): the same learner serves both.
result<std::unique_ptr<learner_engine>> make_hf_learner(const hf_learner_config& c,
                                                       const replica_join_watch& watch = {});

/// Writes policy versions (the learner's snapshots) as Hugging Face directories
/// ROOT/v<VERSION> (config.json, model.safetensors in the base's dtype, its tokenizer
/// files) for an inference server to load, keeping the newest `keep`; each call returns
/// the absolute directory it wrote. Built from `base` (its architecture and companion
/// files, on the CPU); a bad base or an uncreatable ROOT is an error. Thread-safe.
result<std::function<result<std::string>(const weights_ptr&)>> make_hf_weight_publisher(
    const hf_policy_config& base, const std::string& root, uint32_t keep);

/// Rank c.replicas.rank (> 0) of a replicated HF learner (`adarl worker learn`), as
/// serve_learner_replica: the architecture from policy.path's config.json (or
/// config_json), the weights and optimizer state from rank 0.
result<uint64_t> serve_hf_learner_replica(const hf_learner_config& c,
                                          const std::atomic<bool>* stop,
                                          const replica_step_observer& on_step = {});

}  // namespace adarl
