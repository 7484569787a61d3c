#include "runtime/interrupt.hpp"

#include <csignal>
#include <cstdlib>

namespace adarl {

namespace {

std::atomic<bool> stop_requested{false};
int depth = 0;  ///< Guards alive (one thread constructs and destroys them).
struct sigaction previous_int, previous_term;

extern "C" void on_stop_signal(int) {
  // A second signal ends the process at once.
  if (stop_requested.exchange(true)) std::_Exit(130);
}

}  // namespace

sigint_guard::sigint_guard() {
  if (depth++ > 0) return;
  stop_requested = false;
  struct sigaction a {};
  a.sa_handler = on_stop_signal;
  sigemptyset(&a.sa_mask);
  a.sa_flags = SA_RESTART;
  // Installed whatever the inherited disposition, SIG_IGN included (see the header).
  sigaction(SIGINT, &a, &previous_int);
  sigaction(SIGTERM, &a, &previous_term);
}

sigint_guard::~sigint_guard() {
  if (--depth > 0) return;
  sigaction(SIGINT, &previous_int, nullptr);
  sigaction(SIGTERM, &previous_term, nullptr);
}

const std::atomic<bool>& sigint_guard::flag() { return stop_requested; }

}  // namespace adarl
