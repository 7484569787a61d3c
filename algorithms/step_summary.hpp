#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "algorithms/step_types.hpp"

namespace adarl {

/// Per-step statistics of finished groups (ALGORITHM.md section 7), accumulated group
/// by group. Pure; O(1) per group (amortised).
struct step_summary {
  uint32_t prompts = 0;            ///< Groups seen, dropped ones included.
  uint32_t trainable = 0;          ///< Groups the learner trains on.
  uint32_t zero_gradient = 0;      ///< Trainable groups whose advantages are all equal.
  uint64_t samples = 0;            ///< Samples drawn (whole pools).
  uint64_t tokens = 0;             ///< Generated tokens (whole pools).
  uint64_t kept_samples = 0;       ///< Samples the learner trains on.
  uint32_t max_samples = 0;        ///< Largest pool of one prompt.
  double first_round_sum = 0;      ///< Sum of first-round mean rewards (real_reward).
  std::array<uint32_t, 7> exits{}; ///< Count per exit_kind.
  std::vector<uint32_t> rounds;    ///< rounds[r] = groups that used r rounds.
  /// Groups and samples by estimated pass rate: bin i covers [i/10, (i+1)/10), the last
  /// bin includes 1 (samples per prompt against difficulty, `adarl report`).
  static constexpr size_t rate_bins = 10;
  std::array<uint32_t, rate_bins> rate_prompts{};
  std::array<uint64_t, rate_bins> rate_samples{};

  /// Adds one finished group.
  void add(const finished_group& g);
  /// Counts a group of `samples` samples for a prompt whose pass rate is estimated at
  /// `pass_rate` (clamped to [0, 1]).
  void add_pass_rate(double pass_rate, uint32_t samples);
  /// Mean first-round reward over all groups (the paper's real_reward).
  double real_reward() const { return prompts ? first_round_sum / prompts : 0.0; }
  /// Share of trainable groups with no learning signal.
  double zero_gradient_fraction() const {
    return trainable ? static_cast<double>(zero_gradient) / trainable : 0.0;
  }
  double mean_samples_per_prompt() const {
    return prompts ? static_cast<double>(samples) / prompts : 0.0;
  }
  uint32_t exits_of(exit_kind e) const { return exits[static_cast<size_t>(e)]; }
};

}  // namespace adarl
