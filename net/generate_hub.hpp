#pragma once
// Generators on other machines (docs/design.md "Beyond one machine"; the wire protocol is
// docs/reference/protocol.md): a hub that listens on a ZeroMQ ROUTER socket for worker processes
// (`adarl worker generate`), and actors that make each worker a generator like a local
// one. To the tracker a worker is one generator_actor (a proxy the hub spawns when the
// worker holds the current weights): it announces the worker's credit, takes its orders,
// and its results come back through the verifiers with their credit. Weights: every
// version the learner publishes goes to every worker as bytes in chunks (a content hash
// checked by the worker before use, a bad chunk sent again), only the newest (a version
// superseded while in flight is abandoned), or as a file in a shared directory
// (weights_path). A worker lost (silent past the timeout, unreachable, failed, gone) has
// its orders handed out again at once; results of an earlier connection are dropped.

#include <caf/fwd.hpp>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "actors/prompt_table.hpp"
#include "messages/interfaces.hpp"
#include "net/remote_wire.hpp"

namespace adarl {

/// What the hub is opened with.
struct remote_generator_setup {
  std::string bind;              ///< ZeroMQ endpoint, e.g. "tcp://*:5558".
  double heartbeat = 0.5;        ///< Seconds between heartbeats to each worker.
  double timeout = 10.0;         ///< A worker silent this long is lost.
  uint32_t chunk_bytes = 4u << 20;  ///< Bytes of weights per chunk (frame).
  uint32_t window = 4;           ///< Chunks in flight per worker before its acknowledgements.
  std::optional<curve_keys> curve;          ///< The run's CURVE keys: encrypt the link.
  std::vector<std::string> curve_clients;   ///< Workers' public keys let in; empty = any.
  std::string weights_path;      ///< weights.path: versions as files there ("" = pushed).
  std::string engine;            ///< The engine spec (engines/engine_spec.hpp) as JSON.
  prompt_table_ptr prompts;      ///< Prompt tokens for the orders.
  generator_pool_actor tracker;  ///< The workers' credit and lost orders go there.
  std::vector<verifier_actor> verifiers;  ///< Where results go (round-robin).
  metrics_actor metrics;                  ///< Gets cluster_stats as they change.
  std::function<void(const std::string&)> warn;  ///< Losses, refusals, bad messages.
  std::function<void(const std::string&)> note;  ///< Joins (log file only); unset = warn.
};

class generator_hub_io;

/// The hub: owns the socket and its I/O thread from open to close (joins it). Thread-safe.
class remote_generator_hub {
 public:
  /// Binds now, so that a bad or busy address is an error before the run.
  static result<std::shared_ptr<remote_generator_hub>> open(caf::actor_system& sys,
                                                            remote_generator_setup setup);
  ~remote_generator_hub();
  /// The endpoint bound, with the port resolved.
  const std::string& endpoint() const;
  /// A new policy version for every worker: its bytes are made here (on the caller's
  /// thread: O(parameters)), or written to weights_path. A version not newer than the
  /// last one is ignored; an error is told to `warn`.
  void publish(const weights_ptr& weights);
  /// Stops the I/O thread (idempotent): the proxies end, orders in flight stay lost
  /// (the run is over). Call before the actors it sends to go away.
  void close();
  cluster_stats stats() const;

 private:
  explicit remote_generator_hub(std::unique_ptr<generator_hub_io> io);
  std::unique_ptr<generator_hub_io> io_;
};

/// The actor the learner sends weights to, like a generator (detached: turning big
/// weights into bytes takes a while). It never asks for work.
generator_actor spawn_remote_generators(caf::actor_system& sys,
                                        std::shared_ptr<remote_generator_hub> hub);

}  // namespace adarl
