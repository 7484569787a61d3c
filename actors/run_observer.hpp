#pragma once
// A watcher of a running pipeline: what the metrics sink writes and what the tracker
// says, as they happen (runtime/metrics_http.hpp serves them to Prometheus). It only
// reads: it cannot slow or change the run beyond the time of its own calls.

#include <nlohmann/json_fwd.hpp>

#include "messages/messages.hpp"

namespace adarl {

/// Told of a run's figures. Every call may come from another thread (the metrics sink's,
/// the pipeline's supervisor): an implementation is thread-safe and quick (it copies,
/// it does not block on I/O).
class run_observer {
 public:
  virtual ~run_observer() = default;
  /// A step line as written to metrics.jsonl (step_json), after it was written.
  virtual void on_step(const nlohmann::json& line) = 0;
  /// An evaluation as written to eval.jsonl (evaluations may finish out of order).
  virtual void on_eval(const eval_report& report) = 0;
  /// The tracker's counters, about once a second.
  virtual void on_tracker(const tracker_status& status) = 0;
};

}  // namespace adarl
