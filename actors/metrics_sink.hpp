#pragma once
// The metrics sink: metrics.jsonl (one line per step, docs/reference/metrics.md "Metrics"), its CSV twin
// metrics.csv, eval.jsonl, and a one-line progress display on a terminal.

#include <caf/actor.hpp>
#include <caf/fwd.hpp>

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "actors/log.hpp"
#include "actors/run_observer.hpp"
#include "base/result.hpp"
#include "messages/interfaces.hpp"

namespace adarl {

/// Running totals the per-step lines carry.
struct metrics_totals {
  double busy_seconds = 0;      ///< Generator busy time since the previous step line.
  double load_wall_seconds = 0; ///< Generator wall time over the same period.
  std::optional<cluster_stats> cluster;  ///< Remote generators' counters, when there are.
  // Filled by resume_metrics. The budget (samples, tokens) is the tracker's: its
  // checkpointed ledger replaces these three where the checkpoint has it; a checkpoint
  // written before the ledger was kept has only the lines to go by.
  uint64_t samples = 0;            ///< cumulative_samples of the version's step line.
  uint64_t tokens = 0;             ///< cumulative_tokens of the same line.
  uint64_t last_step_samples = 0;  ///< Samples of the step that produced the version.
  bool evaluated = false;          ///< eval.jsonl already holds the version's evaluation.
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

/// Prepares the files of a run resumed at `version`: keeps the step lines and the
/// evaluations of versions up to it, rewrites metrics.jsonl, metrics.csv and eval.jsonl
/// to match (atomically, so a failure leaves them as they were), and returns the
/// cumulative totals at that point, whether `version` was evaluated already, and the
/// samples of its step (for the learner's evaluation schedule). A torn last line (a crash while writing) is dropped;
/// any other malformed line is an error naming the file and line. Missing files are
/// empty. O(lines).
result<metrics_totals> resume_metrics(const std::string& dir, uint64_t version);

/// What the sink is spawned with.
struct metrics_setup {
  std::string dir;              ///< Output directory (created).
  uint64_t total_steps = 0;     ///< For the ETA.
  bool progress = true;         ///< Progress line on stderr when it is a terminal.
  bool append = false;          ///< Resumed run: append to the files (see resume_metrics).
  metrics_totals start;         ///< Totals carried over by a resumed run.
  /// Told of each step line and evaluation once written (e.g. the metrics endpoint).
  std::shared_ptr<run_observer> observer;
  logger_ptr log;               ///< Steps (debug) and evaluations (info); unset = stderr.
  /// Gets (stop_atom, "metrics: FILE: cannot write: REASON") at the first failed write,
  /// which ends the run; unset = the failure is only in the replies to save and flush.
  caf::actor supervisor;
};

/// Spawns the metrics sink (cooperative; file appends are short). Every write is
/// checked (base/append_file.hpp): at the first that fails (a full disk, a file size
/// limit) the files are left ending with their last complete line, nothing more is
/// written, the supervisor is told, and save_atom and flush_atom reply with that error.
metrics_actor spawn_metrics(caf::actor_system& sys, metrics_setup setup);

}  // namespace adarl
