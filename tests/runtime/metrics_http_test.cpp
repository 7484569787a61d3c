// metrics_http: the endpoint binds before the run (a bad or busy address is an error),
// serves the figures the observer calls bring, and stops; a slow client (slow-loris:
// one header byte every half second) neither holds up a scrape nor the stop, and is
// cut at the request deadline however it paces its bytes.
#include "runtime/metrics_http.hpp"

#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <httplib.h>

#include <atomic>
#include <chrono>
#include <thread>

#include <nlohmann/json.hpp>

namespace adarl {
namespace {

/// The port of an endpoint's url (http://127.0.0.1:PORT/metrics).
int port_of(const std::string& url) {
  const auto colon = url.rfind(':');
  return std::stoi(url.substr(colon + 1, url.find('/', colon) - colon - 1));
}

using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point t) {
  return std::chrono::duration<double>(clock_type::now() - t).count();
}

/// A slow-loris client: sends a request line, then one byte of a header every `pace`
/// for at most `for_at_most`, never ending the headers; notes when the server hung up.
class slow_client {
 public:
  slow_client(int port, std::chrono::milliseconds pace, std::chrono::seconds for_at_most) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(uint16_t(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
    const std::string head = "GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: ";
    if (connected_) ::send(fd_, head.data(), head.size(), MSG_NOSIGNAL);
    started_ = clock_type::now();
    thread_ = std::thread([this, pace, for_at_most] { trickle(pace, for_at_most); });
  }
  ~slow_client() {
    quit_ = true;
    thread_.join();
    ::close(fd_);
  }
  bool connected() const { return connected_; }
  /// Seconds from the connection to the server's hang-up; < 0 while it is open.
  double closed_after() const { return closed_after_.load(); }
  /// Waits up to `limit` for the hang-up; closed_after().
  double wait_closed(std::chrono::seconds limit) const {
    const auto end = clock_type::now() + limit;
    while (closed_after() < 0 && clock_type::now() < end)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    return closed_after();
  }

 private:
  void trickle(std::chrono::milliseconds pace, std::chrono::seconds for_at_most) {
    const auto end = started_ + for_at_most;
    while (!quit_ && clock_type::now() < end) {
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, int(pace.count())) > 0) {  // an answer or the hang-up
        char b[256];
        if (::recv(fd_, b, sizeof b, 0) <= 0) break;
        continue;
      }
      if (::send(fd_, "a", 1, MSG_NOSIGNAL) != 1) break;
    }
    if (!quit_ && clock_type::now() < end) closed_after_ = seconds_since(started_);
  }

  int fd_ = -1;
  bool connected_ = false;
  clock_type::time_point started_;
  std::atomic<bool> quit_{false};
  std::atomic<double> closed_after_{-1};
  std::thread thread_;
};

run_figures named(const std::string& run) {
  run_figures f;
  f.run = run;
  f.steps_planned = 10;
  return f;
}

TEST(MetricsHttpTest, ParsesHostAndPortAndRejectsAnythingElseQuotingIt) {
  auto a = parse_listen_address("127.0.0.1:9464");
  ASSERT_TRUE(a) << a.err().message;
  EXPECT_EQ(a->host, "127.0.0.1");
  EXPECT_EQ(a->port, 9464);
  a = parse_listen_address("[::1]:0");
  ASSERT_TRUE(a) << a.err().message;
  EXPECT_EQ(a->host, "::1");
  EXPECT_EQ(a->port, 0);
  for (const char* bad : {"9464", ":9464", "localhost:", "localhost:65536", "localhost:x1",
                          "::1:9464", "[]:80", "host:-1"}) {
    auto r = parse_listen_address(bad);
    ASSERT_FALSE(r) << bad;
    EXPECT_NE(r.err().message.find(std::string("got \"") + bad + "\""), std::string::npos)
        << r.err().message;
  }
}

TEST(MetricsHttpTest, ServesTheLatestFiguresAtMetrics) {
  auto e = metrics_endpoint::start("127.0.0.1:0", named("t1"));
  ASSERT_TRUE(e) << e.err().message;
  const int port = port_of((*e)->url());
  EXPECT_EQ((*e)->url(), "http://127.0.0.1:" + std::to_string(port) + "/metrics");
  httplib::Client client("127.0.0.1", port);
  auto r = client.Get("/metrics");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->get_header_value("Content-Type"), "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_NE(r->body.find("adarl_steps_planned{run=\"t1\"} 10\n"), std::string::npos) << r->body;
  EXPECT_EQ(r->body.find("adarl_real_reward"), std::string::npos);  // no step yet
  (*e)->on_step({{"policy_version", 1}, {"real_reward", 0.625}, {"cumulative_samples", 64}});
  tracker_status s;
  s.in_flight = 17;
  (*e)->on_tracker(s);
  r = client.Get("/metrics");
  ASSERT_TRUE(r);
  EXPECT_NE(r->body.find("adarl_real_reward{run=\"t1\"} 0.625\n"), std::string::npos) << r->body;
  EXPECT_NE(r->body.find("adarl_samples_total{run=\"t1\"} 64\n"), std::string::npos);
  EXPECT_NE(r->body.find("adarl_orders_in_flight{run=\"t1\"} 17\n"), std::string::npos);
  EXPECT_EQ(client.Get("/nothing-here")->status, 404);
  EXPECT_EQ((*e)->figures().steps, 1u);
}

TEST(MetricsHttpTest, ABusyAddressIsAnErrorNamingIt) {
  auto first = metrics_endpoint::start("127.0.0.1:0", named("a"));
  ASSERT_TRUE(first) << first.err().message;
  const std::string taken = "127.0.0.1:" + std::to_string(port_of((*first)->url()));
  auto second = metrics_endpoint::start(taken, named("b"));
  ASSERT_FALSE(second);
  EXPECT_EQ(second.err().message.rfind("cannot listen on " + taken + " (", 0), 0u)
      << second.err().message;
  // The first one still answers, with its own figures.
  httplib::Client client("127.0.0.1", port_of((*first)->url()));
  auto r = client.Get("/metrics");
  ASSERT_TRUE(r);
  EXPECT_NE(r->body.find("{run=\"a\"}"), std::string::npos);
}

TEST(MetricsHttpTest, AnAddressOfAnotherMachineIsAnError) {
  auto e = metrics_endpoint::start("192.0.2.1:9464", named("x"));  // TEST-NET-1
  ASSERT_FALSE(e);
  EXPECT_EQ(e.err().message.rfind("cannot listen on 192.0.2.1:9464 (", 0), 0u) << e.err().message;
}

TEST(MetricsHttpTest, StopEndsServingAndFreesThePort) {
  auto e = metrics_endpoint::start("127.0.0.1:0", named("s"));
  ASSERT_TRUE(e) << e.err().message;
  const int port = port_of((*e)->url());
  (*e)->stop();
  (*e)->stop();  // idempotent
  httplib::Client client("127.0.0.1", port);
  client.set_connection_timeout(1);
  EXPECT_FALSE(client.Get("/metrics"));
  auto again = metrics_endpoint::start("127.0.0.1:" + std::to_string(port), named("s2"));
  EXPECT_TRUE(again) << again.err().message;
}

TEST(MetricsHttpTest, ASlowClientDoesNotHoldUpAScrape) {
  auto e = metrics_endpoint::start("127.0.0.1:0", named("slow"));
  ASSERT_TRUE(e) << e.err().message;
  const int port = port_of((*e)->url());
  slow_client loris(port, std::chrono::milliseconds(500), std::chrono::seconds(20));
  ASSERT_TRUE(loris.connected());
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // it holds a thread now
  httplib::Client client("127.0.0.1", port);
  client.set_connection_timeout(2);
  client.set_read_timeout(2);
  const auto t0 = clock_type::now();
  auto r = client.Get("/metrics");
  const double took = seconds_since(t0);
  ASSERT_TRUE(r) << "no answer within 2 s while a slow client is connected: "
                 << httplib::to_string(r.error());
  EXPECT_EQ(r->status, 200);
  EXPECT_NE(r->body.find("adarl_steps_planned{run=\"slow\"} 10\n"), std::string::npos);
  EXPECT_LT(took, 1.0);
  EXPECT_LT(loris.closed_after(), 0) << "the slow client was cut before the deadline";
}

TEST(MetricsHttpTest, ASlowClientIsCutAtTheRequestDeadlineHoweverItPacesItsBytes) {
  auto e = metrics_endpoint::start("127.0.0.1:0", named("cut"));
  ASSERT_TRUE(e) << e.err().message;
  const double deadline = http_limits{}.request_seconds;
  slow_client loris(port_of((*e)->url()), std::chrono::milliseconds(500),
                    std::chrono::seconds(20));
  ASSERT_TRUE(loris.connected());
  // A byte every half second would reset a per-read timeout forever; the deadline holds.
  const double cut = loris.wait_closed(std::chrono::seconds(int(deadline) + 5));
  ASSERT_GE(cut, 0) << "not cut within " << deadline + 5 << " s (the client would trickle for 20 s)";
  EXPECT_GE(cut, deadline - 0.5) << "cut before its deadline";
  EXPECT_LT(cut, deadline + 2.0) << "not cut within its deadline + 2 s";
}

TEST(MetricsHttpTest, StopReturnsPromptlyWhileASlowClientIsConnected) {
  auto e = metrics_endpoint::start("127.0.0.1:0", named("stop"));
  ASSERT_TRUE(e) << e.err().message;
  slow_client loris(port_of((*e)->url()), std::chrono::milliseconds(500),
                    std::chrono::seconds(20));
  ASSERT_TRUE(loris.connected());
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  const auto t0 = clock_type::now();
  (*e)->stop();
  const double took = seconds_since(t0);
  // Well before the request deadline (3 s) and the client's 20 s of trickling.
  EXPECT_LT(took, 1.5);
  EXPECT_GE(loris.wait_closed(std::chrono::seconds(2)), 0) << "the slow client still open";
}

TEST(MetricsHttpTest, WithEveryThreadHeldByASlowClientAScrapeIsAnsweredAfterTheDeadline) {
  http_limits limits;
  limits.threads = 2;
  limits.request_seconds = 1;
  auto e = metrics_endpoint::start("127.0.0.1:0", named("full"), limits);
  ASSERT_TRUE(e) << e.err().message;
  const int port = port_of((*e)->url());
  slow_client a(port, std::chrono::milliseconds(200), std::chrono::seconds(20));
  slow_client b(port, std::chrono::milliseconds(200), std::chrono::seconds(20));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  httplib::Client client("127.0.0.1", port);
  client.set_read_timeout(5);
  const auto t0 = clock_type::now();
  auto r = client.Get("/metrics");
  const double took = seconds_since(t0);
  ASSERT_TRUE(r) << httplib::to_string(r.error());
  EXPECT_EQ(r->status, 200);
  // It waited for a thread: the slow clients' deadline (1 s from their start) freed one.
  EXPECT_GT(took, 0.5);
  EXPECT_LT(took, 3.0);
  EXPECT_GE(a.wait_closed(std::chrono::seconds(2)), 0);
  EXPECT_GE(b.wait_closed(std::chrono::seconds(2)), 0);
}

TEST(MetricsHttpTest, ARequestLargerThanTheByteLimitIsDropped) {
  http_limits limits;
  limits.request_bytes = 4096;
  auto e = metrics_endpoint::start("127.0.0.1:0", named("big"), limits);
  ASSERT_TRUE(e) << e.err().message;
  slow_client probe(port_of((*e)->url()), std::chrono::milliseconds(0),
                    std::chrono::seconds(20));  // header bytes as fast as it can, no end
  const double cut = probe.wait_closed(std::chrono::seconds(10));
  EXPECT_GE(cut, 0) << "a request of unbounded size was kept reading";
  EXPECT_LT(cut, limits.request_seconds) << "cut by the deadline, not by the byte limit";
}

}  // namespace
}  // namespace adarl
