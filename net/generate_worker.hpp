#pragma once
// A remote generator worker (`adarl worker generate`): connects to a run's
// remote-generator endpoint (net/generate_hub.hpp; protocol: docs/reference/protocol.md),
// builds the run's generation engine from the spec the run sends, takes every policy
// version (chunks checked against their hashes, or a file in a shared directory), and
// decodes the orders it is sent with continuous batching: inside, a generator actor
// like a local one (the same credits, weight switches between decoding steps, version
// pins). It answers heartbeats, and says hello again when the run goes silent (a
// restarted run finds its workers).

#include <atomic>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <string>

#include "base/result.hpp"
#include "engines/engine.hpp"
#include "engines/engine_spec.hpp"

namespace adarl {

struct generate_worker_options {
  std::string connect;       ///< The run's endpoint, e.g. "tcp://host:5558".
  std::string name;          ///< Unique per worker; "" = host name, pid, random suffix.
  uint32_t capacity = 0;     ///< Rows decoded together; 0 = the run's generator_capacity.
  double heartbeat = 0.5;    ///< Seconds between heartbeats.
  double timeout = 10.0;     ///< Run silent this long: connect and say hello again.
  std::string server_key;    ///< The run's CURVE public key (Z85); "" = no encryption.
  std::string keys_file;     ///< This worker's CURVE keys; "" with a server key = fresh.
  std::string weights_dir;   ///< Where the run's weights_path is mounted here ("" = the
                             ///< same path as the run's).
};

struct generate_worker_stats {
  uint64_t completions = 0;   ///< Completions returned.
  uint64_t orders = 0;        ///< Orders received.
  uint64_t versions = 0;      ///< Policy versions taken.
  uint64_t weight_bytes = 0;  ///< Bytes of weights received.
  uint64_t bad_chunks = 0;    ///< Chunks refused (hash or size), sent again by the run.
  uint64_t malformed = 0;     ///< Messages that could not be decoded (skipped).
  uint64_t reconnects = 0;    ///< Hellos after the first.
};

/// Builds the engine of a spec (the command passes the LibTorch or simulated one).
/// Called on the worker's generator thread.
using spec_engine_factory =
    std::function<result<std::unique_ptr<generation_engine>>(const engine_spec&)>;

/// Runs until `stop` is set (then says bye), or until the run refuses this worker (an
/// error with the run's reason: another protocol version, the wrong endpoint). An
/// endpoint ZeroMQ cannot connect to is an error; anything else (a malformed message,
/// a damaged chunk, a run that goes away) is logged and recovered from.
result<generate_worker_stats> run_generate_worker(const generate_worker_options& options,
                                                  const spec_engine_factory& make_engine,
                                                  const std::atomic<bool>& stop,
                                                  std::ostream* log);

}  // namespace adarl
