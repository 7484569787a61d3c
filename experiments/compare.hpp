#pragma once
// `adarl compare`: several strategies over several seeds from one pipeline config, each
// from the same base checkpoint and the same prompts, each with the same cumulative
// sample budget: the plan (a compare config read and expanded) and the runner. What the
// runs measured is read by experiments/compare_results.hpp. Torch-free: the engines come
// from a function (experiments/run_engines.hpp for the transformer).

#include <atomic>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "pipelines/pipeline.hpp"

namespace adarl {

/// `compare.select:`: the paper's prompt selection before the runs (experiments/task_select.hpp):
/// K samples per prompt from the base policy, a prompt kept when its number of correct
/// samples is in [min_correct, max_correct]; training prompts from a pool of the suite's
/// train split, held-out prompts from a pool of its held-out split (never the same).
struct compare_selection {
  bool enabled = false;            ///< The section is present.
  uint32_t k = 16;                 ///< Samples per prompt.
  uint32_t min_correct = 1;        ///< Window of correct samples, inclusive.
  uint32_t max_correct = 5;
  uint32_t train_pool = 2000;      ///< Candidates for the tasks.train training prompts.
  uint32_t held_out_pool = 2000;   ///< Candidates for the tasks.held_out held-out prompts.
};

/// The `compare:` section of a compare config (configs/compare.yaml documents it).
struct compare_settings {
  std::string title;               ///< Shown on the report.
  std::string out = "runs/compare";  ///< OUT/<strategy>/seed-<s>/, compare.json, report.html.
  std::vector<uint64_t> seeds{1, 2, 3};
  uint64_t sample_budget = 0;      ///< Cumulative samples of every run (required, > 0):
                                   ///< the x of the equal-samples table.
  /// Steps of the equal-steps table (0 = none): every run is read at this step (it must
  /// train at least this many: the budget is chosen large enough, a shorter run has no
  /// value there). Runs end at sample_budget.
  uint64_t equal_steps = 0;
  compare_selection select;        ///< Prompt selection (off without compare.select).
  uint64_t max_steps = 100000;     ///< Safety cap on each run's steps.
  uint32_t jobs = 1;               ///< Runs at once.
  std::string baseline = "grpo-n4";  ///< Ratios are against this strategy.
  /// Which held-out accuracy is compared: "greedy" (one greedy completion per prompt)
  /// or "sampled" (mean reward of eval.samples completions: less noisy).
  std::string heldout_metric = "greedy";
  /// Targets; negative = none (the reach columns stay empty).
  double target_heldout = -1;      ///< Held-out accuracy (heldout_metric).
  double target_reward = -1;       ///< real_reward, smoothed over `smooth` steps.
  uint32_t smooth = 5;
};

/// One run of the comparison.
struct compare_run {
  std::string strategy;            ///< The strategy entry's name.
  uint64_t seed = 1;
  pipeline_config config;          ///< Fully resolved (out, seed, budget, no progress line).
  std::string document;            ///< The run's YAML, to tell whether a finished run is current.
};

/// A compare config read and expanded into its runs (strategies x seeds, in that order).
struct compare_plan {
  compare_settings settings;
  pipeline_config base;            ///< The document without `compare:`: prompts, SFT base.
  std::vector<std::string> strategies;  ///< Entry names in order.
  std::vector<compare_run> runs;
};

/// Reads a compare config: a pipeline document (as `adarl run` reads) plus a `compare:`
/// section, after the overrides (which may address compare.* keys too). Each entry of
/// compare.strategies has a `name`, a `strategy` mapping that replaces the document's
/// and optional `set` overrides; without the list, the six defaults (grpo-n4, grpo-n8,
/// dapo, ada-seq-pos, ada-seq-balance, ada-est). Every run's document is validated
/// here, so a bad entry fails before any run starts; errors name the file, line and
/// key, prefixed by the entry for a strategy's own problems.
result<compare_plan> load_compare_config(const std::string& file,
                                         const std::vector<std::string>& overrides);

/// The engines of one run (the same base checkpoint for all of them).
using engines_for_run = std::function<result<engine_factories>(const pipeline_config&)>;

/// How the runs went.
struct compare_outcome {
  uint32_t ran = 0;                ///< Runs trained now.
  uint32_t kept = 0;               ///< Runs already finished with the same document.
  std::vector<std::string> failed; ///< "name seed s: why", one per failed run.
  bool interrupted = false;
};

/// Runs every run of `plan` on the same prompts, `settings.jobs` at a time. A run whose
/// directory holds a done.json for the same document is kept (a comparison can be
/// continued after Ctrl-C); another run's directory is cleared first. A failed run is
/// reported and the others go on. One line per run on `log`.
compare_outcome run_compare(const compare_plan& plan, prompt_table_ptr prompts,
                            const engines_for_run& engines, const std::atomic<bool>* stop,
                            std::ostream& log);

}  // namespace adarl
