#pragma once
// The uniform baselines: GRPO, Dr.GRPO and DAPO.

#include <vector>

#include "algorithms/sample_pool.hpp"
#include "algorithms/step_strategy.hpp"

namespace adarl {

/// The uniform-group baselines (docs/algorithm.md "Baselines"): every prompt draws n samples.
/// - grpo: advantage (r - mean) / (unbiased std + eps) within the group.
/// - dr_grpo: advantage r - mean.
/// - dapo: grpo advantages; a group whose rewards are all equal is dropped (emitted with
///   exit `dropped`, not trainable) and a replacement prompt is asked for with
///   `prompts_wanted`, at most ceil(dapo_extra_factor * batch) times per step, so the
///   kept groups never exceed the batch and the extra draws are bounded. add_prompts
///   while no prompt is wanted (always, for grpo and dr_grpo) is ignored.
/// O(1) per result, O(n) when a group completes.
class uniform_strategy final : public step_strategy {
 public:
  uniform_strategy(uniform_config config, strategy_kind kind);

  void start(std::span<const prompt_entry> prompts, decisions& out) override;
  result_status on_result(const sample_result& r, decisions& out) override;
  void add_prompts(std::span<const prompt_entry> extra, decisions& out) override;
  bool done() const override { return active_ == 0 && wanted_ == 0; }
  uint64_t samples_accepted() const override { return accepted_; }

  /// DAPO: replacement prompts still allowed this step.
  uint32_t extra_draws_left() const { return extra_left_; }

 private:
  struct prompt_state {
    uint64_t id = 0;
    sample_pool pool;
  };

  void add(std::span<const prompt_entry> prompts, decisions& out);
  finished_group make_group(prompt_slot slot) const;

  uniform_config config_;
  strategy_kind kind_;
  std::vector<prompt_state> prompts_;
  uint32_t active_ = 0;      ///< Prompts whose group is not complete.
  uint32_t wanted_ = 0;      ///< DAPO: replacements asked for and not yet given.
  uint32_t extra_left_ = 0;  ///< DAPO: replacements that may still be asked for.
  uint64_t accepted_ = 0;
};

}  // namespace adarl
