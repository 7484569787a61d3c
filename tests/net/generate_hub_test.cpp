// The remote-generator hub (net/generate_hub.hpp) with hand-driven workers: the
// weights protocol (chunks, hashes, re-sends, a superseded version, a shared directory),
// credit only once a worker holds weights, orders with their prompts, lost workers, and
// messages that must not hurt the coordinator.
#include "net/generate_hub.hpp"

#include <gtest/gtest.h>

#include <caf/all.hpp>
#include <xxhash.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <zmq.hpp>

#include "engines/engine_spec.hpp"
#include "tasks/suites.hpp"

namespace adarl {
namespace {

using namespace std::chrono_literals;

/// Weights whose bytes are a recognisable pattern of `n` bytes.
struct pattern_weights : policy_weights {
  size_t n = 0;
  result<std::string> to_bytes() const override {
    std::string s(n, '\0');
    for (size_t i = 0; i < n; ++i) s[i] = char((i * 131 + version) & 0xff);
    return s;
  }
};

weights_ptr pattern(uint64_t version, size_t n) {
  auto w = std::make_shared<pattern_weights>();
  w->version = version;
  w->n = n;
  return w;
}

struct small_system : caf::actor_system_config {
  small_system() { set("scheduler.max-threads", size_t{2}); }
};

/// A worker speaking the protocol by hand.
struct raw_worker {
  zmq::context_t ctx{1};
  zmq::socket_t socket{ctx, zmq::socket_type::dealer};
  uint64_t session = 0;
  raw_worker(const std::string& endpoint, const std::string& name) {
    socket.set(zmq::sockopt::linger, 0);
    socket.set(zmq::sockopt::rcvtimeo, 10000);  // a test that waits longer has failed
    socket.set(zmq::sockopt::routing_id, name);
    socket.connect(endpoint);
  }
  void send(const std::string& bytes) { socket.send(zmq::buffer(bytes), zmq::send_flags::none); }
  /// The next message other than a heartbeat, with its data frame when it has one.
  std::pair<remote_message, std::string> next() {
    for (;;) {
      zmq::message_t body, data;
      if (!socket.recv(body)) return {};
      std::string bytes;
      if (body.more() && socket.recv(data)) bytes = data.to_string();
      auto m = decode_remote(body.to_string_view());
      if (!m) {
        ADD_FAILURE() << m.err().message;
        return {};
      }
      if (m->type == "heartbeat") continue;
      return {std::move(*m), std::move(bytes)};
    }
  }
  remote_message hello() {
    send(encode_generate_hello("raw", 8));
    auto [m, _] = next();
    EXPECT_EQ(m.type, "setup");
    session = m.session;
    return m;
  }
};

struct RemoteGeneratorTest : testing::Test {
  small_system cfg;
  caf::actor_system sys{cfg};
  caf::scoped_actor self{sys};
  prompt_table_ptr prompts;
  std::vector<std::string> warnings;

  RemoteGeneratorTest() {
    suite_request r;
    r.count = 8;
    auto items = generate_suite("math", r);
    auto tok = tokenizer::from_charset(tokenizer::default_charset());
    prompts = std::make_shared<const prompt_table>(std::move(*build_prompt_table(*items, {}, *tok)));
  }

  std::shared_ptr<remote_generator_hub> open(uint32_t chunk_bytes, uint32_t window,
                                             const std::string& weights_path = "") {
    remote_generator_setup s;
    s.bind = "tcp://127.0.0.1:*";
    s.heartbeat = 0.2;
    s.timeout = 1.5;
    s.chunk_bytes = chunk_bytes;
    s.window = window;
    s.weights_path = weights_path;
    engine_spec spec;
    spec.kind = policy_kind::simulated;
    s.engine = encode_engine_spec(spec);
    s.prompts = prompts;
    s.tracker = caf::actor_cast<generator_pool_actor>(self);
    s.verifiers = {caf::actor_cast<verifier_actor>(self)};
    auto hub = remote_generator_hub::open(sys, std::move(s));
    EXPECT_TRUE(hub) << (hub ? "" : hub.err().message);
    return hub ? *hub : nullptr;
  }
};

TEST_F(RemoteGeneratorTest, ChunksAreCheckedResentAndOnlyAWorkerWithWeightsGetsWork) {
  auto hub = open(/*chunk_bytes=*/4096, /*window=*/2);
  ASSERT_TRUE(hub);
  raw_worker w(hub->endpoint(), "raw");
  const auto setup = w.hello();
  EXPECT_TRUE(decode_engine_spec(setup.engine)) << setup.engine;
  w.send(encode_credit(w.session, 5));  // before any weights: held back
  hub->publish(pattern(3, 10000));      // 3 chunks: 4096, 4096, 1808
  std::string whole(10000, '\0');
  auto [c0, d0] = w.next();
  ASSERT_EQ(c0.type, "weights");
  EXPECT_EQ(c0.version, 3u);
  EXPECT_EQ(c0.chunks, 3u);
  EXPECT_EQ(c0.bytes, 10000u);
  auto [c1, d1] = w.next();
  ASSERT_EQ(c1.chunk, 1u);
  EXPECT_EQ(c1.offset, 4096u);
  EXPECT_EQ(XXH3_64bits(d1.data(), d1.size()), c1.chunk_hash);
  // The window is 2: nothing more until a chunk is acknowledged; a damaged one comes again.
  w.send(encode_chunk_bad(w.session, 3, 1, "chunk hash mismatch"));
  auto [again, d1b] = w.next();
  EXPECT_EQ(again.chunk, 1u);
  EXPECT_EQ(d1b, d1);
  w.send(encode_chunk_ok(w.session, 3, 0));
  auto [c2, d2] = w.next();
  ASSERT_EQ(c2.chunk, 2u);
  EXPECT_EQ(d2.size(), 1808u);
  whole = d0 + d1 + d2;
  EXPECT_EQ(c0.hash, chunk_list_hash(chunk_hashes(whole, 4096)));
  EXPECT_EQ(whole, *pattern(3, 10000)->to_bytes());
  // A whole that does not match its hash: the version is sent again from the start.
  w.send(encode_weights_bad(w.session, 3, "content hash mismatch"));
  EXPECT_EQ(w.next().first.chunk, 0u);
  EXPECT_EQ(w.next().first.chunk, 1u);  // the window of 2 again
  w.send(encode_weights_ok(w.session, 3));  // (the rest is not sent once it holds them)
  // Now the tracker hears of the worker, with the credit it announced.
  generator_actor proxy;
  self->receive([&](credit_atom, uint32_t n, generator_actor g) {
    EXPECT_EQ(n, 5u);
    proxy = g;
  }, caf::after(10s) >> [] { ADD_FAILURE() << "no credit"; });
  ASSERT_TRUE(proxy);
  // Orders reach the worker with the tokens of prompts it has not seen.
  self->send(proxy, work_atom::value, std::vector<work_order>{{7, 0, 0, 2, 99, 0, false, 3},
                                                              {7, 0, 1, 2, 98, 0, false, 3}});
  auto [orders, _] = w.next();
  ASSERT_EQ(orders.type, "orders");
  ASSERT_EQ(orders.orders.size(), 2u);
  ASSERT_EQ(orders.prompts.size(), 1u);
  EXPECT_EQ(orders.prompts[0].tokens, prompts->rows[2].tokens);
  // Results go to a verifier with the credit they return.
  completion c;
  c.order = orders.orders[0];
  c.tokens = {5, 6};
  c.logprobs = {-0.5f, -0.25f};
  c.version = 3;
  w.send(encode_results(w.session, {c}, 1));
  self->receive(
      [&](verify_atom, std::vector<completion>& batch, uint32_t credit, generator_actor g) {
        ASSERT_EQ(batch.size(), 1u);
        EXPECT_EQ(batch[0].logprobs, c.logprobs);
        EXPECT_EQ(credit, 1u);
        EXPECT_EQ(g, proxy);
      },
      caf::after(10s) >> [] { ADD_FAILURE() << "no results"; });
  // The worker goes silent: lost; its order still out is handed out again at once.
  self->receive(
      [&](reissue_atom, std::vector<work_order>& lost, generator_actor g) {
        ASSERT_EQ(lost.size(), 1u);
        EXPECT_EQ(lost[0].index, 1u);
        EXPECT_EQ(g, proxy);
      },
      caf::after(10s) >> [] { ADD_FAILURE() << "the silent worker was not lost"; });
  EXPECT_EQ(hub->stats().lost, 1u);
  EXPECT_EQ(hub->stats().orders_reissued, 1u);
  hub->close();
}

TEST_F(RemoteGeneratorTest, ASupersededVersionIsAbandonedForTheNewest) {
  auto hub = open(/*chunk_bytes=*/4096, /*window=*/1);
  ASSERT_TRUE(hub);
  raw_worker w(hub->endpoint(), "raw");
  w.hello();
  hub->publish(pattern(1, 20000));
  EXPECT_EQ(w.next().first.version, 1u);
  hub->publish(pattern(2, 20000));
  hub->publish(pattern(2, 20000));  // not newer: ignored
  w.send(encode_chunk_ok(w.session, 1, 0));
  auto [m, d] = w.next();  // the window frees: version 2 from its first chunk, not 1's second
  EXPECT_EQ(m.version, 2u);
  EXPECT_EQ(m.chunk, 0u);
  hub->close();
  EXPECT_EQ(hub->stats().weights_versions, 2u);
}

TEST_F(RemoteGeneratorTest, SharedDirectoryVersionsAreFilesTheWorkerChecks) {
  const auto dir = (std::filesystem::temp_directory_path() / "adarl_weights_path").string();
  std::filesystem::remove_all(dir);
  auto hub = open(4096, 4, dir);
  ASSERT_TRUE(hub);
  raw_worker w(hub->endpoint(), "raw");
  w.hello();
  for (uint64_t v = 1; v <= 5; ++v) hub->publish(pattern(v, 5000));
  remote_message m;
  for (int i = 0; i < 5 && m.version != 5; ++i) m = w.next().first;
  ASSERT_EQ(m.type, "weights_path");
  EXPECT_EQ(m.version, 5u);
  std::ifstream in(m.path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(bytes, *pattern(5, 5000)->to_bytes());
  EXPECT_EQ(bytes.size(), m.bytes);
  // The newest three versions are kept (a worker may still be reading the previous one).
  size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) files += e.is_regular_file();
  EXPECT_EQ(files, 3u);
  hub->close();
}

TEST_F(RemoteGeneratorTest, FilesOfAnEarlierRunInTheDirectoryNeverTakeTheNewVersionsPlace) {
  // A directory that an earlier run left versions 1..9 in: this run's version 1 must stay
  // readable (it was deleted at once as the oldest of the newest three, and every worker
  // refused it), and the earlier run's files must go.
  const auto dir = (std::filesystem::temp_directory_path() / "adarl_weights_path_reuse").string();
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  for (int v = 1; v <= 9; ++v) {
    char name[64];
    std::snprintf(name, sizeof name, "weights-v%09d.bin", v);
    std::ofstream(std::filesystem::path(dir) / name) << "an earlier run's bytes";
  }
  auto hub = open(4096, 4, dir);
  ASSERT_TRUE(hub);
  raw_worker w(hub->endpoint(), "raw");
  w.hello();
  hub->publish(pattern(1, 5000));
  auto m = w.next().first;
  ASSERT_EQ(m.type, "weights_path");
  EXPECT_EQ(m.version, 1u);
  std::ifstream in(m.path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(bytes, *pattern(1, 5000)->to_bytes());
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    names.push_back(e.path().filename().string());
  EXPECT_EQ(names, std::vector<std::string>{"weights-v000000001.bin"});
  hub->close();
}

TEST_F(RemoteGeneratorTest, BadMessagesNeverHurtTheHub) {
  auto hub = open(4096, 4);
  ASSERT_TRUE(hub);
  {
    raw_worker bad(hub->endpoint(), "bad");
    bad.send("\xc1 not msgpack");
    bad.send(std::string(300000, '\x91') + '\xc0');  // nested beyond any message
    bad.send(encode_hello(1, "a verifier"));          // the wrong endpoint: refused
    auto [m, _] = bad.next();
    EXPECT_EQ(m.type, "refused");
    EXPECT_NE(m.reason.find("serves generators"), std::string::npos) << m.reason;
    // A frame over the 64 MiB cap: ZeroMQ drops the connection, not the hub.
    bad.send(std::string((64u << 20) + 16, 'x'));
  }
  raw_worker good(hub->endpoint(), "good");
  good.hello();
  hub->publish(pattern(1, 100));
  EXPECT_EQ(good.next().first.type, "weights");
  hub->close();
}

}  // namespace
}  // namespace adarl
