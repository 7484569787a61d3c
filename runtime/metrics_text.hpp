#pragma once
// The figures of one run in the Prometheus text exposition format (version 0.0.4), as
// the metrics endpoint serves them (runtime/metrics_http.hpp). Pure: the figures are
// gathered from the step lines, evaluations and tracker statuses a run_observer sees.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "messages/messages.hpp"

namespace adarl {

/// The latest figures of one run. Plain data; O(1) to copy apart from the name.
struct run_figures {
  std::string run;                ///< The `run` label of every series: the run's name.
  uint64_t steps_planned = 0;     ///< tracker.steps.
  // From the latest step line (absent before the first one):
  bool stepped = false;           ///< A step line has been seen.
  uint64_t steps = 0;             ///< Steps trained: the line's policy_version.
  uint64_t samples = 0;           ///< cumulative_samples.
  uint64_t tokens = 0;            ///< cumulative_tokens.
  double elapsed = 0;             ///< elapsed.
  double real_reward = 0;
  double zero_gradient_fraction = 0;
  double samples_per_second = 0;  ///< The step's samples over its time_step (0 when 0 s).
  double tokens_per_second = 0;   ///< The same for its tokens.
  double lag_mean = 0;
  uint64_t lag_max = 0;
  std::optional<double> generator_busy;  ///< The last line that carried it.
  // From the step line's `cluster` (remote generators); zero without them:
  uint64_t workers = 0, workers_joined = 0, workers_lost = 0, orders_reissued = 0;
  // From the evaluations (the highest version seen):
  std::optional<uint64_t> heldout_version;
  std::optional<double> heldout_greedy, heldout_sampled;
  // From the tracker's status:
  std::optional<tracker_status> tracker;
};

/// Takes the figures of a step line (actors/metrics_sink.hpp step_json). Missing fields
/// keep their previous values. O(fields).
void add_step_line(run_figures& f, const nlohmann::json& line);

/// Takes an evaluation unless one of a higher version was taken already (evaluations
/// can finish out of order). O(1).
void add_eval(run_figures& f, const eval_report& e);

/// Takes the tracker's counters. O(1).
void add_tracker(run_figures& f, const tracker_status& s);

/// The page: for every series `# HELP` and `# TYPE` lines, then its sample labelled
/// `run="NAME"`, one family per metric named `adarl_*` (counters end in `_total`); a
/// series with nothing to show yet (held-out accuracy before the first evaluation, the
/// tracker's queues before its first status, the per-step gauges before the first step)
/// is left out. O(series).
std::string exposition_text(const run_figures& f);

/// A label value as the format writes it between double quotes: backslash, double quote
/// and line feed escaped (`\\`, `\"`, `\n`).
std::string escape_label_value(std::string_view v);

/// A HELP text as the format writes it: backslash and line feed escaped.
std::string escape_help(std::string_view v);

/// A sample value: the shortest decimal that reads back as `v`; NaN, +Inf, -Inf.
std::string sample_value(double v);

}  // namespace adarl
