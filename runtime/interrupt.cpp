#include "runtime/interrupt.hpp"

#include <csignal>
#include <cstdlib>

namespace adarl {

namespace {

std::atomic<bool> stop_requested{false};

extern "C" void on_sigint(int) {
  // A second Ctrl-C ends the process at once.
  if (stop_requested.exchange(true)) std::_Exit(130);
}

}  // namespace

sigint_guard::sigint_guard() {
  stop_requested = false;
  previous_ = std::signal(SIGINT, on_sigint);
  previous_term_ = std::signal(SIGTERM, on_sigint);
}

sigint_guard::~sigint_guard() {
  std::signal(SIGINT, previous_);
  std::signal(SIGTERM, previous_term_);
}

const std::atomic<bool>& sigint_guard::flag() { return stop_requested; }

}  // namespace adarl
