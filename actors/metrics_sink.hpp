#pragma once
// The metrics sink: metrics.jsonl (one line per step, README "Metrics"), its CSV twin
// metrics.csv, eval.jsonl, and a one-line progress display on a terminal.

#include <caf/fwd.hpp>

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "messages/interfaces.hpp"

namespace adarl {

/// Running totals the per-step lines carry.
struct metrics_totals {
  uint64_t samples = 0;         ///< Accepted samples, cumulative.
  uint64_t tokens = 0;          ///< Generated tokens of accepted samples, cumulative.
  uint64_t results = 0;         ///< All results received (duplicates included), cumulative.
  double busy_seconds = 0;      ///< Generator busy time since the previous step line.
  double load_wall_seconds = 0; ///< Generator wall time over the same period.
};

/// The JSON object of one step line. `eval` is the latest evaluation not yet reported.
/// Pure; O(fields).
nlohmann::json step_json(const step_record& r, const metrics_totals& totals,
                         const std::optional<eval_report>& eval);

/// The JSON object of one evaluation.
nlohmann::json eval_json(const eval_report& e);

/// Column names of metrics.csv, and one row of it (scalar fields of step_json).
std::string csv_header();
std::string csv_row(const nlohmann::json& step_line);

/// The progress line: step, reward, accuracy, samples/s, ETA.
std::string progress_line(const nlohmann::json& step_line, uint64_t total_steps,
                          double last_accuracy);

/// What the sink is spawned with.
struct metrics_setup {
  std::string dir;              ///< Output directory (created).
  uint64_t total_steps = 0;     ///< For the ETA.
  bool progress = true;         ///< Progress line on stderr when it is a terminal.
  bool append = false;          ///< Resumed run: append to the files.
};

/// Spawns the metrics sink (cooperative; file appends are short).
metrics_actor spawn_metrics(caf::actor_system& sys, metrics_setup setup);

}  // namespace adarl
