#pragma once
// The socket a coordinator's remote workers connect to (verifiers and generators):
// a ZeroMQ ROUTER bound to an endpoint, optionally encrypted with CURVE, optionally
// admitting only the workers whose public key is on a client list (a ZAP handler in
// the same I/O loop). Shared by the hubs (net/verify_hub, net/generate_hub).
// Not thread-safe: one owner, the hub's I/O thread (except construction and endpoint()).

#include <zmq.hpp>

#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "net/remote_wire.hpp"

namespace adarl {

class worker_socket {
 public:
  struct options {
    std::string bind;                    ///< e.g. "tcp://*:5557"; "tcp://127.0.0.1:*" picks a port.
    std::optional<curve_keys> curve;     ///< The run's keys: encrypt the link.
    std::vector<std::string> clients;    ///< Z85 public keys let in; empty = any.
    std::string what = "remote workers"; ///< For messages: "remote verifiers", ...
  };

  /// Binds now (a bad or busy endpoint is an error naming it). Messages are capped at
  /// 64 MiB (a peer cannot exhaust memory); an unreachable worker makes send() fail
  /// (ROUTER_MANDATORY); a reconnecting worker keeps its identity (ROUTER_HANDOVER).
  static result<std::unique_ptr<worker_socket>> open(options o);

  /// The endpoint bound, with the port resolved.
  const std::string& endpoint() const { return endpoint_; }
  zmq::socket_t& router() { return router_; }
  /// The ZAP socket to poll beside the router; null without a client list.
  zmq::socket_t* zap() { return zap_ ? &zap_ : nullptr; }

  /// A message a worker sent: its identity and its header frame, decoded.
  struct incoming {
    std::string id;
    result<remote_message> message;
  };
  /// The next message queued, without waiting; nullopt when none is (or the socket
  /// failed). Up to `data_frames` frames may follow the header (received and dropped:
  /// no worker message carries data to the coordinator yet); a message with more is
  /// drained whole and comes back as an error.
  std::optional<incoming> receive(int data_frames = 0);
  /// For a message that did not decode: when it is another adarl version's protocol, the
  /// worker is told why (a refusal naming both versions) and this returns true; false
  /// for a merely malformed message, which gets no answer.
  bool refuse_other_version(const std::string& id, const error& e);

  /// Sends one frame to a worker without blocking; false when it cannot be reached.
  bool send(const std::string& id, const std::string& payload);
  /// Sends a header frame and a data frame (zero-copy where the caller built `data` so).
  bool send(const std::string& id, const std::string& header, zmq::message_t& data);
  /// Answers the ZAP requests waiting now: CURVE with a public key on the list, or
  /// refused (told to `warn` with the offered key, the first 10 times).
  void authenticate(const std::function<void(const std::string&)>& warn);
  /// Connections refused by the client list so far.
  uint64_t refused() const { return refused_; }

 private:
  zmq::context_t ctx_{1};
  zmq::socket_t zap_;
  zmq::socket_t router_;
  std::string endpoint_;
  std::set<std::string> clients_;  ///< Allowed public keys, 32 bytes each.
  uint64_t refused_ = 0;
};

}  // namespace adarl
