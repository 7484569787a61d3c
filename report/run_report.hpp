#pragma once
// The report page of one run's directory (metrics.jsonl, eval.jsonl): what `adarl run`
// writes at its end and `adarl report RUN_DIR` redraws.

#include <cstdint>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "algorithms/result.hpp"

namespace adarl {

/// How one run's page is drawn.
struct run_report_options {
  std::string title;             ///< "" = "adarl report: DIR".
  std::string metric = "greedy"; ///< Held-out accuracy shown: greedy or sampled.
  double target_heldout = -1;    ///< Negative = no target line.
  double target_reward = -1;
  uint32_t smooth = 5;           ///< Moving-average window of real_reward.
};

/// The page's data (the form of compare.json, one strategy named after the directory,
/// one run) from a run's directory. A missing or malformed file is an error naming it.
result<nlohmann::json> run_report_data(const std::string& dir, const run_report_options& o);

/// Draws `data` (report_html) into DIR/report.html, atomically; returns the file's path.
/// Data the page cannot show, or a file that cannot be written, is an error saying so.
result<std::string> write_report_page(const std::string& dir, const nlohmann::json& data);

}  // namespace adarl
