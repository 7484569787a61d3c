#pragma once
// The shell both coordinator hubs share (net/generate_hub.hpp, net/verify_hub.hpp): the
// worker socket and the I/O thread that owns it. The thread polls the socket beside a
// wake fd (work other threads hand over) and the CURVE authenticator, calls the hub's
// handlers, never lets an exception end the run, and stops and joins on close().

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "base/result.hpp"
#include "net/wake_fd.hpp"
#include "net/worker_socket.hpp"

namespace adarl {

class hub_thread {
 public:
  /// What the hub does on its I/O thread. Every handler may be empty but `wait`.
  struct handlers {
    std::function<void()> inbox;    ///< The wake fd fired: take what was handed over.
    std::function<void()> receive;  ///< The socket has messages.
    std::function<void()> tick;     ///< After every poll (timers); an exception is warned.
    std::function<void()> after;    ///< After every poll, past the exception guard (stats).
    std::function<void()> finish;   ///< Once, when the loop has stopped.
    std::function<std::chrono::milliseconds()> wait;  ///< The next poll's timeout.
    std::function<void(const std::string&)> warn;     ///< Refused keys, caught exceptions.
  };

  hub_thread() = default;
  hub_thread(const hub_thread&) = delete;
  hub_thread& operator=(const hub_thread&) = delete;
  ~hub_thread() { close(); }

  /// Binds the socket (an error names the endpoint, or "<what>: eventfd failed") and
  /// starts the thread. `wake` must outlive the thread.
  std::optional<error> open(worker_socket::options o, const wake_fd& wake, handlers h);
  /// Stops the thread and joins it (idempotent); `finish` has run when it returns.
  void close();
  bool stopping() const { return stopping_; }
  const std::string& endpoint() const { return socket_->endpoint(); }
  /// The socket; the I/O thread's only (handlers), and endpoint() from anywhere.
  worker_socket& socket() { return *socket_; }

 private:
  void loop();

  std::unique_ptr<worker_socket> socket_;
  const wake_fd* wake_ = nullptr;
  handlers h_;
  std::atomic<bool> stopping_{false};
  std::thread io_;
};

}  // namespace adarl
