#pragma once
// A small HTTP/1.1 service that no client can hold up (runtime/metrics_http uses it):
// its own accept loop, a bounded pool of threads, and one total deadline per
// connection, from the moment a thread takes it to its close, that no trickle of bytes
// extends (cpp-httplib 0.11's own server has only a timeout per recv(), which each byte
// resets, so one slow client held a one-thread server for as long as it liked). The
// routes are cpp-httplib's (routes()); each connection carries one request and is closed
// after the answer (`Connection: close`).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "base/result.hpp"

namespace httplib {
class Server;
}

namespace adarl {

/// How much of the service one client may take (docs/guides/watching.md "Watching a run").
struct http_limits {
  uint32_t threads = 4;          ///< Connections answered at once.
  uint32_t queue = 64;           ///< Accepted connections waiting for a thread; more are closed.
  double request_seconds = 3;    ///< Whole life of a connection on its thread: request and answer.
  size_t request_bytes = 16384;  ///< Most bytes read from one connection (request line, headers).
};

/// A bound socket and, once serve() is called, the threads that answer on it.
/// Thread-safe: routes() before serve(), stop() from any thread.
class bounded_http_server {
 public:
  /// Binds HOST:PORT now (port 0: a free one), so that a bad or busy address is an
  /// error before anything runs: "cannot listen on LISTEN (REASON)".
  static result<std::unique_ptr<bounded_http_server>> bind(const std::string& host, int port,
                                                           const std::string& listen,
                                                           http_limits limits = {});
  ~bounded_http_server();  ///< Stops (see stop()).
  bounded_http_server(const bounded_http_server&) = delete;
  bounded_http_server& operator=(const bounded_http_server&) = delete;

  /// The routes (Get(...)); set them before serve().
  httplib::Server& routes();
  /// The port as bound.
  int port() const;
  /// Starts the accept loop and the pool. Returns at once.
  void serve();
  /// Closes the socket, aborts every connection in progress (a handler already running
  /// finishes, its answer is dropped) and joins the threads. Never waits on a client:
  /// it returns within the time a handler takes (a few milliseconds for a page of a few
  /// kB). Idempotent.
  void stop();

 private:
  struct impl;
  explicit bounded_http_server(std::unique_ptr<impl> p);
  std::unique_ptr<impl> impl_;
};

}  // namespace adarl
