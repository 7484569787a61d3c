#pragma once
// The tracker actor: a thin shell around algorithms/tracker_core.

#include <caf/fwd.hpp>

#include <optional>
#include <string>

#include "actors/log.hpp"
#include "actors/prompt_table.hpp"
#include "algorithms/reason_watch.hpp"
#include "algorithms/tracker_core.hpp"
#include "messages/interfaces.hpp"

namespace adarl {

/// What the tracker is spawned with.
struct tracker_setup {
  tracker_config core;             ///< Strategy, steps, lag, leases, seed.
  prompt_table_ptr prompts;        ///< Training ids 0..train-1, then held-out.
  bool eval_greedy = true;         ///< Evaluation: one greedy completion per prompt.
  uint32_t eval_samples = 0;       ///< Evaluation: sampled completions per prompt.
  uint64_t tick_ns = 0;            ///< Lease check period; 0 = lease_ns / 4.
  std::optional<tracker_state> restore;  ///< Continue from a checkpoint.
  logger_ptr log;                  ///< "tracker": steps reported (debug); unset = stderr.
  reason_watch_config alarm;       ///< Zero-reward reasons of a broken set-up: warn at once.
};

/// Spawns the tracker (cooperative: its handlers are short). It hands out work to
/// generators that announced credit (evaluation orders first, then re-issues, then the
/// oldest step's requests), feeds verified results to the strategy in arrival order,
/// stores accepted samples until their prompt's group finishes, sends each finished
/// group and then each completed step's report to the learner (connected with
/// start_atom), and routes evaluation results to the evaluator.
tracker_actor spawn_tracker(caf::actor_system& sys, tracker_setup setup);

/// The order for a held-out evaluation sample: stream keyed apart from training's.
work_order eval_order(uint64_t seed, uint32_t round, uint64_t version, uint32_t held_index,
                      uint64_t prompt_id, uint32_t index, bool greedy);

/// Writes the tracker's persistent state (pass rates, prompt cursor, next step) as JSON,
/// atomically (PATH.tmp, then rename).
result<bool> save_tracker_state(const tracker_state& s, const std::string& path);

/// Reads save_tracker_state's file; a missing, truncated or inconsistent file is an
/// error naming it.
result<tracker_state> load_tracker_state(const std::string& path);

}  // namespace adarl
