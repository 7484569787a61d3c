#pragma once
// The kinds of policy a run can train, and what each kind is at a run's boundaries
// without code of its own: its one name, whether it trains a model on a device, and
// where its base policy comes from. Everything that differs between kinds asks this
// table or the registry of their engines (pipelines/engine_registry.hpp), never branches
// on the kind itself. Torch-free.

#include <array>
#include <cstddef>
#include <string_view>

#include "base/result.hpp"

namespace adarl {

/// Which policy a run trains (`model.kind`).
enum class policy_kind {
  transformer,  ///< The built-in LibTorch transformer (models/), over the character tokenizer.
  simulated,    ///< The simulated policy (no model; tests, benches, scale runs).
  hf,           ///< A Hugging Face checkpoint of the Qwen2 / Qwen3 / Llama family (model.path).
  /// The hf kind's learner, its completions drawn by an inference server (`server:`,
  /// engines/server/server_engine.hpp) that loads each policy version the learner makes.
  server,
};

/// Where a kind's base policy comes from.
enum class policy_base {
  none,             ///< Nothing to load (the simulated policy).
  warm_start,       ///< model.base_checkpoint, else an SFT warm start (cached).
  model_directory,  ///< model.path: weights, shape and tokenizer of a Hugging Face directory.
};

struct engine_kind_traits {
  policy_kind kind;
  std::string_view name;  ///< Its one name, in configs, engine specs and selections.
  /// A LibTorch model on model.device: the device is checked, prompts must fit
  /// model.max_len, the learner can be replicated and autocast.
  bool trains_model;
  policy_base base;
  /// The character tokenizer (model.d_model, n_layers, ... set the shape) unless the
  /// base is a model directory (its own tokenizer and shape).
  bool model_directory() const { return base == policy_base::model_directory; }
  bool sft_warm_start() const { return base == policy_base::warm_start; }
};

/// Every kind, in the order of the enum.
inline constexpr std::array<engine_kind_traits, 4> engine_kinds{{
    {policy_kind::transformer, "transformer", true, policy_base::warm_start},
    {policy_kind::simulated, "simulated", false, policy_base::none},
    {policy_kind::hf, "hf", true, policy_base::model_directory},
    {policy_kind::server, "server", true, policy_base::model_directory},
}};

/// True when row i of a table indexed by kind (a `kind` member per row) is the i-th kind
/// of the enum, for every kind: what a table of per-kind data static_asserts.
template <class Table>
constexpr bool rows_in_kind_order(const Table& table) {
  if (table.size() != engine_kinds.size()) return false;
  for (size_t i = 0; i < table.size(); ++i)
    if (static_cast<size_t>(table[i].kind) != i) return false;
  return true;
}

/// The kind whose one name is `name`, at compile time: a
/// registration names its kind as configs do, and a name not in the table does not
/// compile.
consteval policy_kind kind_named(std::string_view name) {
  for (const auto& k : engine_kinds)
    if (k.name == name) return k.kind;
  throw "kind_named: no kind of policy has this name";  // not a constant expression
}

/// The kind of a config that names none.
inline constexpr policy_kind default_policy_kind = policy_kind::transformer;

const engine_kind_traits& kind_traits(policy_kind kind);
std::string_view policy_kind_name(policy_kind kind);

/// The kind of `name`; anything else is an error listing the names.
result<policy_kind> parse_policy_kind(std::string_view name);

}  // namespace adarl
