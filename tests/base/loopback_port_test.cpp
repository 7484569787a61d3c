#include "base/loopback_port.hpp"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

namespace adarl {
namespace {

// Binds 127.0.0.1:port with a fresh socket; whether the kernel took it.
bool binds(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(uint16_t(port));
  const bool ok = ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  ::close(fd);
  return ok;
}

TEST(LoopbackPortTest, ThePortIsANonZeroOneThatCanBeBoundAtOnce) {
  const int port = free_loopback_port();
  EXPECT_GT(port, 0);
  EXPECT_LT(port, 65536);
  EXPECT_TRUE(binds(port));  // released again, not held
}

}  // namespace
}  // namespace adarl
