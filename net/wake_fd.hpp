#pragma once
// An eventfd that any thread can signal and a ZeroMQ poll loop can wait on beside its
// sockets (zmq_pollitem_t with fd()): how work handed over under a mutex wakes the
// loop that owns a socket (sockets are not thread-safe). Linux.

#include <sys/eventfd.h>
#include <unistd.h>

#include <cstdint>

namespace adarl {

class wake_fd {
 public:
  wake_fd() : fd_(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) {}
  ~wake_fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  wake_fd(const wake_fd&) = delete;
  wake_fd& operator=(const wake_fd&) = delete;

  /// False when the eventfd could not be made.
  bool ok() const { return fd_ >= 0; }
  int fd() const { return fd_; }
  /// Wakes the poll loop; thread-safe, never blocks.
  void signal() const {
    const uint64_t one = 1;
    if (fd_ < 0) return;
    [[maybe_unused]] const auto n = ::write(fd_, &one, sizeof one);
  }
  /// Resets it, in the poll loop, before taking the work handed over.
  void clear() const {
    uint64_t count = 0;
    if (fd_ < 0) return;
    [[maybe_unused]] const auto n = ::read(fd_, &count, sizeof count);
  }

 private:
  int fd_;
};

}  // namespace adarl
