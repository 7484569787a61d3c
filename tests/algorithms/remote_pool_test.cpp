// The remote verifier pool's bookkeeping: credit, re-issue, stale results, fallback.
#include "algorithms/remote_pool.hpp"

#include <gtest/gtest.h>

namespace adarl {
namespace {

using sends = std::vector<std::pair<uint64_t, std::string>>;

remote_pool_config config() {
  remote_pool_config c;
  c.heartbeat = 0.5;
  c.timeout = 3.0;
  c.local_after = 1.0;
  c.lease = 20.0;
  return c;
}

TEST(RemotePoolTest, BatchesGoToWorkersWithCreditAndWaitOtherwise) {
  remote_pool p(config());
  remote_actions a;
  EXPECT_EQ(p.submit(0.0, a), 1u);
  EXPECT_TRUE(a.send.empty());  // no worker yet
  auto h = p.hello("w1", 2, 0.1);
  EXPECT_EQ(h.send, (sends{{1, "w1"}}));
  remote_actions b;
  p.submit(0.2, b);
  p.submit(0.2, b);
  EXPECT_EQ(b.send, (sends{{2, "w1"}}));  // credit 2: the third waits
  EXPECT_EQ(p.queued(), 1u);
  EXPECT_EQ(p.out(), 2u);
  remote_actions r;
  EXPECT_TRUE(p.returned("w1", 1, 0.3, r));
  EXPECT_EQ(r.send, (sends{{3, "w1"}}));  // the freed credit takes the next
  EXPECT_EQ(p.queued(), 0u);
}

TEST(RemotePoolTest, TheWorkerWithTheMostFreeCreditIsChosen) {
  remote_pool p(config());
  p.hello("small", 1, 0.0);
  p.hello("big", 3, 0.0);
  remote_actions a;
  for (int i = 0; i < 4; ++i) p.submit(0.1, a);
  // big (3 free) , big (2) , then a tie at 1: small was sent to longest ago.
  EXPECT_EQ(a.send, (sends{{1, "big"}, {2, "big"}, {3, "small"}, {4, "big"}}));
}

TEST(RemotePoolTest, ALostWorkersBatchesGoToAnotherAndItsLateResultIsStale) {
  remote_pool p(config());
  p.hello("a", 1, 0.0);
  remote_actions s;
  p.submit(0.0, s);
  ASSERT_EQ(s.send, (sends{{1, "a"}}));
  p.hello("b", 1, 0.0);
  // b keeps talking, a goes silent.
  p.heard("b", 2.9);
  auto at3 = p.poll(3.0);
  EXPECT_EQ(at3.lost, std::vector<std::string>{"a"});
  EXPECT_EQ(at3.send, (sends{{1, "b"}}));
  EXPECT_EQ(p.workers(), 1u);
  remote_actions r;
  EXPECT_FALSE(p.returned("a", 1, 3.1, r));  // a's late answer: dropped
  EXPECT_TRUE(p.returned("b", 1, 3.2, r));
  EXPECT_FALSE(p.returned("b", 1, 3.3, r));  // a duplicate: dropped
  EXPECT_EQ(p.stats().reissued, 1u);
  EXPECT_EQ(p.stats().returned, 1u);
  EXPECT_EQ(p.stats().stale, 2u);
  EXPECT_EQ(p.stats().workers_lost, 1u);
}

TEST(RemotePoolTest, ARestartedWorkerGetsItsBatchesAgain) {
  remote_pool p(config());
  p.hello("w", 2, 0.0);
  remote_actions s;
  p.submit(0.0, s);
  p.submit(0.0, s);
  auto again = p.hello("w", 2, 1.0);  // the process restarted under the same name
  EXPECT_EQ(again.send, (sends{{1, "w"}, {2, "w"}}));  // same order as before
  EXPECT_EQ(p.stats().reissued, 2u);
}

TEST(RemotePoolTest, ByeReturnsBatchesToTheQueue) {
  remote_pool p(config());
  p.hello("w", 1, 0.0);
  remote_actions s;
  p.submit(0.0, s);
  auto b = p.bye("w", 0.5);
  EXPECT_TRUE(b.send.empty());
  EXPECT_EQ(p.queued(), 1u);
  EXPECT_EQ(p.workers(), 0u);
}

TEST(RemotePoolTest, ABatchNobodyTakesIsScoredLocallyAfterItsWait) {
  remote_pool p(config());
  remote_actions s;
  p.submit(0.0, s);
  p.submit(0.6, s);
  EXPECT_NEAR(p.next_due(0.0), 1.0, 1e-12);
  EXPECT_TRUE(p.poll(0.9).local.empty());
  EXPECT_EQ(p.poll(1.0).local, std::vector<uint64_t>{1});
  EXPECT_EQ(p.poll(1.6).local, std::vector<uint64_t>{2});
  EXPECT_EQ(p.stats().local, 2u);
  EXPECT_EQ(p.queued(), 0u);
}

TEST(RemotePoolTest, ReissuedBatchesGetAFreshWaitAndDoNotBlockOlderOnes) {
  remote_pool p(config());
  p.hello("a", 1, 0.0);
  remote_actions s;
  p.submit(0.0, s);  // to a
  p.submit(0.0, s);  // waits
  auto lost = p.poll(3.0);  // a lost: batch 1 back at the front, fresh wait
  EXPECT_EQ(lost.lost, std::vector<std::string>{"a"});
  EXPECT_EQ(lost.local, std::vector<uint64_t>{2});  // waited 3 s already
  EXPECT_TRUE(p.poll(3.5).local.empty());
  EXPECT_EQ(p.poll(4.0).local, std::vector<uint64_t>{1});
}

TEST(RemotePoolTest, HeartbeatsGoToWorkersNotSentToLately) {
  remote_pool p(config());
  p.hello("a", 1, 0.0);
  p.hello("b", 1, 0.3);
  EXPECT_NEAR(p.next_due(0.0), 0.5, 1e-12);
  EXPECT_EQ(p.poll(0.5).heartbeat, std::vector<std::string>{"a"});
  EXPECT_EQ(p.poll(0.8).heartbeat, std::vector<std::string>{"b"});
  EXPECT_TRUE(p.poll(0.9).heartbeat.empty());
  // Heard from regularly, a worker is never lost.
  for (double t = 1.0; t < 10; t += 1.0) {
    p.heard("a", t);
    p.heard("b", t);
    EXPECT_TRUE(p.poll(t).lost.empty());
  }
}

TEST(RemotePoolTest, ABatchHeldPastItsLeaseByALiveWorkerGoesBack) {
  remote_pool p(config());
  p.hello("stuck", 1, 0.0);
  remote_actions s;
  p.submit(0.0, s);
  ASSERT_EQ(s.send, (sends{{1, "stuck"}}));
  p.hello("ok", 1, 1.0);
  for (double t = 1.0; t < 20.0; t += 1.0) {  // both alive, nothing happens
    p.heard("stuck", t);
    p.heard("ok", t);
    EXPECT_TRUE(p.poll(t).send.empty()) << t;
  }
  p.heard("stuck", 20.0);
  p.heard("ok", 20.0);
  auto at20 = p.poll(20.0);
  ASSERT_EQ(at20.send.size(), 1u);
  EXPECT_EQ(at20.send[0].first, 1u);
  EXPECT_TRUE(at20.lost.empty());  // still alive: only the batch moved
  remote_actions r;
  const std::string other = at20.send[0].second == "ok" ? "stuck" : "ok";
  EXPECT_FALSE(p.returned(other, 1, 20.5, r));  // the first holder answers too late
  EXPECT_TRUE(p.returned(at20.send[0].second, 1, 20.6, r));
  EXPECT_EQ(p.stats().reissued, 1u);
}

TEST(RemotePoolTest, ABatchTakenBackAfterItsLastAttemptIsScoredLocally) {
  auto c = config();
  c.attempts = 2;
  remote_pool p(c);
  p.hello("w", 1, 0.0);
  remote_actions s;
  p.submit(0.0, s);
  ASSERT_EQ(s.send, (sends{{1, "w"}}));
  auto again = p.hello("w", 1, 1.0);  // restarted: sent a second time
  EXPECT_EQ(again.send, (sends{{1, "w"}}));
  EXPECT_TRUE(again.local.empty());
  auto third = p.hello("w", 1, 2.0);  // and again: out of attempts
  EXPECT_TRUE(third.send.empty());
  EXPECT_EQ(third.local, std::vector<uint64_t>{1});
  remote_actions r;
  EXPECT_FALSE(p.returned("w", 1, 2.5, r));  // any answer now is stale
  EXPECT_EQ(p.stats().local, 1u);
  EXPECT_EQ(p.queued(), 0u);
  EXPECT_EQ(p.out(), 0u);
}

TEST(RemotePoolTest, ZeroCreditCountsAsOne) {
  remote_pool p(config());
  EXPECT_TRUE(p.hello("w", 0, 0.0).send.empty());
  remote_actions s;
  p.submit(0.0, s);
  EXPECT_EQ(s.send, (sends{{1, "w"}}));
}

}  // namespace
}  // namespace adarl
