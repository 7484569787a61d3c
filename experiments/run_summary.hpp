#pragma once
// The few lines `adarl run` ends with: how reward and held-out accuracy moved, what was
// spent, where the files are. Pure: from the run's metrics and evaluation lines.

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "algorithms/reason_watch.hpp"

namespace adarl {

/// What the summary is made from.
struct run_summary_input {
  std::vector<nlohmann::json> steps;  ///< metrics.jsonl, in order.
  std::vector<nlohmann::json> evals;  ///< eval.jsonl, in any order.
  double wall_seconds = 0;            ///< The command's wall time (warm start included).
  std::string out;                    ///< The run's directory.
  std::vector<std::string> files;     ///< What it holds worth naming (report.html, ...).
  reason_watch_config alarm;          ///< Zero-reward reasons of a broken set-up.
};

/// Lines, each "  LABEL  figures" (no trailing newline after the last):
///   real_reward  mean of the first tenth of the steps (at least one) -> of the last tenth
///   held-out     greedy (else sampled) accuracy: first, best (with its version), last
///   spent        samples, tokens, seconds of RL (the last line's elapsed), wall time
///   files        OUT: the files
///   warning      (only when one is) steps whose update was skipped as non-finite;
///                steps that drew no sample (every prompt skipped); a collapsed policy
///                (entropy below 0.01 and no reward over the last tenth of >= 10 steps);
///                each watched zero-reward reason above alarm.share of the samples over
///                the whole run, with its count and share
/// A run without steps or evaluations says so on that line. O(steps + evals log evals).
std::string run_summary(const run_summary_input& in);

/// Seconds as "42.0 s" below a minute, "1m26s" or "2h03m" above.
std::string duration_text(double seconds);

}  // namespace adarl
