#pragma once
// The verifier actor: scores completions with their task's verifier (detached: the
// code verifier runs programs in a sandbox and may take a while).

#include <caf/fwd.hpp>

#include <memory>

#include "actors/prompt_table.hpp"
#include "messages/interfaces.hpp"
#include "tasks/verifier_registry.hpp"
#include "tokenizers/tokenizer.hpp"

namespace adarl {

/// What a verifier is spawned with (shared, read-only parts by pointer).
struct verifier_setup {
  prompt_table_ptr prompts;
  std::shared_ptr<const verifier_registry> registry;
  /// Decodes completions when the prompt table carries no codec of its own.
  std::shared_ptr<const text_codec> tok;
  result_sink_actor tracker;  ///< Where scored completions go.
};

/// The codec that decodes completions of `s`'s prompts: the table's own (what tokenized
/// them, e.g. an HF tokenizer), else `tok`.
const text_codec& completion_codec(const verifier_setup& s);

/// Scores one completion in place (reward, reason). Never throws: an unknown prompt,
/// an unknown verifier or a failing verifier is a zero reward with a reason
/// ("unknown_prompt", "unknown_verifier", "verifier_error"). Thread-safe.
void score(const verifier_setup& s, completion& c);

/// Spawns a detached verifier: each batch is scored (TBB across the batch) and sent to
/// the tracker.
verifier_actor spawn_verifier(caf::actor_system& sys, verifier_setup setup);

}  // namespace adarl
