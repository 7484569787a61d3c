#pragma once
// Ctrl-C for long jobs (`adarl run`, `adarl compare`, `adarl worker`): the first SIGINT
// or SIGTERM asks the job to stop cleanly, a second one ends the process at once.

#include <atomic>

namespace adarl {

/// While alive, SIGINT and SIGTERM set flag() instead of killing the process (the
/// previous handlers come back at destruction). One at a time per process.
class sigint_guard {
 public:
  sigint_guard();
  ~sigint_guard();
  sigint_guard(const sigint_guard&) = delete;
  sigint_guard& operator=(const sigint_guard&) = delete;

  /// Set by the first Ctrl-C (or SIGTERM).
  static const std::atomic<bool>& flag();

 private:
  void (*previous_)(int);
  void (*previous_term_)(int);
};

}  // namespace adarl
