#pragma once
// Ctrl-C for long jobs (`adarl run`, `adarl compare`): the first SIGINT asks the job to
// stop cleanly, a second one ends the process at once.

#include <atomic>

namespace adarl {

/// While alive, SIGINT sets flag() instead of killing the process (the previous handler
/// comes back at destruction). One at a time per process.
class sigint_guard {
 public:
  sigint_guard();
  ~sigint_guard();
  sigint_guard(const sigint_guard&) = delete;
  sigint_guard& operator=(const sigint_guard&) = delete;

  /// Set by the first Ctrl-C.
  static const std::atomic<bool>& flag();

 private:
  void (*previous_)(int);
};

}  // namespace adarl
