#pragma once
// Ctrl-C for long jobs (`adarl run`, `adarl compare`, `adarl tasks select`, the
// workers): the first SIGINT or SIGTERM asks the job to stop cleanly, a second one ends
// the process at once (exit status 130).

#include <atomic>

namespace adarl {

/// While alive, SIGINT and SIGTERM set flag() instead of ending the process. The
/// outermost guard of a process installs the handlers and clears flag(); a guard made
/// while another lives (a job inside a command that holds one) shares them and clears
/// nothing, so a stop asked before it is not lost; the outermost one puts the previous
/// dispositions back at destruction. Construct and destroy guards on one thread.
///
/// The handlers are installed even when the process inherited SIGINT as ignored: a
/// non-interactive shell starts `adarl run ... &` so (scripts/cluster-local.sh), to keep
/// a Ctrl-C meant for the foreground away from background jobs. adarl decides otherwise
/// on purpose: a SIGINT that reaches it, from `kill -INT` or from the terminal of the
/// script's process group, stops it cleanly (a checkpoint, exit status 130) instead of
/// being lost while the run goes on to its end.
class sigint_guard {
 public:
  sigint_guard();
  ~sigint_guard();
  sigint_guard(const sigint_guard&) = delete;
  sigint_guard& operator=(const sigint_guard&) = delete;

  /// Set by the first SIGINT or SIGTERM while a guard lives; cleared by the outermost
  /// guard's construction. Safe to read from any thread.
  static const std::atomic<bool>& flag();
};

}  // namespace adarl
