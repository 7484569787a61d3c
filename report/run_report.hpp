#pragma once
// The report page of one run's directory (metrics.jsonl, eval.jsonl, config.json): what
// `adarl run` writes at its end and `adarl report RUN_DIR` redraws. A comparison's
// directory (compare.json) gets the comparison page instead (report/report.hpp).

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>

#include "base/result.hpp"

namespace adarl {

/// How one run's page is drawn.
struct run_report_options {
  std::string title;              ///< "" = "adarl report: DIR".
  std::string metric = "greedy";  ///< Held-out accuracy shown: greedy or sampled.
  double target_heldout = -1;     ///< Negative = no target line.
  double target_reward = -1;
  uint32_t smooth = 5;  ///< Moving-average window of real_reward.
};

/// The page's data from a run's directory: `{"kind": "run", ...}` with the run's
/// identity (title, dir, name, seed, strategy, config: config.json's values), the
/// per-step rows and evaluations the charts draw, and what they add up to (run_facts,
/// report/run_facts.hpp). metrics.jsonl is required; eval.jsonl and config.json may be
/// missing (a run stopped early, an older run): the page says so. A torn last line is
/// left out and told in `warnings` (file:line each); any other malformed line is an
/// error naming the file and the line. Reads the files once; O(lines).
result<nlohmann::json> run_report_data(const std::string& dir,
                                       const run_report_options& o);

/// Draws `data` into DIR/report.html, atomically; returns the file's path. `data` is
/// run_report_data's (the run page, report/run_page.hpp) or compare.json's (the
/// comparison page, report_html). Data the page cannot show, or a file that cannot be
/// written, is an error saying so.
result<std::string> write_report_page(const std::string& dir, const nlohmann::json& data);

/// True when `data` is run_report_data's (a run) rather than compare.json's.
bool is_run_data(const nlohmann::json& data);

}  // namespace adarl
