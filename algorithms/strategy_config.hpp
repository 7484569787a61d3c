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
  ada_budget,      ///< Budget-first Reinforce-Ada: a hard per-step budget from the tracker's memory.
};

/// Config names: "grpo", "dr-grpo", "dapo", "ada-seq", "ada-est", "ada-est-online",
/// "ada-budget".
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
  /// Balanced down-sampling of the pool to n (the paper's); false trains every sample
  /// of the pool (the same baseline over the whole pool).
  bool downsample = true;
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

/// How the budget-first strategy spreads a step's first waves over its prompts.
enum class allocation_rule {
  uniform,   ///< The same n for every prompt (with skips: GRESO's rule).
  sqrt,      ///< n ~ sqrt((1 - p) / p): the log objective's variance-optimal rule.
  knapsack,  ///< Greedy on the gain in the chance of a mixed group, one sample at a time.
};
/// Config names: "uniform", "sqrt", "knapsack".
std::string_view allocation_rule_name(allocation_rule r);
result<allocation_rule> parse_allocation_rule(std::string_view name);

/// Budget-first Reinforce-Ada (docs/algorithm.md "Budget-first Reinforce-Ada"): a hard
/// budget per step, equal to a uniform baseline's, planned from the tracker's pass-rate
/// posteriors. p below is a prompt's posterior mean at step start.
struct budget_config {
  /// Samples per step, never exceeded; 0 = samples_per_prompt * prompts (grpo-n4's step
  /// with the default). Fewer than n_min * prompts is a config error.
  uint32_t budget = 0;
  double samples_per_prompt = 4.0;  ///< The budget per prompt when budget is 0.
  uint32_t n_min = 2;               ///< Fewest samples a kept prompt's first wave gets.
  uint32_t n_max = 16;              ///< Most samples one prompt draws, reserve included.
  allocation_rule allocation = allocation_rule::sqrt;
  /// Share of the budget held back from the first waves, in (0, 1): spent as results
  /// arrive on prompts whose first wave came back one-sided (all right or all wrong).
  double reserve = 0.25;
  uint32_t reserve_wave = 2;        ///< Samples per top-up of a one-sided prompt.
  /// Prompts with p below hard_below take at most hard_share of the first waves (a 1/p
  /// rule would send nearly all of the budget to prompts that are never solved).
  double hard_below = 0.05;
  double hard_share = 0.25;
  /// A visit whose chance of a mixed group with the budget's average n is below
  /// skip_below is skipped, except with probability `explore`, and replaced by another
  /// prompt (at most ceil(skip_extra_factor * prompts) per step); a one-sided prompt is
  /// topped up only while its chance of turning mixed with the next top-up is at least
  /// skip_below. 0 = no skips. 0.15: with the EMA estimator's defaults (lambda 0.9,
  /// Beta(1, 1)) a prompt's evidence never passes 40 samples, and a prompt one-sided in
  /// every visit then has a chance of about 0.09 to mix in 4 draws; 0.15 skips it after
  /// about 8 one-sided visits of 4 in a row (0.05 would never skip it).
  double skip_below = 0.15;
  double explore = 0.1;
  double skip_extra_factor = 2.0;
  float threshold = 0.7f;           ///< A sample is positive when reward > threshold.
  /// Divide the centred advantages by the pool's unbiased std (GRPO's), else r - mean.
  bool std_norm = false;
  /// Multiply the advantages by f'(p_pool), guarded at one success in the pool (the log
  /// objective's 1/p); false trains every sample with weight 1.
  bool grad_weight = false;
  objective weight_objective;       ///< f for grad_weight (default log).

  /// The step's budget for `prompts` prompts.
  uint64_t step_budget(uint32_t prompts) const;
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
  budget_config budget;
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

/// The checks that need the step's prompt count (ada-budget's budget against
/// n_min * prompts); empty when valid. Pure; O(1).
std::vector<config_issue> validate_for_step(const strategy_config& c, uint32_t prompts);

}  // namespace adarl
