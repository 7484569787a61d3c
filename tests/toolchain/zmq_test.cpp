// ZeroMQ with cppzmq: a ROUTER/DEALER round trip over tcp loopback.
#include <gtest/gtest.h>

#include <zmq.hpp>

TEST(ZmqToolchainTest, RouterDealerRoundTripOverLoopback) {
  zmq::context_t ctx{1};
  zmq::socket_t router{ctx, zmq::socket_type::router};
  router.set(zmq::sockopt::linger, 0);
  router.bind("tcp://127.0.0.1:*");
  const auto endpoint = router.get(zmq::sockopt::last_endpoint);
  zmq::socket_t dealer{ctx, zmq::socket_type::dealer};
  dealer.set(zmq::sockopt::linger, 0);
  dealer.set(zmq::sockopt::routing_id, "worker-1");
  dealer.connect(endpoint);
  router.set(zmq::sockopt::rcvtimeo, 5000);
  dealer.set(zmq::sockopt::rcvtimeo, 5000);

  ASSERT_TRUE(dealer.send(zmq::str_buffer("ping"), zmq::send_flags::none));
  zmq::message_t id, body;
  ASSERT_TRUE(router.recv(id));
  ASSERT_TRUE(router.recv(body));
  EXPECT_EQ(id.to_string(), "worker-1");
  EXPECT_EQ(body.to_string(), "ping");

  router.send(id, zmq::send_flags::sndmore);
  router.send(zmq::str_buffer("pong"), zmq::send_flags::none);
  zmq::message_t reply;
  ASSERT_TRUE(dealer.recv(reply));
  EXPECT_EQ(reply.to_string(), "pong");
}

TEST(ZmqToolchainTest, CurveIsAvailable) {
  // CURVE authentication for remote workers needs libzmq built with libsodium.
  EXPECT_EQ(zmq_has("curve"), 1);
}
