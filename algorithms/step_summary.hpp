#pragma once
// A step's metrics from its finished groups, summed order-free (exact_sum).

#include <array>
#include <cstdint>
#include <vector>

#include "algorithms/step_types.hpp"

namespace adarl {

/// A sum of doubles that is the same bits whatever the order of its terms (groups finish
/// in any order: asynchronous rounds, lost workers, a resumed run). Each term is held in
/// fixed point at 2^-64 in 128 bits: exact to about 5e-20 per term, for sums up to about
/// 4e18 (terms beyond that are clamped). Reads as a double; NaN once a term was NaN.
class exact_sum {
 public:
  void add(double term);
  operator double() const;  // NOLINT(google-explicit-constructor): reads as the sum
  bool operator==(const exact_sum&) const = default;

 private:
  __extension__ typedef __int128 fixed_t;
  fixed_t fixed_ = 0;
  bool nan_ = false;
};

/// How well a pass-rate prediction matched the outcomes it predicted, summed over the
/// samples of finished groups: the Brier score (p - y)^2 and the log loss
/// -(y log p + (1 - y) log(1 - p)) per sample, p clamped to [1e-6, 1 - 1e-6].
struct calibration_sums {
  exact_sum brier;     ///< Sum over samples of (p - y)^2.
  exact_sum log_loss;  ///< Sum over samples of the log loss.
  uint64_t samples = 0;
  uint32_t prompts = 0;
  /// Adds a prompt predicted at p whose group drew n samples with k successes.
  void add(double p, uint32_t n, uint32_t k);
  double mean_brier() const { return samples ? brier / double(samples) : 0.0; }
  double mean_log_loss() const { return samples ? log_loss / double(samples) : 0.0; }
};

/// Per-step statistics of finished groups (docs/algorithm.md "Accounting"), accumulated group
/// by group. Pure; O(1) per group (amortised).
struct step_summary {
  uint32_t prompts = 0;            ///< Groups drawn, dropped ones included (skipped not).
  uint32_t trainable = 0;          ///< Groups the learner trains on.
  uint32_t zero_gradient = 0;      ///< Trainable groups whose advantages are all equal.
  uint64_t samples = 0;            ///< Samples drawn (whole pools).
  uint64_t tokens = 0;             ///< Generated tokens (whole pools).
  uint64_t kept_samples = 0;       ///< Samples the learner trains on.
  /// Samples drawn by the trainable groups whose advantages are not all equal: the part
  /// of the step's samples that bought a learning signal (signal per sample = this over
  /// samples).
  uint64_t signal_samples = 0;
  uint32_t max_samples = 0;        ///< Largest pool of one prompt.
  exact_sum first_round_sum;       ///< Sum of first-round mean rewards (real_reward).
  std::array<uint32_t, exit_kinds> exits{};         ///< Count per exit_kind.
  std::array<uint64_t, exit_kinds> exit_samples{};  ///< Samples drawn per exit_kind.
  std::vector<uint32_t> rounds;    ///< rounds[r] = groups that used r rounds.
  /// Groups and samples by estimated pass rate: bin i covers [i/10, (i+1)/10), the last
  /// bin includes 1 (samples per prompt against difficulty, `adarl report`).
  static constexpr size_t rate_bins = 10;
  std::array<uint32_t, rate_bins> rate_prompts{};
  std::array<uint64_t, rate_bins> rate_samples{};
  /// The pass-rate prior each prompt was drawn with (the estimator's p_hat at step
  /// start) against the successes of its whole pool this step: all prompts, and those
  /// the tracker had never seen. A Seq pool stops when its exit rule holds, so its
  /// realised rate leans toward the rule (Est's fixed allocation does not).
  calibration_sums prior_fit;
  calibration_sums prior_fit_first_seen;
  /// The Beta-EMA's own prior on the same first-seen prompts (equal to the above with
  /// the ema estimator; the learned estimator is measured against it).
  calibration_sums ema_fit_first_seen;
  /// Reliability curve of the prior: per bin of predicted p (as rate_prompts), the sum
  /// of predictions and of successes over samples, and the samples.
  std::array<exact_sum, rate_bins> reliability_predicted{};
  std::array<double, rate_bins> reliability_observed{};
  std::array<uint64_t, rate_bins> reliability_samples{};
  /// One visit of a prompt: what was predicted and what came back (issue 36). Per
  /// step, in the order the groups finished; skipped visits (no samples) included.
  struct visit {
    prompt_slot slot = 0;
    uint64_t prompt = 0;
    double predicted = -1;  ///< The pass-rate prior it was drawn with; -1 = none known.
    uint32_t samples = 0;   ///< Its pool's samples this step.
    uint32_t positives = 0; ///< Of them, rewarded above the threshold.
    exit_kind exit = exit_kind::uniform;
  };
  std::vector<visit> visits;

  /// Adds one finished group.
  void add(const finished_group& g);
  /// Counts a group of `samples` samples for a prompt whose pass rate is estimated at
  /// `pass_rate` (clamped to [0, 1]).
  void add_pass_rate(double pass_rate, uint32_t samples);
  /// Adds the calibration of a prompt drawn with prior mean `p` (first_seen: it had no
  /// statistics yet) whose pool had n samples with k successes.
  void add_prior_fit(double p, uint32_t n, uint32_t k, bool first_seen, double ema_p);
  /// Records the visit of finished group `g`, drawn with prior mean `predicted` (-1 when
  /// none is known).
  void add_visit(const finished_group& g, double predicted) {
    visits.push_back({g.slot, g.prompt_id, predicted, g.samples_used, g.positives, g.exit});
  }
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
