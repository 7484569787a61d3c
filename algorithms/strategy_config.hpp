#pragma once
// The settings of every strategy kind, their defaults and validation.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "algorithms/objective.hpp"
#include "base/result.hpp"

namespace adarl {

/// Which sampling strategy a step runs.
enum class strategy_kind {
  grpo,            ///< Uniform n, advantage (r - mean) / (std + eps).
  dr_grpo,         ///< Uniform n, advantage r - mean (Dr.GRPO / RLOO-style).
  dapo,            ///< Uniform n, drop all-equal groups, draw more prompts.
  ada_seq,         ///< Reinforce-Ada-Seq: rounds until the exit rule holds.
  ada_est,         ///< Reinforce-Ada-Est: allocate from p_hat once per step.
  ada_est_online,  ///< adarl's Est that re-plans the remaining budget per result.
};

/// Config names: "grpo", "dr-grpo", "dapo", "ada-seq", "ada-est", "ada-est-online".
std::string_view strategy_name(strategy_kind k);
result<strategy_kind> parse_strategy_kind(std::string_view name);

/// Seq's exit rule, tested on the whole pool after each complete round.
enum class exit_rule {
  pos,      ///< At least k_pos positives.
  balance,  ///< At least k_pos positives and at least k_neg negatives.
};
std::string_view exit_rule_name(exit_rule r);
result<exit_rule> parse_exit_rule(std::string_view name);

/// Reinforce-Ada-Seq parameters (docs/algorithm.md "Reinforce-Ada-Seq"). Defaults are the paper's.
struct seq_config {
  uint32_t group_size = 4;    ///< n: samples kept per prompt.
  uint32_t round_size = 8;    ///< M >= n: samples drawn per round.
  uint32_t max_rounds = 4;    ///< N: rounds before fallback (at most N*M samples).
  exit_rule exit = exit_rule::balance;
  uint32_t k_pos = 0;         ///< Positives to exit; 0 = 1 for pos, n/2 for balance.
  uint32_t k_neg = 0;         ///< Negatives to exit (balance); 0 = n - n/2.
  float threshold = 0.7f;     ///< A sample is positive when reward > threshold (strict).
  bool std_norm = false;      ///< Divide advantages by the unbiased std of the 0/1 pool.
  bool explicit_weight = false;  ///< Multiply by f'(p_hat) (paper v3's 1/p_hat), guarded.
  objective weight_objective;    ///< f for explicit_weight (default log: 1/p_hat).
  /// The tracker's memory spent on the budget (adarl's own, docs/algorithm.md "The informed Seq"; 0 = off,
  /// the paper's Seq). The signal chance of a prompt is the probability, under its
  /// pass-rate posterior, that its pool will hold K_pos positives and max(K_neg, 1)
  /// negatives once its remaining rounds are drawn.
  double min_signal_chance = 0;  ///< No further round for a prompt whose chance is below.
  double skip_below = 0;         ///< Skip a visit whose chance over all rounds is below ...
  double explore = 0.1;          ///< ... except with this probability (honest estimates).
  double skip_extra_factor = 2.0;  ///< At most ceil(factor * batch) replacement prompts.

  /// K_pos after applying the default rule.
  uint32_t effective_k_pos() const;
  /// K_neg after applying the default rule (0 for the pos exit).
  uint32_t effective_k_neg() const;
};

/// Reinforce-Ada-Est parameters (docs/algorithm.md sections 4 and 4b).
struct est_config {
  /// Samples per step; 0 = samples_per_prompt * prompts. Clamped at step start to
  /// [n_min * prompts, n_max * prompts], the budgets a batch can spend exactly.
  uint32_t budget = 0;
  double samples_per_prompt = 8.0;  ///< Average per prompt when budget is 0 (paper: 8).
  uint32_t n_min = 2;               ///< Fewest samples a prompt gets.
  uint32_t n_max = 32;              ///< Most samples a prompt gets.
  double eps = 1e-6;                ///< Added to p_hat and to rbar before weighting.
  objective weight_objective;       ///< f; default log.
  /// Share of f'(p) spent on sampling: N_x ~ f'(p_hat+eps)^s, w_grad = f'(rbar+eps)^(1-s).
  /// 0.5 with the log objective is the paper's hybrid: N_x ~ 1/sqrt(p), w = 1/sqrt(rbar).
  double sample_share = 0.5;
  float threshold = 0.7f;           ///< Success for the pass-rate statistics: reward > threshold.
  /// Divide the centred advantages by the unbiased std of the prompt's rewards this step,
  /// as GRPO does (max(std, 1e-6) + 1e-6); off in the paper. For ablations.
  bool std_norm = false;
  /// Multiply the advantages by w_grad = f'(rbar + eps)^(1 - sample_share); false keeps
  /// the allocation and trains with weight 1. For ablations.
  bool grad_weight = true;
  uint32_t wave = 4;                ///< Online only: most requests in flight per prompt.
};

/// Uniform-group baselines (GRPO, Dr.GRPO) and DAPO's group parameters.
struct uniform_config {
  uint32_t group_size = 4;      ///< n.
  double std_eps = 1e-6;        ///< GRPO: advantage = (r - mean) / (std + std_eps).
  float threshold = 0.7f;       ///< Success for the statistics: reward > threshold.
  double dapo_extra_factor = 2.0;  ///< DAPO: at most ceil(factor * batch) extra prompts.
};

/// The whole strategy section of a config.
struct strategy_config {
  strategy_kind kind = strategy_kind::ada_seq;
  seq_config seq;
  est_config est;
  uniform_config uniform;
};

/// A rejected parameter: the config key (relative to the strategy section) and why.
struct config_issue {
  std::string key;
  std::string message;
};

/// Most samples one prompt may draw in one step (Seq's round_size * max_rounds, Est's
/// n_max, a uniform group), and most samples one step may draw (Est's budget): bounds
/// that keep a typo from allocating without end.
inline constexpr uint32_t max_pool_samples = 65536;
inline constexpr uint32_t max_step_samples = 1u << 24;

/// The most samples a step of `prompts` prompts can draw under `c` (DAPO's extra prompts
/// included). Pure; O(1).
uint64_t max_samples_per_step(const strategy_config& c, uint32_t prompts);

/// Checks the parameters the chosen strategy uses, bounds included; returns every
/// problem found (empty when valid). Pure; O(1).
std::vector<config_issue> validate(const strategy_config& c);

}  // namespace adarl
