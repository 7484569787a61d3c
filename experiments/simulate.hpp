#pragma once
// `adarl simulate`: strategies trained on the simulated policy, seed by seed.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "algorithms/pass_rate.hpp"
#include "algorithms/strategy_config.hpp"
#include "engines/sim/simulated_policy.hpp"

namespace adarl {

/// One strategy of a simulation, under the name the table shows.
struct named_strategy {
  std::string name;
  strategy_config config;
};

/// Everything `adarl simulate` runs (configs/simulate.yaml documents each key).
struct simulate_config {
  std::vector<uint64_t> seeds{1, 2, 3};  ///< One run per seed and strategy.
  uint32_t prompts = 1024;               ///< Training prompts.
  uint32_t held_out = 256;               ///< Held-out prompts (never trained on).
  uint32_t batch_prompts = 64;           ///< Prompts per step. Invariant: <= prompts.
  uint64_t total_samples = 200000;       ///< Sample budget of every run.
  double target_pass_rate = 0.5;         ///< Train mean pass rate that counts as reached.
  std::string baseline = "grpo-n4";      ///< Name of the strategy the ratio compares to.
  sim_model_config model;
  beta_ema_params estimator;  ///< Persistent pass-rate statistics (Est priors).
  std::vector<named_strategy> strategies;
};

/// The state of one run after one training step. Not algorithms/convergence.hpp's
/// curve_point (x, y): two types of one name in namespace adarl broke the one
/// definition rule, and std::vector of one was built with the other's size.
struct sim_curve_point {
  uint64_t step = 0;
  uint64_t samples = 0;               ///< Cumulative samples after this step.
  double train_pass_rate = 0;         ///< Exact mean p_x over training prompts.
  double held_out_pass_rate = 0;      ///< Exact mean over held-out prompts.
  double zero_gradient_fraction = 0;  ///< Trainable groups without signal (step_summary).
  double samples_per_prompt = 0;      ///< Samples drawn per group, dropped ones included.
};

/// One strategy on one seed.
struct seed_run {
  uint64_t seed = 0;
  std::vector<sim_curve_point> curve;
  std::optional<uint64_t> samples_to_target;  ///< nullopt: target never reached.
  std::optional<uint64_t> steps_to_target;    ///< Training steps to get there.
  uint64_t groups = 0;                        ///< Finished groups, dropped ones included.
  uint64_t samples = 0;         ///< Samples drawn (the ledger's cumulative count).
  uint64_t wasted_samples = 0;  ///< Samples of groups that gave no gradient (dropped
                                ///< or zero-gradient).
};

/// One table row: a strategy over all seeds, and the summary the table prints.
struct strategy_result {
  std::string name;
  std::vector<seed_run> runs;            ///< In the order of simulate_config::seeds.
  uint32_t reached = 0;                  ///< Seeds whose run reached the target.
  std::optional<double> median_samples;  ///< nullopt: the median run never reached it.
  std::optional<uint64_t> min_samples;   ///< nullopt: no run reached it.
  std::optional<uint64_t> max_samples;   ///< nullopt: some run never reached it.
  std::optional<double> ratio;  ///< Median over seeds of baseline / this; nullopt: n/a.
  std::optional<double> median_steps;  ///< Median steps to target (the paper's x axis).
  double final_train = 0;       ///< Mean over seeds of the last train pass rate.
  double final_held_out = 0;
  double zero_gradient_fraction = 0;  ///< Mean over seeds and steps.
  double samples_per_prompt = 0;      ///< Samples / groups over all seeds.
  double wasted_fraction = 0;         ///< wasted_samples / samples over all seeds.
};

/// Runs one strategy on one seed until the budget is spent. Deterministic: equal
/// arguments give equal results. O(total_samples) results delivered.
seed_run run_seed(const simulate_config& config, const strategy_config& strategy,
                  uint64_t seed);

/// Runs every strategy on every seed and summarises each (ratios against the baseline).
/// Runs are independent and spread over up to `threads` threads (0: the hardware's);
/// the results do not depend on the thread count.
std::vector<strategy_result> run_simulation(const simulate_config& config,
                                            unsigned threads = 0);

/// Cumulative samples after the first step whose train pass rate is >= target.
std::optional<uint64_t> samples_to_target(std::span<const sim_curve_point> curve,
                                          double target);

/// Training steps (1-based) up to the first step whose train pass rate is >= target.
std::optional<uint64_t> steps_to_target(std::span<const sim_curve_point> curve, double target);

/// Median with nullopt read as +infinity (a run that never got there); for an even
/// count the mean of the two middle values. nullopt when the median is infinite or the
/// input is empty.
std::optional<double> median_of(std::vector<std::optional<uint64_t>> values);

/// Median over seeds of baseline[i] / strategy[i]; nullopt (n/a) when any run of
/// either never reached the target, the sizes differ, or there is no seed.
std::optional<double> median_ratio(std::span<const std::optional<uint64_t>> baseline,
                                   std::span<const std::optional<uint64_t>> strategy);

/// Fills the summary fields of `r` from its runs; `baseline` may be `r` itself.
void summarize(strategy_result& r, const strategy_result& baseline);

}  // namespace adarl
