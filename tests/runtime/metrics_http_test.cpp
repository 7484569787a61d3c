// metrics_http: the endpoint binds before the run (a bad or busy address is an error),
// serves the figures the observer calls bring, and stops.
#include "runtime/metrics_http.hpp"

#include <gtest/gtest.h>

#include <httplib.h>

#include <nlohmann/json.hpp>

namespace adarl {
namespace {

/// The port of an endpoint's url (http://127.0.0.1:PORT/metrics).
int port_of(const std::string& url) {
  const auto colon = url.rfind(':');
  return std::stoi(url.substr(colon + 1, url.find('/', colon) - colon - 1));
}

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

}  // namespace
}  // namespace adarl
