#pragma once
// A learned pass-rate predictor (docs/algorithm.md "The learned estimator", the method's "value network"):
// logistic regression from a prompt's features (the policy's own representation of the
// prompt, or the simulated policy's noisy difficulty) to its pass rate, trained online
// on verified outcomes. Its prediction is the mean of a prompt's Beta prior, so a
// prompt seen for the first time gets an informed estimate instead of alpha/(alpha+beta).

#include <cstdint>
#include <span>
#include <vector>

#include "algorithms/pass_rate.hpp"
#include "base/result.hpp"

namespace adarl {

/// Which estimate a prompt's prior comes from (tracker.estimator.kind).
enum class estimator_kind {
  ema,      ///< Beta-EMA alone: prior Beta(alpha, beta) plus the discounted counts.
  learned,  ///< Prior mean from pass_rate_predictor, plus the discounted counts.
};

/// Settings of the predictor. The defaults are ours (the paper gives none).
struct predictor_config {
  double learning_rate = 0.05;  ///< Adam step size.
  double l2 = 1e-3;             ///< Weight decay of the weights (not the bias).
  uint32_t steps_per_group = 2; ///< Gradient steps per finished group.
  /// Pseudo-samples the prediction weighs in a prompt's prior: Beta(s p, s (1 - p)).
  double prior_strength = 4.0;
};

/// The trainable state (weights, Adam moments, steps), for checkpoints.
struct predictor_state {
  std::vector<double> weights;  ///< dim weights, then the bias.
  std::vector<double> m, v;     ///< Adam moments, same size.
  uint64_t updates = 0;         ///< Adam steps taken.
};

/// Logistic regression on standardised features. Features are given once for every
/// prompt id (standardised with their own mean and spread); predictions and fits read
/// them by id. Not thread-safe (one owner, the tracker). predict is O(dim); fit is
/// O(steps_per_group * dim). Deterministic: no randomness, no clock.
class pass_rate_predictor {
 public:
  pass_rate_predictor() = default;
  explicit pass_rate_predictor(predictor_config c);

  /// Sets the features of prompts 0..n-1 (every row of the same length > 0, finite).
  /// Resets the weights when the length changes. An error (and nothing changed) for
  /// ragged, empty or non-finite rows.
  result<bool> set_features(const std::vector<std::vector<float>>& rows);
  /// True once features are set.
  bool ready() const { return dim_ > 0; }
  /// Predicted pass rate of prompt `id`, in (0, 1); 0.5 for an id without features.
  double predict(uint64_t id) const;
  /// The prompt's prior: Beta(s p + N_pos, s (1 - p) + N_tot - N_pos) with p = predict(id).
  beta_posterior prior(uint64_t id, const beta_ema_counts* counts) const;
  /// A few gradient steps on the log loss of k successes in n samples of prompt `id`
  /// (each step on the group's mean per-sample loss). No-op for n = 0 or an unknown id.
  void fit(uint64_t id, uint32_t n, uint32_t k);

  predictor_state save() const { return state_; }
  /// Restores saved weights; an error (nothing changed) when their size is not dim + 1.
  result<bool> restore(const predictor_state& s);
  const predictor_config& config() const { return config_; }

 private:
  double logit(uint64_t id) const;

  predictor_config config_;
  size_t dim_ = 0;
  std::vector<float> features_;  ///< Standardised, row-major [prompts, dim_].
  predictor_state state_;        ///< Invariant: every vector has dim_ + 1 entries.
};

}  // namespace adarl
