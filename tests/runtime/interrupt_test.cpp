// interrupt: the stop flag of Ctrl-C and SIGTERM. The handler is installed even over an
// inherited SIG_IGN (a job a script started with `&`), nested guards keep a stop asked
// before them, and the outermost guard puts the previous disposition back.
#include "runtime/interrupt.hpp"

#include <gtest/gtest.h>

#include <csignal>

namespace adarl {
namespace {

/// The handler SIGNO has now.
void (*handler_of(int signo))(int) {
  struct sigaction now {};
  sigaction(signo, nullptr, &now);
  return now.sa_handler;
}

TEST(InterruptTest, AnInheritedIgnoredSigintStillStopsTheJob) {
  std::signal(SIGINT, SIG_IGN);  // as a non-interactive shell starts `adarl run ... &`
  {
    sigint_guard guard;
    EXPECT_FALSE(sigint_guard::flag().load());
    std::raise(SIGINT);
    EXPECT_TRUE(sigint_guard::flag().load());
  }
  EXPECT_EQ(handler_of(SIGINT), SIG_IGN);  // put back
  std::signal(SIGINT, SIG_DFL);
}

TEST(InterruptTest, SigtermStopsTheJobToo) {
  sigint_guard guard;
  std::raise(SIGTERM);
  EXPECT_TRUE(sigint_guard::flag().load());
}

TEST(InterruptTest, ANestedGuardKeepsAStopAskedBeforeIt) {
  sigint_guard outer;
  std::raise(SIGINT);  // during the warm start, say
  {
    sigint_guard inner;  // the measurement of a prompt selection
    EXPECT_TRUE(sigint_guard::flag().load()) << "the inner guard cleared an earlier stop";
  }
  EXPECT_TRUE(sigint_guard::flag().load());
  EXPECT_NE(handler_of(SIGINT), SIG_DFL) << "the inner guard took the outer one's handler";
  EXPECT_NE(handler_of(SIGINT), SIG_IGN);
}

TEST(InterruptTest, AFreshOutermostGuardStartsCleared) {
  {
    sigint_guard first;
    std::raise(SIGTERM);
  }
  sigint_guard second;
  EXPECT_FALSE(sigint_guard::flag().load());
}

}  // namespace
}  // namespace adarl
