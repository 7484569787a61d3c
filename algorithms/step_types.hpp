#pragma once
// The vocabulary strategies speak: prompt entries, sample requests, finished groups,
// decisions.

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "algorithms/pass_rate.hpp"

namespace adarl {

/// Position of a prompt in one step's batch (0, 1, ... in the order prompts were given).
using prompt_slot = uint32_t;

/// A prompt handed to a strategy at step start (or later, for DAPO's extra draws).
struct prompt_entry {
  uint64_t id = 0;        ///< Stable prompt id (keys the persistent statistics).
  beta_posterior prior;   ///< Pass-rate belief from the persistent statistics.
  /// A random key of this visit (run seed, step, prompt): a strategy that explores
  /// draws from it, so that its choices repeat in every run.
  uint64_t visit_key = 0;
};

/// "Generate `count` samples of prompt `slot`, with sample indices first_index, ...,
/// first_index + count - 1." Sample indices are the generation order of a prompt's pool.
struct sample_request {
  prompt_slot slot = 0;
  uint32_t first_index = 0;
  uint32_t count = 0;
};

/// One verified sample as it arrives, in any order.
struct sample_result {
  prompt_slot slot = 0;
  uint32_t index = 0;    ///< Sample index within the prompt: deduplicates late copies.
  float reward = 0.f;    ///< Raw reward from the verifier (usually 0 or 1).
  uint32_t tokens = 0;   ///< Generated tokens of the sample (budget accounting).
};

/// What a strategy did with a result.
enum class result_status {
  accepted,        ///< Recorded; counts once towards the budget.
  duplicate,       ///< This (slot, index) was already recorded: ignored.
  not_requested,   ///< The index was never requested: ignored.
  unknown_slot,    ///< No such prompt in this step: ignored.
};

/// How a prompt's sampling ended.
enum class exit_kind : uint8_t {
  pos,                         ///< Seq: the pool reached K_pos positives.
  balance,                     ///< Seq: K_pos positives and K_neg negatives.
  fallback_missing_positives,  ///< Seq: max rounds spent, too few positives.
  fallback_missing_negatives,  ///< Seq: max rounds spent, too few negatives.
  uniform,                     ///< GRPO, Dr.GRPO, DAPO (kept): a fixed group of n.
  allocated,                   ///< Est: all allocated samples verified.
  dropped,                     ///< DAPO: all rewards equal; not trained on.
  skipped,                     ///< Informed Seq: no signal expected this visit; not drawn.
};
/// Number of exit kinds (the size of per-kind arrays).
inline constexpr size_t exit_kinds = 8;
/// Metrics and report key of each exit kind, indexed by the enum's value: the two
/// fallbacks told apart. The one table of these names (metrics.jsonl, the report,
/// replay's summary).
inline constexpr std::array<std::string_view, exit_kinds> exit_keys = {
    "pos",     "balance",   "fallback_missing_positives", "fallback_missing_negatives",
    "uniform", "allocated", "dropped",                    "skipped"};
/// The key of exit kind `e` in exit_keys.
constexpr std::string_view exit_key(exit_kind e) {
  return exit_keys[static_cast<size_t>(e)];
}
static_assert(exit_keys[static_cast<size_t>(exit_kind::skipped)] == "skipped" &&
              exit_keys[static_cast<size_t>(exit_kind::fallback_missing_negatives)] ==
                  "fallback_missing_negatives");

/// Config/JSON name of an exit kind ("fallback" for both fallback kinds).
std::string_view exit_name(exit_kind e);
/// True for the two fallback kinds.
inline bool is_fallback(exit_kind e) {
  return e == exit_kind::fallback_missing_positives ||
         e == exit_kind::fallback_missing_negatives;
}

/// A prompt whose sampling is over, with the group the learner trains on.
/// The learner's per-sample advantage is advantages[i] * weight.
/// Invariant: kept, rewards and advantages have equal sizes; kept is ascending.
struct finished_group {
  prompt_slot slot = 0;
  uint64_t prompt_id = 0;
  exit_kind exit = exit_kind::uniform;
  std::vector<uint32_t> kept;      ///< Sample indices kept for training, ascending.
  std::vector<float> rewards;      ///< Raw rewards of the kept samples.
  std::vector<float> advantages;   ///< Per kept sample, before the weight.
  float baseline = 0.f;            ///< The value subtracted from rewards.
  float weight = 1.f;              ///< Per-prompt gradient weight w_grad.
  uint32_t samples_used = 0;       ///< Size of the whole pool drawn this step.
  uint32_t positives = 0;          ///< Pool samples with reward > threshold.
  uint32_t rounds = 1;             ///< Rounds drawn (Seq); 1 otherwise.
  float first_round_reward = 0.f;  ///< Mean raw reward of the first round (real_reward).
  uint64_t tokens = 0;             ///< Generated tokens of the whole pool.

  /// True when every advantage is equal (no learning signal from this group).
  bool zero_gradient() const;
  /// False for DAPO's dropped groups, which the learner must skip.
  bool trainable() const { return exit != exit_kind::dropped && exit != exit_kind::skipped; }
};

/// What a strategy decided in answer to one event. The caller clears it, passes it in,
/// then acts on it: issue the requests, hand finished groups to the learner, draw more
/// prompts if asked. Reused across calls so that the hot path does not allocate.
struct decisions {
  std::vector<sample_request> requests;
  std::vector<finished_group> finished;
  uint32_t prompts_wanted = 0;  ///< DAPO: call add_prompts with up to this many prompts.
  bool step_done = false;       ///< Nothing more will come from this step.

  void clear() {
    requests.clear();
    finished.clear();
    prompts_wanted = 0;
    step_done = false;
  }
};

}  // namespace adarl
