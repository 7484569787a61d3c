// Remote verifiers over ZeroMQ: the wire format, and the coordinator's hub with real
// worker loops (threads of this process) on a loopback TCP port.
#include "net/verify_hub.hpp"

#include <caf/all.hpp>
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <nlohmann/json.hpp>
#include <thread>
#include <unistd.h>
#include <zmq.hpp>

#include "net/curve_key_files.hpp"
#include "net/remote_wire.hpp"
#include "net/verify_worker.hpp"
#include "tasks/suites.hpp"

namespace adarl {
namespace {

// --- the wire format ---

TEST(RemoteWireTest, EveryMessageRoundTrips) {
  auto hello = decode_remote(encode_hello(3, "box-17"));
  ASSERT_TRUE(hello) << hello.err().message;
  EXPECT_EQ(hello->type, "hello");
  EXPECT_EQ(hello->credit, 3u);
  EXPECT_EQ(hello->name, "box-17");
  EXPECT_EQ(decode_remote(encode_heartbeat())->type, "heartbeat");
  EXPECT_EQ(decode_remote(encode_heartbeat(0.25))->interval, 0.25);
  EXPECT_EQ(decode_remote(encode_bye())->type, "bye");
  auto res = decode_remote(encode_result(1ull << 60, 42, {{1.f, ""}, {0.f, "wrong_value"}, {0.5f, ""}}));
  ASSERT_TRUE(res) << res.err().message;
  EXPECT_EQ(res->session, 1ull << 60);
  EXPECT_EQ(res->batch, 42u);
  EXPECT_EQ(res->problem, "");
  ASSERT_EQ(res->verdicts.size(), 3u);
  EXPECT_EQ(res->verdicts[1].reason, "wrong_value");
  EXPECT_FLOAT_EQ(res->verdicts[2].reward, 0.5f);
  remote_item it;
  it.item = {"id-1", "What is 2+3?", "5", "math", "math", "[1]", 2};
  it.item.system = "Be brief.";
  it.completion = std::string("5\n\x01\xff", 4);  // not UTF-8: carried as bytes
  auto ver = decode_remote(encode_verify(9, 7, {it, remote_item{}}));
  ASSERT_TRUE(ver) << ver.err().message;
  EXPECT_EQ(ver->session, 9u);
  EXPECT_EQ(ver->batch, 7u);
  ASSERT_EQ(ver->items.size(), 2u);
  EXPECT_EQ(ver->items[0].item.prompt, "What is 2+3?");
  EXPECT_EQ(ver->items[0].item.tests, "[1]");
  EXPECT_EQ(ver->items[0].item.difficulty, 2u);
  EXPECT_EQ(ver->items[0].item.system, "Be brief.");
  EXPECT_EQ(ver->items[1].item.system, "");
  EXPECT_EQ(ver->items[0].completion, it.completion);
}

std::string pack(const nlohmann::json& j) {
  const auto b = nlohmann::json::to_msgpack(j);
  return std::string(b.begin(), b.end());
}

// Found with tests/fuzz/fuzz_remote_wire: nlohmann's MessagePack reader recurses once per
// level, so a frame of 300,000 nested one-element arrays (well under the hub's 64 MiB
// frame limit) overflowed the coordinator's stack.
TEST(RemoteWireTest, DeeplyNestedFrameIsAnErrorNotACrash) {
  const std::string deep = std::string(300000, '\x91') + '\xc0';
  auto m = decode_remote(deep);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.err().message, "MessagePack nested deeper than 16 levels");
  nlohmann::json nested = {{"v", 2}, {"type", "bye"}};
  for (int i = 0; i < 15; ++i) nested["x"] = nlohmann::json{{"x", nested["x"]}};
  EXPECT_TRUE(decode_remote(pack(nested)).ok());  // 16 levels: read
  nested["x"] = nlohmann::json{{"x", nested["x"]}};
  EXPECT_EQ(decode_remote(pack(nested)).err().message,
            "MessagePack nested deeper than 16 levels");
  EXPECT_EQ(decode_remote("\xc1").err().message, "not MessagePack");
}

TEST(RemoteWireTest, BadMessagesAreErrorsNamingWhatIsWrong) {
  auto expect_error = [](const std::string& bytes, const std::string& what) {
    auto m = decode_remote(bytes);
    ASSERT_FALSE(m) << what;
    EXPECT_NE(m.err().message.find(what), std::string::npos) << m.err().message;
  };
  expect_error("\xc1garbage", "not MessagePack");
  expect_error(pack({1, 2}), "not a MessagePack map");
  expect_error(pack({{"type", "hello"}}), "missing \"v\"");
  expect_error(pack({{"v", 1}, {"type", "hello"}}), "protocol version 1, this side speaks 2");
  expect_error(pack({{"v", 2}, {"type", "nope"}}), "unknown message type \"nope\"");
  expect_error(pack({{"v", 2}, {"type", "hello"}, {"credit", -1}, {"name", "x"}}),
               "hello: \"credit\" is not an unsigned integer below 2^32");
  expect_error(pack({{"v", (1ull << 32) + 2}, {"type", "bye"}}),
               "message: \"v\" is not an unsigned integer below 2^32");  // not read as 2
  expect_error(pack({{"v", 2}, {"type", "result"}, {"batch", 1}}), "result: missing \"session\"");
  expect_error(pack({{"v", 2}, {"type", "heartbeat"}, {"interval", -1}}),
               "heartbeat: \"interval\" is not a positive number");
  expect_error(pack({{"v", 2}, {"type", "verify"}, {"session", 1}, {"batch", 1},
                     {"items", nlohmann::json::array({nlohmann::json{{"prompt", 3}}})}}),
               "items[0].prompt is not a string");
  // Unusable verdicts still name their batch, so that it can be scored again.
  auto problem = [](const nlohmann::json& rewards, const nlohmann::json& reasons) {
    auto m = decode_remote(pack({{"v", 2}, {"type", "result"}, {"session", 5}, {"batch", 8},
                                 {"rewards", rewards}, {"reasons", reasons}}));
    EXPECT_TRUE(m);
    if (!m) return std::string();
    EXPECT_EQ(m->batch, 8u);
    EXPECT_TRUE(m->verdicts.empty());
    return m->problem;
  };
  EXPECT_EQ(problem({1, 1.0000000000000002}, {"", ""}), "rewards[1] is not a number in [0, 1]");
  EXPECT_EQ(problem({true}, {""}), "rewards[0] is not a number in [0, 1]");
  EXPECT_EQ(problem({1}, {"", ""}), "1 rewards but 2 reasons");
  EXPECT_EQ(problem({0}, {nullptr}), "reasons[0] is not a string");
}

// --- the hub with workers ---

struct small_system : caf::actor_system_config {
  small_system() { set("scheduler.max-threads", size_t{2}); }
};

prompt_table_ptr math_prompts(uint32_t n) {
  suite_request r;
  r.count = n;
  auto items = generate_suite("math", r);
  auto tok = tokenizer::from_charset(tokenizer::default_charset());
  auto t = build_prompt_table(*items, {}, *tok);
  return std::make_shared<const prompt_table>(std::move(*t));
}

/// A worker loop on its own thread until the object goes away.
struct worker_thread {
  std::atomic<bool> stop{false};
  verifier_registry registry = verifier_registry::with_builtins();
  std::thread thread;
  worker_thread(const std::string& endpoint, const std::string& name, uint32_t credit = 2,
                const std::string& server_key = "", const std::string& keys_file = "") {
    verify_worker_options o;
    o.connect = endpoint;
    o.name = name;
    o.credit = credit;
    o.server_key = server_key;
    o.keys_file = keys_file;
    o.heartbeat = 0.05;
    o.timeout = 0.5;
    o.threads = 1;
    thread = std::thread([this, o] { (void)run_verify_worker(o, registry, stop, nullptr); });
  }
  ~worker_thread() {
    stop = true;
    thread.join();
  }
};

class RemoteHubTest : public ::testing::Test {
 protected:
  small_system cfg;
  caf::actor_system sys{cfg};
  caf::scoped_actor self{sys};
  prompt_table_ptr prompts = math_prompts(16);
  std::shared_ptr<const verifier_registry> registry =
      std::make_shared<const verifier_registry>(verifier_registry::with_builtins());
  std::shared_ptr<const tokenizer> tok =
      std::make_shared<const tokenizer>(*tokenizer::from_charset(tokenizer::default_charset()));
  std::vector<std::string> warnings;

  verifier_setup scoring() {
    return {prompts, registry, tok, caf::actor_cast<result_sink_actor>(self)};
  }

  /// A hub on a system-chosen loopback port. `timeout`: how long a silent worker lives
  /// (hand-driven workers below never heartbeat).
  std::shared_ptr<remote_verifier_hub> open(double local_after, bool with_local = true,
                                            double timeout = 5.0,
                                            std::optional<curve_keys> curve = std::nullopt,
                                            std::vector<std::string> clients = {}) {
    remote_verifier_setup s;
    s.curve = curve;
    s.curve_clients = std::move(clients);
    s.bind = "tcp://127.0.0.1:*";
    s.pool.heartbeat = 0.05;
    s.pool.timeout = timeout;
    s.pool.local_after = local_after;
    s.scoring = scoring();
    if (with_local) s.local = {spawn_verifier(sys, scoring())};
    s.warn = [a = caf::actor_cast<caf::actor>(self)](const std::string& w) {
      caf::anon_send(a, w);
    };
    auto hub = remote_verifier_hub::open(std::move(s));
    EXPECT_TRUE(hub) << hub.err().message;
    return hub ? *hub : nullptr;
  }

  /// A batch over prompts [first, first + n): even ones answered right, odd ones wrong.
  std::vector<completion> batch(uint64_t first, uint32_t n, uint32_t index = 0) {
    std::vector<completion> b;
    for (uint32_t i = 0; i < n; ++i) {
      completion c;
      c.order.prompt_id = first + i;
      c.order.index = index;
      const auto& item = prompts->rows[c.order.prompt_id].item;
      c.tokens = *tok->encode(i % 2 == 0 ? item.answer : "no idea", "test");
      b.push_back(std::move(c));
    }
    return b;
  }

  /// Scored batches reaching the "tracker", keyed by their first prompt; warnings kept.
  std::map<uint64_t, std::vector<completion>> collect(size_t batches) {
    std::map<uint64_t, std::vector<completion>> got;
    bool timed_out = false;
    while (got.size() < batches && !timed_out) {
      self->receive(
          [&](scored_atom, std::vector<completion>& b) {
            EXPECT_FALSE(b.empty());
            if (!b.empty()) got[b.front().order.prompt_id] = std::move(b);
          },
          [&](const std::string& w) { warnings.push_back(w); },
          caf::after(std::chrono::seconds(20)) >> [&] { timed_out = true; });
    }
    EXPECT_FALSE(timed_out) << "got " << got.size() << " of " << batches << " batches";
    return got;
  }

  /// Every completion scored as the local verifier scores it.
  void expect_scored_like_local(const std::map<uint64_t, std::vector<completion>>& got) {
    uint32_t rewarded = 0;
    for (const auto& [first, b] : got)
      for (auto c : b) {
        const float remote = c.reward;
        const std::string reason = c.reason;
        score(scoring(), c);
        EXPECT_EQ(remote, c.reward) << "prompt " << c.order.prompt_id;
        EXPECT_EQ(reason, c.reason) << "prompt " << c.order.prompt_id;
        rewarded += c.reward > 0;
      }
    EXPECT_GT(rewarded, 0u);  // the right answers were recognised
  }
};

TEST_F(RemoteHubTest, WorkersScoreEveryBatchExactlyAsTheLocalVerifier) {
  auto hub = open(/*local_after=*/30.0);
  ASSERT_TRUE(hub);
  worker_thread a(hub->endpoint(), "a"), b(hub->endpoint(), "b");
  for (uint64_t first = 0; first < 16; first += 2) hub->submit(batch(first, 2));
  auto got = collect(8);
  ASSERT_EQ(got.size(), 8u);
  expect_scored_like_local(got);
  const auto s = hub->stats();
  EXPECT_EQ(s.pool.returned, 8u);
  EXPECT_EQ(s.pool.local, 0u);
  EXPECT_EQ(s.malformed, 0u);
}

TEST_F(RemoteHubTest, WithoutWorkersABatchIsScoredLocallyAfterItsWait) {
  auto hub = open(/*local_after=*/0.05);
  ASSERT_TRUE(hub);
  hub->submit(batch(0, 4));
  auto got = collect(1);
  ASSERT_EQ(got.size(), 1u);
  expect_scored_like_local(got);
  EXPECT_EQ(hub->stats().pool.local, 1u);
}

TEST_F(RemoteHubTest, WithNoLocalVerifierTheHubScoresTheFallbackItself) {
  auto hub = open(/*local_after=*/0.0, /*with_local=*/false);
  ASSERT_TRUE(hub);
  hub->submit(batch(4, 4));
  auto got = collect(1);
  ASSERT_EQ(got.size(), 1u);
  expect_scored_like_local(got);
}

/// A hand-driven worker: says hello, then does what the test tells it.
struct raw_worker {
  zmq::context_t ctx{1};
  zmq::socket_t socket{ctx, zmq::socket_type::dealer};
  explicit raw_worker(const std::string& endpoint, const std::string& name) {
    socket.set(zmq::sockopt::linger, 0);
    socket.set(zmq::sockopt::rcvtimeo, 20000);  // a test that waits longer has failed
    socket.set(zmq::sockopt::routing_id, name);
    socket.connect(endpoint);
  }
  void send(const std::string& bytes) { socket.send(zmq::buffer(bytes), zmq::send_flags::none); }
  /// The next verify message; an empty one (batch 0) after 20 s without one.
  remote_message next_verify() {
    for (;;) {
      zmq::message_t m;
      if (!socket.recv(m)) {
        ADD_FAILURE() << "no verify message within 20 s";
        return {};
      }
      auto d = decode_remote(m.to_string_view());
      if (d && d->type == "verify") return *d;
    }
  }
};

TEST_F(RemoteHubTest, ALostWorkersBatchIsScoredElsewhereAndItsLateAnswerDropped) {
  auto hub = open(/*local_after=*/30.0, /*with_local=*/true, /*timeout=*/0.4);
  ASSERT_TRUE(hub);
  raw_worker mute(hub->endpoint(), "mute");
  mute.send(encode_hello(1, "mute"));
  hub->submit(batch(0, 4));
  const remote_message taken = mute.next_verify();  // holds it and goes silent
  ASSERT_EQ(taken.items.size(), 4u);
  EXPECT_EQ(taken.items[0].item.id, prompts->rows[0].item.id);
  EXPECT_EQ(taken.items[0].completion, prompts->rows[0].item.answer);
  worker_thread good(hub->endpoint(), "good");
  auto got = collect(1);  // after mute's timeout the batch goes to good
  ASSERT_EQ(got.size(), 1u);
  expect_scored_like_local(got);
  // mute's late answer (all right) must not reach the tracker a second time.
  mute.send(encode_result(taken.session, taken.batch, std::vector<verdict>(4, verdict{1.f, ""})));
  hub->submit(batch(8, 2));
  auto next = collect(1);
  EXPECT_EQ(next.count(8), 1u);
  EXPECT_EQ(next.count(0), 0u);
  self->receive([&](scored_atom, std::vector<completion>&) { ADD_FAILURE() << "a duplicate"; },
                [&](const std::string& w) { warnings.push_back(w); },
                caf::after(std::chrono::milliseconds(200)) >> [] {});
  const auto s = hub->stats();
  EXPECT_GE(s.pool.workers_lost, 1u);
  EXPECT_GE(s.pool.reissued, 1u);
  EXPECT_EQ(s.pool.returned, 2u);
  bool told = false;
  for (const auto& w : warnings) told |= w.find("worker mute silent") != std::string::npos;
  EXPECT_TRUE(told);
}

TEST_F(RemoteHubTest, MalformedMessagesAndWrongLengthResultsNeverLoseABatch) {
  auto hub = open(/*local_after=*/30.0);
  ASSERT_TRUE(hub);
  raw_worker bad(hub->endpoint(), "bad");
  bad.send("not msgpack at all");
  bad.send(encode_hello(1, "bad"));
  hub->submit(batch(2, 3));
  const remote_message taken = bad.next_verify();
  bad.send(encode_result(taken.session, taken.batch, {{1.f, ""}}));  // 1 verdict for 3
  auto got = collect(1);  // scored locally instead
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got.begin()->second.size(), 3u);
  expect_scored_like_local(got);
  // A reward out of range: that batch too is scored locally, never re-sent forever.
  hub->submit(batch(6, 2));
  const remote_message second = bad.next_verify();
  bad.send(pack({{"v", 2}, {"type", "result"}, {"session", second.session},
                 {"batch", second.batch}, {"rewards", {1.5, 0}}, {"reasons", {"", "x"}}}));
  auto again = collect(1);
  EXPECT_EQ(again.count(6), 1u);
  expect_scored_like_local(again);
  const auto s = hub->stats();
  EXPECT_EQ(s.bad_results, 2u);
  EXPECT_EQ(s.malformed, 1u);
  EXPECT_EQ(s.pool.local, 0u);  // not for lack of a worker
}

TEST_F(RemoteHubTest, AnAnswerForAnotherRunsBatchIsDropped) {
  // Batch ids restart with every run; the session tells a previous run's answer apart.
  auto hub = open(/*local_after=*/30.0);
  ASSERT_TRUE(hub);
  raw_worker w(hub->endpoint(), "w");
  w.send(encode_hello(1, "w"));
  hub->submit(batch(0, 2));
  const remote_message taken = w.next_verify();
  w.send(encode_result(taken.session + 1, taken.batch, {{1.f, ""}, {1.f, ""}}));  // old run
  self->receive([&](scored_atom, std::vector<completion>&) { ADD_FAILURE() << "accepted"; },
                caf::after(std::chrono::milliseconds(200)) >> [] {});
  // The genuine answer is taken: prompt 0 right, prompt 1 not.
  w.send(encode_result(taken.session, taken.batch, {{1.f, ""}, {0.f, "mismatch"}}));
  auto got = collect(1);
  ASSERT_EQ(got.count(0), 1u);
  EXPECT_EQ(got[0][0].reward, 1.f);
  EXPECT_EQ(got[0][1].reason, "mismatch");
  EXPECT_EQ(hub->stats().other_session, 1u);
}

TEST_F(RemoteHubTest, AWorkerThatDisconnectsLosesItsBatchesAtTheNextSend) {
  // Its socket closes without a bye: the next heartbeat cannot be routed, so its batch
  // goes elsewhere long before the 60 s silence timeout.
  auto hub = open(/*local_after=*/60.0, /*with_local=*/true, /*timeout=*/60.0);
  ASSERT_TRUE(hub);
  {
    raw_worker gone(hub->endpoint(), "gone");
    gone.send(encode_hello(1, "gone"));
    hub->submit(batch(0, 2));
    ASSERT_EQ(gone.next_verify().items.size(), 2u);
  }
  worker_thread good(hub->endpoint(), "good");
  auto got = collect(1);
  ASSERT_EQ(got.count(0), 1u);
  expect_scored_like_local(got);
  bool told = false;
  for (const auto& w : warnings) told |= w.find("worker gone unreachable") != std::string::npos;
  EXPECT_TRUE(told);
  EXPECT_EQ(hub->stats().pool.workers_lost, 0u);  // not by the timeout
}

TEST_F(RemoteHubTest, AfterCloseNothingMoreIsSent) {
  auto hub = open(/*local_after=*/0.0);
  ASSERT_TRUE(hub);
  hub->close();
  hub->submit(batch(0, 2));
  self->receive([&](scored_atom, std::vector<completion>&) { ADD_FAILURE() << "sent"; },
                caf::after(std::chrono::milliseconds(200)) >> [] {});
}

TEST_F(RemoteHubTest, ABusyAddressIsAnErrorNamingIt) {
  auto first = open(30.0);
  ASSERT_TRUE(first);
  remote_verifier_setup s;
  s.bind = first->endpoint();
  s.scoring = scoring();
  auto second = remote_verifier_hub::open(std::move(s));
  ASSERT_FALSE(second);
  EXPECT_NE(second.err().message.find("cannot bind \"" + first->endpoint() + "\""),
            std::string::npos)
      << second.err().message;
}

// --- CURVE ---

std::string temp_path(const std::string& name) {
  // Per process: parallel test runs and other users do not share files.
  const auto dir = std::filesystem::temp_directory_path() /
                   ("adarl_remote_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return (dir / name).string();
}

TEST(CurveKeysTest, KeyFilesRoundTripAndBadOnesNameTheirLine) {
  auto k = make_curve_keys();
  ASSERT_TRUE(k) << k.err().message;
  EXPECT_TRUE(is_z85_key(k->public_key));
  EXPECT_TRUE(is_z85_key(k->secret_key));
  EXPECT_NE(k->public_key, k->secret_key);
  const std::string path = temp_path("keys");
  ASSERT_TRUE(write_curve_keys(*k, path));
  EXPECT_EQ(std::filesystem::status(path).permissions() & std::filesystem::perms::others_read,
            std::filesystem::perms::none);
  auto back = read_curve_keys(path);
  ASSERT_TRUE(back) << back.err().message;
  EXPECT_EQ(back->public_key, k->public_key);
  EXPECT_EQ(back->secret_key, k->secret_key);
  // A key file is no client list: it holds a secret.
  auto not_a_list = read_public_keys(path);
  ASSERT_FALSE(not_a_list);
  EXPECT_EQ(not_a_list.err().message,
            path + ":2: a secret key does not belong in a list of public keys");
  const std::string good_list = temp_path("good_list");
  std::ofstream(good_list) << "# workers\n" << k->public_key << "\npublic " << k->public_key << "\n";
  auto listed = read_public_keys(good_list);
  ASSERT_TRUE(listed) << listed.err().message;
  EXPECT_EQ(*listed, (std::vector<std::string>{k->public_key, k->public_key}));
  const std::string bad = temp_path("bad_keys");
  std::ofstream(bad) << "# keys\npublic " << k->public_key << "\nsecret too-short\n";
  auto e = read_curve_keys(bad);
  ASSERT_FALSE(e);
  EXPECT_EQ(e.err().message, bad + ":3: not a 40-character Z85 key");
  auto other = make_curve_keys();
  ASSERT_TRUE(other);
  const std::string mixed = temp_path("mixed_keys");
  std::ofstream(mixed) << "public " << k->public_key << "\nsecret " << other->secret_key << "\n";
  auto m = read_curve_keys(mixed);
  ASSERT_FALSE(m);
  EXPECT_EQ(m.err().message, mixed + ": the public key is not the secret key's");
  EXPECT_FALSE(is_z85_key(std::string(40, '#')));  // Z85 characters, but not a value
  const std::string list = temp_path("clients");
  std::ofstream(list) << k->public_key << "\n\n" << "nonsense\n";
  auto l = read_public_keys(list);
  ASSERT_FALSE(l);
  EXPECT_EQ(l.err().message, list + ":3: expected a 40-character Z85 public key");
}

TEST_F(RemoteHubTest, WithCurveOnlyListedWorkersGetBatches) {
  auto run_keys = make_curve_keys(), listed = make_curve_keys(), stranger = make_curve_keys();
  ASSERT_TRUE(run_keys && listed && stranger);
  const std::string listed_file = temp_path("listed"), stranger_file = temp_path("stranger");
  ASSERT_TRUE(write_curve_keys(*listed, listed_file));
  ASSERT_TRUE(write_curve_keys(*stranger, stranger_file));
  auto hub = open(/*local_after=*/30.0, /*with_local=*/true, /*timeout=*/5.0, *run_keys,
                  {listed->public_key});
  ASSERT_TRUE(hub);
  {
    // A stranger with the run's key, and a worker without CURVE: neither gets in.
    worker_thread s(hub->endpoint(), "stranger", 2, run_keys->public_key, stranger_file);
    worker_thread plain(hub->endpoint(), "plain");
    hub->submit(batch(0, 2));
    self->receive([&](scored_atom, std::vector<completion>&) { ADD_FAILURE() << "scored"; },
                  [&](const std::string& w) { warnings.push_back(w); },
                  caf::after(std::chrono::milliseconds(500)) >> [] {});
    EXPECT_EQ(hub->stats().workers, 0u);
    // The stranger's handshake is refused by the list (the plain one fails before it
    // gets that far). CURVE is slow on a loaded machine: wait for it.
    for (int i = 0; i < 500 && hub->stats().refused < 1; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_GE(hub->stats().refused, 1u);
  }
  bool told = false;
  for (const auto& w : warnings)
    told |= w.find("refused a worker with public key " + stranger->public_key) != std::string::npos;
  self->receive_while([&] { return !told; })(
      [&](const std::string& w) {
        told |= w.find("refused a worker with public key " + stranger->public_key) !=
                std::string::npos;
      },
      caf::after(std::chrono::seconds(10)) >> [&] { told = true; ADD_FAILURE() << "no warning"; });
  worker_thread ok(hub->endpoint(), "ok", 2, run_keys->public_key, listed_file);
  auto got = collect(1);
  ASSERT_EQ(got.count(0), 1u);
  expect_scored_like_local(got);
  EXPECT_EQ(hub->stats().pool.returned, 1u);
}

TEST(RemoteWorkerTest, KeyOptionsAreChecked) {
  std::atomic<bool> stop{true};
  verify_worker_options o;
  o.connect = "tcp://127.0.0.1:1";
  o.server_key = "short";
  auto r = run_verify_worker(o, verifier_registry::with_builtins(), stop, nullptr);
  ASSERT_FALSE(r);
  EXPECT_NE(r.err().message.find("40 characters of Z85 (got 5 characters)"), std::string::npos)
      << r.err().message;
  o.server_key.clear();
  o.keys_file = "/nonexistent/keys";
  r = run_verify_worker(o, verifier_registry::with_builtins(), stop, nullptr);
  ASSERT_FALSE(r);
  EXPECT_NE(r.err().message.find("needs the run's public key"), std::string::npos);
}

TEST(RemoteWorkerTest, AnEndpointZeroMqCannotUseIsAnError) {
  std::atomic<bool> stop{true};
  verify_worker_options o;
  o.connect = "carrier-pigeon://nowhere";
  auto r = run_verify_worker(o, verifier_registry::with_builtins(), stop, nullptr);
  ASSERT_FALSE(r);
  EXPECT_NE(r.err().message.find("cannot connect to \"carrier-pigeon://nowhere\""),
            std::string::npos)
      << r.err().message;
}

}  // namespace
}  // namespace adarl
