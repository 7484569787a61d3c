#pragma once
// Verifiers on other machines (docs/design.md "Beyond one machine"): a hub that listens on a
// ZeroMQ ROUTER socket for worker processes (`adarl worker verify`, or any program that
// speaks net/remote_wire.hpp), and a verifier actor that hands the hub its batches.
// The hub sends each batch to a worker with free credit, keeps workers alive with
// heartbeats, takes a lost worker's batches back and sends them elsewhere, drops late
// duplicates, and has a local verifier score any batch no worker took in time: a run
// never waits on, or loses work to, a missing worker.

#include <caf/fwd.hpp>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "actors/verifier.hpp"
#include "algorithms/remote_pool.hpp"
#include "messages/interfaces.hpp"
#include "net/remote_wire.hpp"

namespace adarl {

struct remote_verifier_setup {
  std::string bind;                            ///< ZeroMQ endpoint, e.g. "tcp://*:5557".
  remote_pool_config pool;
  verifier_setup scoring;                      ///< Prompts, tokenizer, tracker (results go there).
  std::vector<verifier_actor> local;           ///< Fallback scorers (round-robin).
  std::function<void(const std::string&)> warn;  ///< Lost workers, malformed messages.
  /// CURVE: with the run's keys the link is encrypted and a worker must know the run's
  /// public key; with a client list too, only workers whose public key is on it get in.
  std::optional<curve_keys> curve;
  std::vector<std::string> curve_clients;     ///< Z85 public keys; empty = any worker.
};

/// The counters of a hub, for its closing line.
struct remote_verifier_stats {
  remote_pool_stats pool;
  uint64_t malformed = 0;   ///< Messages that could not be decoded (ignored).
  uint64_t bad_results = 0; ///< Unusable verdicts: wrong length, reward outside [0, 1],
                            ///< ... (that batch is scored locally instead).
  uint64_t other_session = 0; ///< Answers for another run's batches (dropped).
  uint64_t refused = 0;     ///< Connections refused: public key not on the client list.
  uint64_t workers = 0;     ///< Workers connected now.
};

class remote_hub;

/// The hub: owns the socket and its I/O thread from open to destruction (joins it).
/// Thread-safe: submit() may be called from any thread.
class remote_verifier_hub {
 public:
  /// Binds the endpoint now, so that a bad or busy address is an error before the run.
  static result<std::shared_ptr<remote_verifier_hub>> open(remote_verifier_setup setup);
  ~remote_verifier_hub();
  /// The endpoint bound, with the port resolved ("tcp://0.0.0.0:41234").
  const std::string& endpoint() const;
  /// Queues a batch: a worker scores it, or a local verifier after `local_after`.
  /// Ignored once closed.
  void submit(std::vector<completion> batch);
  /// Stops and joins the I/O thread (idempotent; the destructor calls it). Call it
  /// before the actors it sends to go away.
  void close();
  remote_verifier_stats stats() const;

 private:
  explicit remote_verifier_hub(std::unique_ptr<remote_hub> impl);
  std::unique_ptr<remote_hub> impl_;
};

/// A verifier actor that hands every batch to the hub (cooperative: submit never blocks)
/// and the credit that came with it straight back to `tracker`.
verifier_actor spawn_remote_verifier(caf::actor_system& sys,
                                     std::shared_ptr<remote_verifier_hub> hub,
                                     result_sink_actor tracker);

}  // namespace adarl
