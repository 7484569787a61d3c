#pragma once
// The few lines `adarl run` ends with: how reward and held-out accuracy moved, what was
// spent, where the files are. Pure: from the run's facts (report/run_facts.hpp), the
// one reduction of its metrics and evaluation lines that its report page draws too.

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "algorithms/reason_watch.hpp"

namespace adarl {

/// What the summary says beside the run's facts.
struct run_summary_input {
  double wall_seconds = 0;         ///< The command's wall time (warm start included).
  std::string out;                 ///< The run's directory.
  std::vector<std::string> files;  ///< What it holds worth naming (report.html, ...).
  reason_watch_config alarm;       ///< Zero-reward reasons of a broken set-up.
  double logprob_tolerance = 0.05; ///< learner.logprob_tolerance (0 = no warning).
};

/// Lines, each "  LABEL  figures" (no trailing newline after the last), from `facts`
/// (run_facts' object; the run page's data has it):
///   real_reward  mean of the first tenth of the steps -> of the last tenth (`tenths`)
///   held-out     the facts' held-out metric: first, best (with its version), last
///   spent        samples, tokens, seconds of RL (`totals`), wall time
///   files        OUT: the files
///   warning      (only when one is) steps whose update was skipped as non-finite;
///                steps that drew no sample (every prompt skipped); a collapsed policy
///                (entropy below 0.01 and no reward over the last tenth of >= 10 steps);
///                each watched zero-reward reason above alarm.share of the samples over
///                the whole run, with its count and share
/// A run without steps or evaluations says so on that line; so do facts that are not an
/// object (none could be read). O(reasons).
std::string run_summary(const nlohmann::json& facts, const run_summary_input& in);

/// Seconds as "42.0 s" below a minute, "1m26s" or "2h03m" above.
std::string duration_text(double seconds);

}  // namespace adarl
