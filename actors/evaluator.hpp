#pragma once
// The evaluator actor: held-out accuracy through the same generators and verifiers.

#include <caf/fwd.hpp>

#include "actors/prompt_table.hpp"
#include "messages/interfaces.hpp"

namespace adarl {

/// What the evaluator is spawned with.
struct evaluator_setup {
  prompt_table_ptr prompts;
  bool greedy = true;      ///< One greedy completion per held-out prompt.
  uint32_t samples = 0;    ///< Sampled completions per held-out prompt.
  eval_queue_actor tracker;
  metrics_actor metrics;
};

/// Tallies one evaluation round's scored completions. Pure; O(1) per completion.
class eval_tally {
 public:
  eval_tally(const prompt_table& prompts, uint64_t version, bool greedy, uint32_t samples);
  /// Completions this round expects.
  uint32_t expected() const { return expected_; }
  uint32_t received() const { return received_; }
  /// Adds one scored completion (held-out index in order.slot); duplicates and indices
  /// out of range are ignored.
  void add(const completion& c);
  bool complete() const { return received_ >= expected_; }
  /// The report (accuracy overall and per difficulty level).
  eval_report report() const;

 private:
  const prompt_table* prompts_;
  uint64_t version_;
  bool greedy_;
  uint32_t samples_;
  uint32_t expected_ = 0;
  uint32_t received_ = 0;
  std::vector<float> greedy_reward_;   ///< Per held-out prompt; -1 = not yet.
  std::vector<float> sampled_sum_;
  std::vector<std::vector<bool>> seen_;  ///< Per prompt, per sample index.
};

/// Spawns the evaluator (cooperative).
evaluator_actor spawn_evaluator(caf::actor_system& sys, evaluator_setup setup);

}  // namespace adarl
