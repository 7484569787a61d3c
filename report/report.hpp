#pragma once
// The report of a comparison (compare.json): an HTML page with tables and inline SVG
// charts, and the main chart alone as an SVG document.

#include <nlohmann/json_fwd.hpp>
#include <string>

namespace adarl {

/// The report page for a comparison (compare.json) or one run: self-contained HTML
/// (inline SVG and CSS, no scripts, nothing from the network, no external files).
/// Pure and deterministic; O(strategies x runs x (steps + evals + pass-rate bins)).
///
/// Contents: the title and a paragraph saying what is compared; the summary table
/// (`id="summary"`), when the input has them the paired table (`id="paired"`: held-out
/// accuracy at equal steps and samples, paired differences against the baseline with
/// their 95% interval) and the targets table (`id="targets"`: steps, samples, tokens
/// and seconds to each target), the difficulty-bucket table (`id="buckets"`) and the
/// per-run table (`id="runs"`); charts: held-out accuracy and real reward (a trailing
/// mean over 5 steps) with a dashed target line, each against steps, samples, tokens
/// and seconds, in four blocks (`class="curves on-<axis>"`) of which the checked radio
/// button (`id="x-<axis>"`) shows one (CSS only; steps first when equal_steps is set,
/// else samples; an axis the input lacks draws "no data"); zero-gradient fraction
/// against step; mean samples per prompt against estimated pass rate, pooled over the
/// runs of a strategy). Every number cell carries `data-key="<strategy>.<key>"`, e.g.
/// `grpo-n4.samples_to_heldout.median`, `grpo-n4.ratio_heldout_samples`,
/// `grpo-n4.bucket_accuracy.2`, `grpo-n4.runs.0.final_accuracy`.
///
/// Text: strings from the input are HTML-escaped. Accuracy and reward have 3 decimals,
/// samples and tokens are integers, ratios have 2 decimals; a null time-to-target reads
/// "not reached", any other null "-".
///
/// Input: the keys of compare.json that the page shows (title, baseline,
/// budget_samples, targets.{heldout,real_reward}, heldout_metric, buckets.{labels,
/// prompts}, pass_rate_bins, strategies[].{name, runs, summary}; per run seed, dir,
/// steps[].{step, cumulative_samples, real_reward, zero_gradient_fraction},
/// evals[].{cumulative_samples, accuracy}, samples_to_heldout, samples_to_reward,
/// final_accuracy, pass_rate_bins.{prompts, samples}; per summary samples_to_heldout,
/// tokens_to_heldout, samples_to_reward (each {median, min, max, reached, runs}),
/// ratio_heldout_samples, ratio_heldout_tokens, ratio_reward_samples, final_accuracy
/// {median, min, max}, bucket_accuracy) must be present with the right type; other
/// keys are ignored. Any metric value (targets, medians, min, max, ratios, accuracies,
/// rewards, fractions, a bucket_accuracy entry) may be null, and a non-finite number
/// counts as null: a null point is left out of its curve, a null target draws no line.
/// Per-bucket and per-bin arrays must have as many entries as buckets.labels and
/// pass_rate_bins say.
///
/// Throws std::invalid_argument otherwise, naming the key path and what was expected:
/// "strategies[2].runs[0].evals: missing", "budget_samples: expected a number, got
/// string", "strategies[0].summary.bucket_accuracy: expected 4 entries, got 3".
std::string report_html(const nlohmann::json& compare);

/// The main plot alone (held-out accuracy against `axis`: steps, samples, tokens or
/// seconds; "" = steps when compare.json has equal_steps, else samples; one polyline
/// per run that has an evaluation, dashed target line, legend) as a standalone SVG
/// document starting with "<svg" (for docs/). Styling is in attributes, so it looks
/// the same inside and outside the page. Validates and throws like report_html(); an
/// unknown axis throws std::invalid_argument naming it.
std::string accuracy_svg(const nlohmann::json& compare, const std::string& axis = "");

}  // namespace adarl
