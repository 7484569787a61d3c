#pragma once
// A remote verifier worker (`adarl worker verify`): connects to a coordinator's
// remote-verifier endpoint (net/verify_hub.hpp), scores the batches it is sent
// with the built-in verifiers, answers heartbeats, and says hello again when the
// coordinator goes silent (a restarted run finds its workers). Wire format:
// net/remote_wire.hpp.

#include <atomic>
#include <cstdint>
#include <iosfwd>
#include <string>

#include "base/result.hpp"
#include "tasks/verifier_registry.hpp"

namespace adarl {

struct verify_worker_options {
  std::string connect;      ///< The coordinator's endpoint, e.g. "tcp://host:5557".
  std::string name;         ///< Unique per worker; "" = host name and process id.
  uint32_t credit = 2;      ///< Batches the coordinator may send before an answer.
  double heartbeat = 0.5;   ///< Seconds between heartbeats.
  double timeout = 3.0;     ///< Coordinator silent this long: connect and say hello again.
  uint32_t threads = 0;     ///< Scoring threads (TBB) within a batch; 0 = all cores.
  std::string server_key;   ///< The run's CURVE public key (Z85); "" = no encryption.
  std::string keys_file;    ///< This worker's CURVE keys (adarl worker keygen); "" with a
                            ///< server key = a fresh pair per start (encrypted, anonymous).
};

struct verify_worker_stats {
  uint64_t batches = 0;     ///< Batches scored and answered.
  uint64_t items = 0;       ///< Completions scored.
  uint64_t malformed = 0;   ///< Messages that could not be decoded (skipped).
  uint64_t reconnects = 0;  ///< Hellos after the first.
};

/// The worker's default name: "<host>-<pid>".
std::string default_worker_name();

/// Runs until `stop` is set, then says bye. An endpoint ZeroMQ cannot connect to is an
/// error; everything after that (a malformed message, an unknown verifier, a verifier
/// that throws, a coordinator that goes away) is logged or scored, never fatal.
result<verify_worker_stats> run_verify_worker(const verify_worker_options& options,
                                              const verifier_registry& registry,
                                              const std::atomic<bool>& stop, std::ostream* log);

}  // namespace adarl
