// The generation engine on an inference server (engines/server/server_engine.hpp): rows
// come back as their replies arrive, versions are published once and checked, and a
// stale, garbled or missing reply is counted and drawn again, never returned. The last
// tests speak real HTTP to an SGLang-shaped server on loopback that is stopped and
// started again under the engine. Before a run, a probe checks that the server answers,
// speaks the dialect and samples as asked.
#include "engines/server/server_engine.hpp"

#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "engines/server/server_process.hpp"

namespace adarl {
namespace {

using json = nlohmann::json;

/// An SGLang-shaped server as a function: a completion of prompt p is p's first id + 1,
/// then the end id 7 (the first alone when one token is asked for), with log-probs -0.5
/// each, named by the loaded weight version.
struct fake_sglang {
  std::mutex mutex;
  std::string weight_version = "default";
  std::deque<std::function<result<http_reply>()>> scripted;  ///< Replies sent first.
  std::vector<std::string> paths;
  std::map<std::string, int> loads;
  int loading = 0;  ///< /health answers 503 this many more times.

  result<http_reply> answer(const server_request& r) {
    std::lock_guard lock(mutex);
    paths.push_back(r.path);
    if (r.path == "/generate" && !scripted.empty()) {
      auto f = std::move(scripted.front());
      scripted.pop_front();
      return f();
    }
    if (r.path == "/generate") {
      const json b = json::parse(*r.body);
      const int first = b["input_ids"][0];
      json ids = {first + 1, 7};
      json lps = {{-0.5, first + 1, nullptr}, {-0.5, 7, nullptr}};
      if (b["sampling_params"]["max_new_tokens"] == 1) {  // the probe's
        ids.erase(1);
        lps.erase(1);
      }
      const json reply = {
          {"output_ids", ids},
          {"meta_info",
           {{"weight_version", weight_version}, {"output_token_logprobs", lps}}}};
      return http_reply{200, reply.dump()};
    }
    if (r.path == "/update_weights_from_disk") {
      const json b = json::parse(*r.body);
      weight_version = b["weight_version"];
      ++loads[b["model_path"]];
      return http_reply{200, R"({"success": true, "message": "loaded"})"};
    }
    if (r.path == "/health") {
      if (loading > 0) {
        --loading;
        return http_reply{503, R"({"error": "Loading model"})"};
      }
      return http_reply{200, "{}"};
    }
    if (r.path == "/get_model_info")  // an SGLang release without /model_info
      return http_reply{200, json{{"weight_version", weight_version}}.dump()};
    return http_reply{404, "no route"};
  }
};

class fake_transport final : public server_transport {
 public:
  explicit fake_transport(std::shared_ptr<fake_sglang> s) : server_(std::move(s)) {}
  result<http_reply> send(const server_request& r, double, const void*) override {
    return server_->answer(r);
  }

 private:
  std::shared_ptr<fake_sglang> server_;
};

struct version_weights : policy_weights {
  explicit version_weights(uint64_t v) { version = v; }
};

server_config config_of(uint32_t capacity = 4) {
  server_config c;
  c.dialect = server_dialect::sglang;
  c.capacity = capacity;
  c.vocab = 100;
  c.retry_pause = 0.01;
  c.timeout = 2;
  c.draw.sampling.max_new_tokens = 4;
  c.draw.end_ids = {7};
  return c;
}

/// Steps `engine` until `n` rows finished or 10 s passed.
std::vector<generation_result> drain(generation_engine& engine, size_t n) {
  std::vector<generation_result> out;
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (out.size() < n && std::chrono::steady_clock::now() < end) engine.step(out);
  return out;
}

generation_job job_of(uint64_t ticket, int32_t first) {
  generation_job j;
  j.ticket = ticket;
  j.prompt = {first, 1};
  j.stream = ticket;
  return j;
}

TEST(ServerEngineTest, RowsComeBackWithTheServersIdsAndLogprobs) {
  auto server = std::make_shared<fake_sglang>();
  auto link = std::make_shared<server_link>(
      config_of(), std::make_unique<fake_transport>(server), nullptr);
  auto engine = make_server_generator(link);
  EXPECT_EQ(engine->capacity(), 4u);
  for (uint64_t t = 0; t < 4; ++t) engine->admit(job_of(t, int32_t(10 + t)));
  EXPECT_EQ(engine->active(), 4u);
  auto out = drain(*engine, 4);
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(engine->active(), 0u);
  std::map<uint64_t, generation_result> by_ticket;
  for (auto& r : out) by_ticket[r.ticket] = r;
  for (uint64_t t = 0; t < 4; ++t) {
    EXPECT_EQ(by_ticket[t].tokens, (std::vector<int32_t>{int32_t(11 + t), 7}));
    EXPECT_EQ(by_ticket[t].logprobs, (std::vector<float>{-0.5f, -0.5f}));
    EXPECT_TRUE(by_ticket[t].ended);
    EXPECT_EQ(by_ticket[t].version, 0u);
  }
  EXPECT_EQ(link->counts().completions, 4u);
}

TEST(ServerEngineTest, AVersionIsPublishedOnceLoadedAndCheckedBeforeRowsUseIt) {
  auto server = std::make_shared<fake_sglang>();
  int published = 0;
  auto link =
      std::make_shared<server_link>(config_of(), std::make_unique<fake_transport>(server),
                                    [&](const weights_ptr& w) -> result<std::string> {
                                      ++published;
                                      return "/weights/v" + std::to_string(w->version);
                                    });
  auto a = make_server_generator(link);
  auto b = make_server_generator(link);  // two generators of one run share the server
  ASSERT_TRUE(a->load(std::make_shared<version_weights>(0)));
  EXPECT_EQ(published, 0);  // the base the server started with
  auto v3 = std::make_shared<version_weights>(3);
  ASSERT_TRUE(a->load(v3));
  ASSERT_TRUE(b->load(v3));
  EXPECT_EQ(published, 1);
  EXPECT_EQ(server->loads["/weights/v3"], 1);
  EXPECT_EQ(a->version(), 3u);
  EXPECT_EQ(b->version(), 3u);
  EXPECT_EQ(link->counts().published, 1u);
  a->admit(job_of(1, 20));
  auto out = drain(*a, 1);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].version, 3u);
}

TEST(ServerEngineTest, AServerThatDoesNotHoldTheVersionAfterLoadingIsAnError) {
  auto server = std::make_shared<fake_sglang>();
  // A server that acknowledges the load and keeps its old weights.
  struct stubborn final : server_transport {
    std::shared_ptr<fake_sglang> s;
    result<http_reply> send(const server_request& r, double, const void*) override {
      if (r.path == "/update_weights_from_disk")
        return http_reply{200, R"({"success": true})"};
      return s->answer(r);
    }
  };
  auto t = std::make_unique<stubborn>();
  t->s = server;
  auto link2 = std::make_shared<server_link>(
      config_of(), std::move(t),
      [](const weights_ptr&) -> result<std::string> { return std::string("/w"); });
  auto engine = make_server_generator(link2);
  auto ok = engine->load(std::make_shared<version_weights>(2));
  ASSERT_FALSE(ok);
  EXPECT_NE(ok.err().message.find("holds \"default\" after loading adarl-v2"),
            std::string::npos)
      << ok.err().message;
  EXPECT_EQ(engine->version(), 0u);
}

TEST(ServerEngineTest, VllmIsPausedAroundAVersionsLoadWhereItHasTheRoutes) {
  // vLLM in development mode: /pause, /collective_rpc reload_weights, /resume; a release
  // without /pause (HTTP 404) is loaded without it, and no /resume is sent.
  for (const bool has_pause : {true, false}) {
    struct vllm final : server_transport {
      bool pause = true;
      std::vector<std::string> paths;
      result<http_reply> send(const server_request& r, double, const void*) override {
        paths.push_back(r.path.substr(0, r.path.find('?')));
        if (r.path.rfind("/pause", 0) == 0) {
          EXPECT_NE(r.path.find("mode=wait"), std::string::npos) << r.path;
          return http_reply{pause ? 200 : 404, "{}"};
        }
        if (r.path == "/collective_rpc") {
          const json b = json::parse(*r.body);
          EXPECT_EQ(b["method"], "reload_weights");
          EXPECT_EQ(b["kwargs"]["weights_path"], "/w/v2");
        }
        return http_reply{200, "{}"};
      }
    };
    auto t = std::make_unique<vllm>();
    t->pause = has_pause;
    auto* seen = t.get();
    auto c = config_of();
    c.dialect = server_dialect::vllm;
    auto link = std::make_shared<server_link>(
        c, std::move(t), [](const weights_ptr& w) -> result<std::string> {
          return "/w/v" + std::to_string(w->version);
        });
    std::vector<std::string> warnings;
    link->on_warning([&](const std::string& w) { warnings.push_back(w); });
    ASSERT_TRUE(link->load(std::make_shared<version_weights>(2)));
    if (has_pause) {
      EXPECT_EQ(seen->paths,
                (std::vector<std::string>{"/pause", "/collective_rpc", "/resume"}));
      EXPECT_TRUE(warnings.empty());
    } else {
      EXPECT_EQ(seen->paths, (std::vector<std::string>{"/pause", "/collective_rpc"}));
      ASSERT_EQ(warnings.size(), 1u);
      EXPECT_NE(warnings[0].find("without pausing"), std::string::npos) << warnings[0];
    }
    EXPECT_EQ(link->version(), 2u);
  }
}

TEST(ServerEngineTest, StaleGarbledAndMissingRepliesAreCountedAndDrawnAgain) {
  auto server = std::make_shared<fake_sglang>();
  auto link = std::make_shared<server_link>(
      config_of(1), std::make_unique<fake_transport>(server),
      [](const weights_ptr&) -> result<std::string> { return std::string("/w"); });
  auto engine = make_server_generator(link);
  ASSERT_TRUE(engine->load(std::make_shared<version_weights>(5)));
  const json stale = {{"meta_info",
                       {{"weight_version", "adarl-v4"},
                        {"output_token_logprobs", {{-0.1, 2, nullptr}}}}}};
  const json foreign = {
      {"meta_info",
       {{"weight_version", "default"}, {"output_token_logprobs", {{-0.1, 2, nullptr}}}}}};
  server->scripted.push_back(
      [] { return result<http_reply>(error{"connection refused"}); });
  server->scripted.push_back([] {
    return result<http_reply>(http_reply{503, "loading"});
  });
  server->scripted.push_back([] {
    return result<http_reply>(http_reply{200, "{not json"});
  });
  server->scripted.push_back([s = stale.dump()] {
    return result<http_reply>(http_reply{200, s});
  });
  server->scripted.push_back([s = foreign.dump()] {
    return result<http_reply>(http_reply{200, s});
  });
  engine->admit(job_of(9, 30));
  auto out = drain(*engine, 1);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].tokens, (std::vector<int32_t>{31, 7}));  // the sixth reply, a good one
  EXPECT_EQ(out[0].version, 5u);
  const auto c = link->counts();
  EXPECT_EQ(c.requests, 6u);
  EXPECT_EQ(c.unreachable, 2u);
  EXPECT_EQ(c.garbage, 1u);
  EXPECT_EQ(c.stale, 2u);
  EXPECT_EQ(c.completions, 1u);
  // Nothing else came back: the rejected replies were not rows.
  std::vector<generation_result> more;
  engine->step(more);
  EXPECT_TRUE(more.empty());
}

TEST(ServerEngineTest, ADialectWithoutALoadRouteRefusesANewVersionPlainly) {
  auto c = config_of();
  c.dialect = server_dialect::llama;
  auto link = std::make_shared<server_link>(
      c, std::make_unique<fake_transport>(std::make_shared<fake_sglang>()), nullptr);
  auto engine = make_server_generator(link);
  EXPECT_TRUE(engine->load(std::make_shared<version_weights>(0)));
  auto ok = engine->load(std::make_shared<version_weights>(1));
  ASSERT_FALSE(ok);
  EXPECT_NE(ok.err().message.find("base policy only"), std::string::npos)
      << ok.err().message;
}

TEST(ServerEngineTest, AUrlOfAnotherFormIsAnErrorNamingTheKey) {
  for (const char* url : {"127.0.0.1:8080", "https://h:1", "http://h", "http://h:99999",
                          "http://h:80/v1"}) {
    auto t = make_http_transport(url);
    ASSERT_FALSE(t) << url;
    EXPECT_NE(t.err().message.find("server.url"), std::string::npos);
  }
  EXPECT_TRUE(make_http_transport("http://127.0.0.1:30000/"));
}

/// The fake server behind real HTTP on loopback, started and stopped at will on one port.
struct http_fake {
  std::shared_ptr<fake_sglang> logic = std::make_shared<fake_sglang>();
  std::unique_ptr<httplib::Server> server;
  std::thread thread;
  int port = 0;

  void start() {
    server = std::make_unique<httplib::Server>();
    auto handle = [this](const httplib::Request& q, httplib::Response& r) {
      server_request req{
          q.path, q.method == "POST" ? std::optional<std::string>(q.body) : std::nullopt};
      auto a = logic->answer(req);
      r.status = a ? a->status : 500;
      r.set_content(a ? a->body : "", "application/json");
    };
    server->Post(".*", handle);
    server->Get(".*", handle);
    if (port == 0)
      port = server->bind_to_any_port("127.0.0.1");
    else
      ASSERT_TRUE(server->bind_to_port("127.0.0.1", port));
    thread = std::thread([s = server.get()] { s->listen_after_bind(); });
    while (!server->is_running())
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  void stop() {
    server->stop();
    thread.join();
    server.reset();
  }
  ~http_fake() {
    if (server) stop();
  }
};

TEST(ServerEngineTest, OverHttpRowsSurviveTheServerStoppingAndStartingAgain) {
  http_fake fake;
  fake.start();
  ASSERT_GT(fake.port, 0);
  auto transport = make_http_transport("http://127.0.0.1:" + std::to_string(fake.port));
  ASSERT_TRUE(transport) << transport.err().message;
  auto link = std::make_shared<server_link>(config_of(8), std::move(*transport), nullptr);
  auto engine = make_server_generator(link);
  for (uint64_t t = 0; t < 4; ++t) engine->admit(job_of(t, int32_t(t)));
  auto out = drain(*engine, 4);
  ASSERT_EQ(out.size(), 4u);
  fake.stop();  // the server goes away with rows still to draw
  for (uint64_t t = 4; t < 8; ++t) engine->admit(job_of(t, int32_t(t)));
  std::vector<generation_result> none;
  engine->step(none);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  engine->step(none);
  EXPECT_TRUE(none.empty());
  EXPECT_GT(link->counts().unreachable, 0u);
  fake.start();  // and comes back on its port
  auto rest = drain(*engine, 4);
  ASSERT_EQ(rest.size(), 4u);
  std::map<uint64_t, int> seen;
  for (auto& r : out) ++seen[r.ticket];
  for (auto& r : rest) ++seen[r.ticket];
  ASSERT_EQ(seen.size(), 8u);  // every row once: nothing lost, nothing drawn twice
  for (auto& [t, n] : seen) EXPECT_EQ(n, 1) << t;
  for (auto& r : rest)
    EXPECT_EQ(r.tokens, (std::vector<int32_t>{int32_t(r.ticket + 1), 7}));
  EXPECT_EQ(link->counts().completions, 8u);
}

TEST(ServerEngineTest, AnEngineEndsPromptlyWithRequestsStillWaitingOnASilentServer) {
  // A server that accepts connections and never answers.
  httplib::Server silent;
  std::atomic<bool> release{false};
  silent.Post(".*", [&](const httplib::Request&, httplib::Response& r) {
    while (!release) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    r.status = 503;
  });
  const int port = silent.bind_to_any_port("127.0.0.1");
  std::thread t([&] { silent.listen_after_bind(); });
  while (!silent.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  auto c = config_of(2);
  c.timeout = 60;
  auto link = std::make_shared<server_link>(
      c, std::move(*make_http_transport("http://127.0.0.1:" + std::to_string(port))),
      nullptr);
  auto engine = make_server_generator(link);
  engine->admit(job_of(1, 1));
  engine->admit(job_of(2, 2));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  const auto t0 = std::chrono::steady_clock::now();
  engine.reset();  // cancels the requests instead of waiting out the 60 s timeout
  const double s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(s, 30.0);
  release = true;
  silent.stop();
  t.join();
}

TEST(ServerEngineTest, AProbeAcceptsAServerThatSpeaksTheDialectAndWaitsWhileItLoads) {
  auto server = std::make_shared<fake_sglang>();
  server->loading = 2;
  fake_transport t(server);
  auto ok = probe_server(config_of(), t, 30);
  ASSERT_TRUE(ok) << ok.err().message;
  EXPECT_EQ(server->paths,
            (std::vector<std::string>{"/health", "/health", "/health", "/generate"}));
  // Still loading when the wait is over: the error says so.
  server->loading = 1000;
  auto late = probe_server(config_of(), t, 0);
  ASSERT_FALSE(late);
  EXPECT_NE(late.err().message.find("HTTP 503"), std::string::npos) << late.err().message;
  EXPECT_NE(late.err().message.find("still loading"), std::string::npos);
}

TEST(ServerEngineTest, AProbeOfAServerOfAnotherDialectNamesTheUrlAndWhatItAnswered) {
  auto server = std::make_shared<fake_sglang>();  // an SGLang server, asked as vLLM
  fake_transport t(server);
  auto c = config_of();
  c.url = "http://127.0.0.1:30000";
  c.dialect = server_dialect::vllm;
  auto r = probe_server(c, t, 0);
  ASSERT_FALSE(r);
  const std::string& m = r.err().message;
  EXPECT_NE(m.find("http://127.0.0.1:30000"), std::string::npos) << m;
  EXPECT_NE(m.find("/v1/completions: HTTP 404"), std::string::npos) << m;
  EXPECT_NE(m.find("server.dialect vllm"), std::string::npos) << m;
  // A reply that is not a completion of the dialect: the field it lacks is named.
  server->scripted.push_back([] { return result<http_reply>(http_reply{200, "{}"}); });
  auto g = probe_server(config_of(), t, 0);
  ASSERT_FALSE(g);
  EXPECT_NE(g.err().message.find("not a sglang completion"), std::string::npos)
      << g.err().message;
  EXPECT_NE(g.err().message.find("meta_info"), std::string::npos);
}

TEST(ServerEngineTest, AProbeOfAnAddressWhereNothingListensSaysSoAtOnce) {
  const int port = free_loopback_port();
  auto c = config_of();
  c.url = "http://127.0.0.1:" + std::to_string(port);
  auto t = make_http_transport(c.url);
  ASSERT_TRUE(t);
  const auto start = std::chrono::steady_clock::now();
  auto r = probe_server(c, **t, 60);
  ASSERT_FALSE(r);
  EXPECT_NE(r.err().message.find(c.url), std::string::npos) << r.err().message;
  EXPECT_NE(r.err().message.find("/health (could not connect): start it first"),
            std::string::npos)
      << r.err().message;
  // Refused at once: only a server that answers "loading" is waited for.
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
}

}  // namespace
}  // namespace adarl
