#pragma once
// The simulated policy: pass rates from a logistic model that learns from the same
// groups a real learner gets, without a model.

#include <cstdint>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "algorithms/step_types.hpp"
#include "base/random_keys.hpp"
#include "base/result.hpp"

namespace adarl {

/// How update() turns the policy gradient into a parameter step.
enum class sim_optimizer {
  /// Dense Adam over s and every u_x (beta1 0.9, beta2 0.999, eps 1e-8, bias
  /// correction), like torch.optim.Adam; the real learner uses AdamW, whose step does
  /// not grow with the overall size of the advantages.
  adam,
  /// Plain gradient ascent: the step is proportional to the advantages' size.
  sgd,
};

/// Parameters of the simulated policy (docs/guides/running.md). The step sizes
/// of each optimizer were chosen from GRPO-n4's behaviour alone (it reaches a 0.5 mean
/// pass rate after about a third of the default 200k-sample budget, and its held-out
/// gain is about half its train gain), never from Ada's.
struct sim_model_config {
  double mean_logit = -1.5;  ///< Mean of the difficulty logits b_x (sigmoid: 0.18).
  double sd_logit = 2.0;     ///< Spread of b_x across prompts; >= 0.
  sim_optimizer optimizer = sim_optimizer::adam;
  double shared_lr = 0.0125;        ///< SGD step size of the shared skill s; >= 0.
  double prompt_lr = 0.2;           ///< SGD step size of an adjustment u_x; >= 0.
  double adam_shared_lr = 0.00275;  ///< Adam step size of s; >= 0.
  double adam_prompt_lr = 0.0175;   ///< Adam step size of every u_x; >= 0.
  /// The simulated policy's "representation" of a prompt for the learned estimator:
  /// b_x plus Normal(0, feature_noise) noise (never the true pass rate); >= 0.
  double feature_noise = 1.0;
};

/// "adam" or "sgd"; nullopt for any other name.
std::optional<sim_optimizer> parse_sim_optimizer(std::string_view name);
/// The config name of an optimizer ("adam" or "sgd").
std::string_view sim_optimizer_name(sim_optimizer o);

/// What one update did (for tests and logs).
struct sim_update_stats {
  uint32_t groups = 0;        ///< Trainable groups used.
  uint64_t kept_samples = 0;  ///< K, the token-mean denominator.
  double skill_delta = 0;     ///< Change of s.
};

/// A stand-in for a language-model policy: prompt x has the latent pass rate
/// p_x = sigmoid(s + u_x + b_x), with a fixed difficulty logit b_x, a skill s shared by
/// all prompts and an adjustment u_x of its own (both start at 0). Samples are Bernoulli
/// draws keyed by (seed, step, prompt, sample index), so results never depend on the
/// order in which they are requested or delivered. update() applies the policy
/// gradient of the token-mean surrogate that a strategy's finished groups define.
///
/// Held-out prompts come from the same difficulty distribution but are never trained
/// on: they have u = 0 and improve only through s (generalisation).
/// Not thread-safe for update(); the const members may be called concurrently.
/// Memory O(prompts + held_out); draw() is O(1); update() is O(samples + groups) with
/// SGD and O(samples + groups + prompts) with Adam (dense: every u_x moves each step).
class simulated_policy {
 public:
  /// Draws `prompts` training difficulties, then `held_out` held-out ones, from
  /// Normal(mean_logit, sd_logit) with `rng`. `sample_seed` keys every sample draw.
  simulated_policy(const sim_model_config& config, uint32_t prompts, uint32_t held_out,
                   std::mt19937_64& rng, uint64_t sample_seed);

  uint32_t prompts() const { return static_cast<uint32_t>(difficulty_.size()); }
  uint32_t held_out() const { return static_cast<uint32_t>(held_out_.size()); }

  /// p_x of a training prompt. Precondition: prompt < prompts() (fails fast otherwise).
  double pass_rate(uint64_t prompt) const;
  /// Pass rate of held-out prompt i: sigmoid(s + b_i).
  double held_out_pass_rate(uint32_t i) const;
  /// Exact mean of p_x over all training prompts (no sampling). O(prompts).
  double train_mean() const;
  /// Exact mean pass rate over the held-out prompts; 0 when there are none.
  double held_out_mean() const;

  double skill() const { return skill_; }
  double adjustment(uint64_t prompt) const { return adjust_.at(prompt); }
  double difficulty(uint64_t prompt) const { return difficulty_.at(prompt); }

  /// Reward (1 or 0) of sample `index` of `prompt` at `step`: success when a uniform
  /// number derived from (sample_seed, step, prompt, index) falls below p_x.
  float draw(uint64_t step, uint64_t prompt, uint32_t index) const;

  /// One policy-gradient step from a step's finished groups (all computed at the
  /// current parameters, then applied). Groups that are not trainable (DAPO's dropped
  /// ones) are skipped. For kept sample i of prompt x with advantage A_i, group weight
  /// w_x and outcome y_i (reward > 0.5), g_i = A_i * w_x * (y_i - p_x), the derivative
  /// of A_i * w_x * log pi(y_i) with respect to the logit. With K the kept samples and
  /// G the trainable groups of the step, SGD applies
  ///   s   += shared_lr * sum_i g_i / K
  ///   u_x += prompt_lr * sum_{i of x} g_i / K * G
  /// and Adam takes one ascent step with the token-mean gradient
  ///   d/ds = sum_i g_i / K,   d/du_x = sum_{i of x} g_i / K  (0 for prompts not in
  /// the step, whose u still moves with the momentum of earlier steps).
  /// A step without kept samples (no trainable group) changes nothing, Adam's state
  /// and step count included, as a learner skips a step without a loss.
  sim_update_stats update(std::span<const finished_group> groups);

  /// The whole state as text: config, sample seed, skill, adjustments, difficulties,
  /// held-out difficulties, Adam moments and step count. Doubles are written with 17
  /// significant digits, so parse(serialize()) restores every value bit for bit.
  /// O(prompts + held_out).
  std::string serialize() const;
  /// Reads serialize()'s text. Malformed, truncated or inconsistent text (a missing
  /// key, a bad number, sizes that disagree, no final "end") is an error saying what
  /// was expected; never a crash. O(length).
  static result<simulated_policy> parse(std::string_view text);

 private:
  simulated_policy() = default;  // For parse().

  /// One Adam step from the token-mean gradients (see update()).
  void adam_step(double skill_grad,
                 std::span<const std::pair<uint64_t, double>> per_prompt, double kept,
                 sim_update_stats& stats);

  sim_model_config config_;
  uint64_t seed_ = 0;
  double skill_ = 0;
  std::vector<double> difficulty_;  ///< b_x of the training prompts.
  std::vector<double> adjust_;      ///< u_x. Invariant: same size as difficulty_.
  std::vector<double> held_out_;    ///< b of the held-out prompts.
  // Adam state (unused with SGD): first and second moments of s and of every u_x,
  // and the number of steps taken. Invariant: the u moments are as long as adjust_.
  uint64_t adam_steps_ = 0;
  double skill_m_ = 0, skill_v_ = 0;
  std::vector<double> adjust_m_, adjust_v_;
  std::vector<double> grad_;  ///< Scratch: the step's gradient of every u_x.
};

/// The logistic function.
double sigmoid(double z);

}  // namespace adarl
