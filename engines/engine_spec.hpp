#pragma once
// What a generator on another machine needs to build the run's generation engine: the
// coordinator sends it in the setup message of the wire protocol (docs/reference/protocol.md), as
// JSON, so a worker needs no config file. Torch-free.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.hpp"
#include "engines/engine_kind.hpp"
#include "engines/model_config.hpp"
#include "engines/sim/sim_engines.hpp"
#include "engines/train_config.hpp"

namespace adarl {

/// The generation engine of a run, as data.
struct engine_spec {
  policy_kind kind = default_policy_kind;  ///< Its traits say which fields below it uses.
  uint32_t capacity = 64;       ///< Rows decoded together (a worker may override it).
  sampling_params sampling;     ///< batch_invariant set in deterministic runs.
  // A warm-started kind (transformer): the shape and the tokenizer; the weights come as bytes.
  model_config model;
  std::string charset;
  uint64_t init_seed = 1;
  // A model-directory kind (hf): the architecture as config.json's text (the worker needs no files: the
  // weights come as bytes), the context, and the ids that end a completion.
  std::string hf_config;
  int32_t max_len = 0;
  std::vector<int32_t> end_ids;
  // A kind that trains no model (simulated): the world and the latency model.
  sim_world world;
  sim_latency latency;
};

/// The spec as JSON text; O(size of the world's answers).
std::string encode_engine_spec(const engine_spec& spec);

/// Reads encode_engine_spec()'s text; a missing field, a value of the wrong type or an
/// unknown kind is an error naming it.
result<engine_spec> decode_engine_spec(std::string_view text);

}  // namespace adarl
