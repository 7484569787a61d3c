#pragma once
// What one run's metrics.jsonl and eval.jsonl add up to, for its report page: the
// curves, the change of held-out accuracy with its interval, the cost of each step and
// of the strategy's decisions, the reasons for zero rewards. Pure (no files).

#include <nlohmann/json.hpp>
#include <vector>

#include "report/run_report.hpp"

namespace adarl {

/// The facts of a run from its step lines (metrics.jsonl, in order) and evaluations
/// (eval.jsonl, any order: they are sorted by version). A field a line lacks (an older
/// file) counts as 0, or as null where 0 would be a claim (a time, a share). Keys:
///
/// - `heldout_metric`: o.metric, or the other metric when the evaluations lack it;
///   null without evaluations. `targets` {heldout, real_reward} (null = none), `smooth`.
/// - `steps[]`: per line {step (the policy version after it), samples, prompts,
///   cumulative_samples, cumulative_tokens, elapsed, real_reward,
///   zero_gradient_fraction, samples_per_prompt_mean, samples_per_prompt_max,
///   time_step, time_generation, time_train and prior_brier (null where absent),
///   rounds_mean, never_exited_share, round1_share}; the last
///   three from the `rounds` histogram (null without one): the mean rounds per prompt,
///   and the shares of the step's samples on prompts that never exited (the fallback
///   kinds: their `exit_samples` where the line has them, else their count times the
///   most rounds of the step, which they drew) and that exited in round 1 (a round
///   draws the step's samples over its rounds).
/// - `evals[]`: {version, accuracy, other (the other metric or null), prompts,
///   cumulative_samples, elapsed (null for a version without a step line)}.
/// - `heldout`: null without evaluations; else {first, last, best} (each {version,
///   accuracy}), `change` (last - first) and its 95% t-interval over the held-out
///   prompts, paired prompt by prompt (`low`, `high`, `prompts`; null when the
///   evaluations lack per-prompt values or have different prompts).
/// - `totals`: {steps, samples, tokens, seconds (elapsed at the last line),
///   prompts, samples_per_step, seconds_per_step (mean time_step; null without)}.
/// - `tenths`: means over the first and last tenth of the steps (n / 10 rounded down,
///   at least one step) of real_reward and zero_gradient_fraction: {steps, reward_first,
///   reward_last, zero_grad_first, zero_grad_last}, and of the token entropy over the
///   last tenth (`entropy_last`, null when a line of it lacks one); pooled over each
///   tenth's samples, the share that scored 0 without a readable answer
///   (`format_failures_first` / `_last`, algorithms/answer_format.hpp; null when a line
///   lacks zero_reward_reasons) and the tokens per completion (`tokens_per_sample_first`
///   / `_last`; null when the tenth drew no sample); null without steps.
///   The one definition of a run's first and last tenth: the run page and the summary
///   `adarl run` ends with (experiments/run_summary.hpp) both read it.
/// - `reach`: {heldout, real_reward}: null without a target, else {reached: false}, or
///   {reached: true, step, samples, seconds} of the first evaluation at the target (the
///   first step whose trailing mean real_reward over `smooth` steps is).
/// - `exits` (totals per exit kind), `rounds` (summed histogram), `rounds_samples`
///   (share of the samples per rounds count), `never_exited` ({prompts, samples (summed
///   never_exited_samples of every line), samples_share (of all the lines' samples)}),
///   `round1` ({prompts, samples_share}), `pass_rate_bins` {prompts, samples} summed.
/// - `diagnostics`: {grad_norm, clip_fraction, entropy, lag_mean, updates}, each the
///   mean over the lines that have it (null when none has).
/// - `visits`: what the per-prompt visits spent (metrics.jsonl `visits`): {drawn,
///   skipped (visits of 0 samples), mixed_share (drawn visits with a right and a wrong
///   sample), skipped_share (of all visits), all_wrong_samples_share and
///   all_right_samples_share (of the drawn visits' samples)}; shares null when no line
///   records visits.
/// compare.json's per-run sums (experiments/compare_results.hpp) are these.
/// - `reliability[]`: the pass-rate prior's reliability curve over the run, one entry
///   per non-empty tenth of predicted p: {bin, predicted (mean prediction), observed
///   (success rate), samples}, from the step lines' `reliability`; empty without.
/// - `zero_rewards`: {total, samples (the lines' samples), samples_share (total over
///   samples), reasons[] {reason, count, share (of the zero rewards)} most frequent
///   first}; `recorded` false when no line has zero_reward_reasons.
/// - `nonfinite_steps`: lines with `nonfinite` (their update was skipped); `empty_steps`:
///   lines that drew no sample because the strategy skipped every prompt
///   (exits.skipped > 0, samples 0).
/// O(lines + evaluated prompts).
nlohmann::json run_facts(const std::vector<nlohmann::json>& steps,
                         std::vector<nlohmann::json> evals, const run_report_options& o);

/// The samples a step line spent on prompts that never exited (the fallback exit kinds):
/// their `exit_samples` where the line has them; else their count times the most rounds
/// of the step's `rounds` histogram (they drew them), each round the step's samples over
/// its rounds; else (no histogram) their count times samples_per_prompt_max, an upper
/// bound. The one estimate of it: the run page's never-exited share and compare.json's
/// fallback_share both come from here.
double never_exited_samples(const nlohmann::json& line);

/// The strategy kind of a run: config.json's strategy.kind when `config` has it, else
/// what the exits say (ada-seq for pos, balance or fallback exits, ada-est for
/// allocated, dapo for dropped, grpo for uniform; "" when none).
std::string run_strategy_kind(const nlohmann::json& config, const nlohmann::json& exits);

}  // namespace adarl
