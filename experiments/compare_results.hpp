#pragma once
// What `adarl compare` measured: compare.json from the runs' directories (each run's
// curves and readings, per-strategy summaries with paired intervals against the
// baseline, difficulty buckets), and the tables and the one-sentence verdict printed
// from it. The report page (report/report.hpp) draws the same compare.json.

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "base/result.hpp"
#include "experiments/compare.hpp"

namespace adarl {

/// One run's entry of compare.json from its output directory (metrics.jsonl,
/// eval.jsonl): curves (each evaluation with its step, samples, tokens and seconds),
/// steps, samples, tokens and seconds to the targets (`<axis>_to_heldout`,
/// `<axis>_to_reward`), held-out accuracy at equal steps (`heldout_at_steps`: the last
/// evaluation at or before settings.equal_steps, null when the run trained fewer steps)
/// and at equal samples (`heldout_at_samples`: the first evaluation at or after
/// sample_budget), the mean under the held-out curve over [0, equal_steps] steps and
/// [0, sample_budget] samples (`auc_steps`, `auc_samples`), the share of samples spent
/// on prompts that never exited (`fallback_share`: the samples of fallback groups, from
/// each line's exit_samples; lines without it count every fallback prompt at the step's
/// largest pool, which without round caps they all drew), the mean share of a step's
/// prompts without learning signal over the steps to equal_steps (every step without
/// it; `zero_gradient_share`, from zero_gradient_fraction), final accuracy and the
/// per-prompt final accuracy ("prompt_final"), samples by estimated pass rate, the
/// optimizer updates behind each reading (`updates_at_steps`, `updates_at_samples`:
/// metrics.jsonl's "updates", 1 per trained step in lines without it) and the mean
/// wall-clock seconds per step (`seconds_per_step`), and the means over its steps of
/// grad_norm, clip_fraction, entropy, lag_mean and updates (`mean_<key>`; null when no
/// line has the key). A missing
/// or malformed file is an error naming it (and the line); a torn last line (a run still
/// writing, or stopped while writing) is left out (read_json_lines).
result<nlohmann::json> collect_run(const std::string& dir, const compare_settings& s);

/// compare.json from the runs' directories: per run (collect_run), per strategy
/// summaries over seeds (median, min, max; ratios against the baseline; per-seed paired
/// differences against the baseline of heldout_at_steps, heldout_at_samples, auc_steps
/// and auc_samples with their mean and 95% t-interval, `paired_*`), with equal_steps
/// how soon each run reaches the baseline's held-out accuracy at the step cap of the
/// same seed (`reach_reference` per run: the goal, the step of its first evaluation at
/// or before the cap at or above it, that step over the cap, and its samples and seconds
/// there over the baseline's at the cap; step null when never reached; summarised as
/// `reach_reference_fraction`, `_samples_ratio`, `_seconds_ratio`), difficulty
/// buckets from the base model's held-out pass rates (the version 0 evaluations: sampled
/// pass rate when eval.samples > 0, greedy otherwise) and final accuracy per bucket.
/// Runs whose directories cannot be read are errors.
result<nlohmann::json> collect_compare(const compare_settings& s,
                                       const std::vector<std::string>& strategies,
                                       const std::vector<compare_run>& runs);

/// The tables as text (one row per strategy), for the terminal and the README: the
/// equal-steps table (when equal_steps is set) and the equal-samples table.
std::string compare_table(const nlohmann::json& compare);

/// What a comparison found, in one sentence (one line per strategy when there are
/// several beside the baseline): the base model's held-out accuracy and the baseline's
/// at the reading; each strategy's mean, its paired difference against the baseline
/// with the 95% interval and where that puts it (above: the interval above 0, below,
/// or within noise; "one seed: no interval"), its samples against the baseline's at
/// equal steps with the shares of prompts without learning signal (zero_gradient_share),
/// and the equal-samples reading; then the path of the report page.
std::string compare_verdict(const nlohmann::json& compare, const std::string& report);

/// The seeds the paired readings stand on: the smallest count of pairs (a seed whose run
/// and the baseline's both reached the reading) of any strategy beside the baseline, at
/// equal steps and at equal samples. 0 when there are none (then the tables answer
/// nothing; `adarl compare` says so and exits 1).
size_t paired_seeds(const nlohmann::json& compare);

}  // namespace adarl
