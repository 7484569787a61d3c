#pragma once
// Who scores which batch when verifiers run as remote workers (docs/design.md "Beyond one
// machine"): a queue of batches, workers that announce how many batches they take at
// once (credit), leases kept alive by heartbeats, re-issue of a lost worker's batches,
// and local scoring of a batch no worker takes in time. Pure bookkeeping over batch ids
// and worker names; the transport (net/verify_hub) moves the bytes. Time is a
// parameter in seconds.

#include <cstdint>
#include <deque>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace adarl {

struct remote_pool_config {
  double heartbeat = 0.5;    ///< Seconds between heartbeats to an idle worker.
  double timeout = 3.0;      ///< A worker silent this long is lost; its batches go back.
  double local_after = 1.0;  ///< A batch no worker took for this long is scored locally.
  double lease = 60.0;       ///< A batch a live worker holds this long goes back too.
  uint32_t attempts = 3;     ///< Sends of one batch before it is scored locally instead.
};

/// What the transport does after an event or a poll.
struct remote_actions {
  std::vector<std::pair<uint64_t, std::string>> send;  ///< (batch, worker): send it there.
  std::vector<uint64_t> local;                          ///< Score these locally.
  std::vector<std::string> heartbeat;                   ///< Send these a heartbeat.
  std::vector<std::string> lost;                        ///< Workers given up (log them).
};

/// Counters of a pool's life.
struct remote_pool_stats {
  uint64_t submitted = 0;
  uint64_t sent = 0;          ///< Sends, re-issues included.
  uint64_t returned = 0;      ///< Results accepted (each batch once).
  uint64_t stale = 0;         ///< Results for a batch not (or no longer) at that worker.
  uint64_t reissued = 0;      ///< Batches taken back from a lost or restarted worker, or
                              ///< held past their lease.
  uint64_t local = 0;         ///< Batches scored locally (no worker in time, or out of
                              ///< attempts).
  uint64_t workers_lost = 0;
};

class remote_pool {
 public:
  explicit remote_pool(remote_pool_config config = {});

  /// A worker says hello with the number of batches it takes at once (>= 1). A known
  /// name saying hello again has restarted: what it held goes back to the queue.
  remote_actions hello(const std::string& worker, uint32_t credit, double now);
  /// Any message from a worker keeps it alive.
  void heard(const std::string& worker, double now);
  /// A worker returns a batch. True when the result is to be used: the batch was out
  /// at that worker. False for a stale result (re-issued meanwhile, already returned,
  /// unknown): drop it. Either way the worker's freed credit may take the next batch.
  bool returned(const std::string& worker, uint64_t batch, double now, remote_actions& out);
  /// A worker says goodbye: its batches go back to the queue.
  remote_actions bye(const std::string& worker, double now);
  /// A new batch enters the queue; returns its id (ids start at 1).
  uint64_t submit(double now, remote_actions& out);
  /// Time passes: lost workers, expired leases, local fallback, heartbeats due. A batch
  /// taken back after `attempts` sends is scored locally rather than sent again.
  remote_actions poll(double now);

  /// Seconds from `now` to the next thing poll() would do (heartbeat, timeout, fallback).
  double next_due(double now) const;
  size_t workers() const { return workers_.size(); }
  bool knows(const std::string& worker) const { return workers_.count(worker) > 0; }
  size_t queued() const { return queue_.size(); }
  size_t out() const { return out_.size(); }
  const remote_pool_stats& stats() const { return stats_; }

 private:
  struct worker {
    uint32_t credit = 1;
    std::set<uint64_t> holding;
    double last_heard = 0;
    double last_sent = 0;
  };
  struct waiting {
    uint64_t batch;
    double since;
  };
  /// Back to the front of the queue, or to `out.local` when it has used its attempts.
  void requeue(uint64_t batch, double now, remote_actions& out);
  void take_back(worker& w, double now, remote_actions& out);
  void dispatch(double now, remote_actions& out);

  remote_pool_config config_;
  std::map<std::string, worker> workers_;
  std::deque<waiting> queue_;
  struct lent {
    std::string worker;
    double since;
  };
  std::map<uint64_t, lent> out_;  ///< batch -> the worker holding it, since when.
  std::map<uint64_t, uint32_t> sends_;  ///< batch -> times sent (until it is done).
  uint64_t next_batch_ = 1;
  remote_pool_stats stats_;
};

}  // namespace adarl
