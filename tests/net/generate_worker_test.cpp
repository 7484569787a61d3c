// A generator worker (net/generate_worker.hpp) driven by a hand-written coordinator:
// it says hello as a generator, checks each weights chunk (a damaged or truncated chunk
// is refused and taken when sent again), checks the version's hash over its chunks, and
// hands the engine exactly the bytes sent. Also the hash helpers of the wire.
#include "net/generate_worker.hpp"

#include <gtest/gtest.h>
#include <xxhash.h>

#include <mutex>
#include <thread>
#include <zmq.hpp>

#include "net/remote_wire.hpp"

namespace adarl {
namespace {

TEST(WireHashes, ChunkHashesCoverTheBytesInOrder) {
  std::string bytes(10000, '\0');
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = char((i * 7) ^ (i >> 9));
  const auto h = chunk_hashes(bytes, 4096);
  ASSERT_EQ(h.size(), 3u);
  EXPECT_EQ(h[0], XXH3_64bits(bytes.data(), 4096));
  EXPECT_EQ(h[1], XXH3_64bits(bytes.data() + 4096, 4096));
  EXPECT_EQ(h[2], XXH3_64bits(bytes.data() + 8192, 1808));
  EXPECT_EQ(chunk_hashes("", 4096), std::vector<uint64_t>{XXH3_64bits("", 0)});
  EXPECT_EQ(chunk_hashes(std::string(8192, 'x'), 4096).size(), 2u);
  // The version's hash depends on every chunk hash and their order.
  auto swapped = h;
  std::swap(swapped[0], swapped[1]);
  EXPECT_NE(chunk_list_hash(h), chunk_list_hash(swapped));
  EXPECT_EQ(chunk_list_hash(h).size(), 32u);
  EXPECT_NE(chunk_list_hash(h), content_hash(bytes));
  EXPECT_EQ(content_hash(bytes), content_hash(std::string(bytes)));
  EXPECT_NE(content_hash(bytes), content_hash(bytes.substr(1)));
}

/// What the worker's engine was given.
struct handed {
  std::mutex mutex;
  std::vector<std::pair<uint64_t, std::string>> versions;
};

/// An engine that decodes nothing and records the bytes of each version.
class recording_engine final : public generation_engine {
 public:
  explicit recording_engine(std::shared_ptr<handed> h) : h_(std::move(h)) {}
  uint32_t capacity() const override { return 1; }
  uint32_t active() const override { return 0; }
  void admit(generation_job) override {}
  void step(std::vector<generation_result>&) override {}
  result<bool> load(const weights_ptr& w) override {
    version_ = w->version;
    return true;
  }
  uint64_t version() const override { return version_; }
  result<weights_ptr> weights_from_bytes(std::string_view bytes,
                                         uint64_t version) const override {
    std::lock_guard lock(h_->mutex);
    h_->versions.emplace_back(version, std::string(bytes));
    auto w = std::make_shared<policy_weights>();
    w->version = version;
    return weights_ptr(std::move(w));
  }

 private:
  std::shared_ptr<handed> h_;
  uint64_t version_ = 0;
};

/// The coordinator's side of one worker connection, by hand.
struct raw_run {
  zmq::context_t ctx{1};
  zmq::socket_t socket{ctx, zmq::socket_type::router};
  std::string endpoint, worker;
  raw_run() {
    socket.set(zmq::sockopt::linger, 0);
    socket.set(zmq::sockopt::rcvtimeo, 10000);  // a test that waits longer has failed
    socket.bind("tcp://127.0.0.1:*");
    endpoint = socket.get(zmq::sockopt::last_endpoint);
  }
  /// The worker's next message other than a heartbeat or credit.
  remote_message next() {
    for (;;) {
      zmq::message_t id, body;
      if (!socket.recv(id) || !socket.recv(body)) {
        ADD_FAILURE() << "the worker said nothing for 10 s";
        return {};
      }
      worker = id.to_string();
      auto m = decode_remote(body.to_string_view());
      if (!m) {
        ADD_FAILURE() << m.err().message;
        return {};
      }
      if (m->type == "heartbeat" || m->type == "credit") continue;
      return std::move(*m);
    }
  }
  void send(const std::string& header, const std::string* data = nullptr) {
    socket.send(zmq::buffer(worker), zmq::send_flags::sndmore);
    socket.send(zmq::buffer(header), data ? zmq::send_flags::sndmore : zmq::send_flags::none);
    if (data) socket.send(zmq::buffer(*data), zmq::send_flags::none);
  }
};

TEST(GenerateWorker, RefusesDamagedChunksAndTakesEachVersionWhole) {
  raw_run run;
  auto got = std::make_shared<handed>();
  std::atomic<bool> stop{false};
  result<generate_worker_stats> stats = error{"not run"};
  std::thread worker([&] {
    generate_worker_options o;
    o.connect = run.endpoint;
    o.name = "w1";
    o.heartbeat = 0.2;
    stats = run_generate_worker(
        o,
        [got](const engine_spec&) -> result<std::unique_ptr<generation_engine>> {
          return std::unique_ptr<generation_engine>(new recording_engine(got));
        },
        stop, nullptr);
  });
  const auto hello = run.next();
  EXPECT_EQ(hello.type, "hello");
  EXPECT_EQ(hello.role, "generate");
  engine_spec spec;
  spec.kind = policy_kind::simulated;
  const uint64_t session = 42;
  run.send(encode_setup(session, encode_engine_spec(spec), 0.2));

  std::string bytes(10000, '\0');
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = char((i * 131 + 5) ^ (i >> 9));
  const auto hashes = chunk_hashes(bytes, 4096);
  const auto hash = chunk_list_hash(hashes);
  auto chunk = [&](uint64_t version, uint32_t i, const std::string& data, uint64_t h,
                   const std::string& whole_hash) {
    run.send(encode_weights(session, version, i, 3, uint64_t(i) * 4096, bytes.size(),
                            whole_hash, h),
             &data);
    return run.next();
  };
  const std::string c0 = bytes.substr(0, 4096), c1 = bytes.substr(4096, 4096),
                    c2 = bytes.substr(8192);
  auto a = chunk(5, 0, c0, hashes[0], hash);
  EXPECT_EQ(a.type, "chunk_ok");
  EXPECT_EQ(a.chunk, 0u);
  // A chunk whose bytes do not match its hash, and one cut short: refused, named.
  std::string damaged = c1;
  damaged[17] ^= 1;
  a = chunk(5, 1, damaged, hashes[1], hash);
  EXPECT_EQ(a.type, "chunk_bad");
  EXPECT_EQ(a.chunk, 1u);
  EXPECT_NE(a.reason.find("hash"), std::string::npos) << a.reason;
  a = chunk(5, 1, c1.substr(0, 1000), hashes[1], hash);
  EXPECT_EQ(a.type, "chunk_bad");
  // A chunk beyond the version's bytes.
  run.send(encode_weights(session, 5, 2, 3, 9999, bytes.size(), hash, hashes[2]), &c2);
  a = run.next();
  EXPECT_EQ(a.type, "chunk_bad");
  EXPECT_NE(a.reason.find("beyond"), std::string::npos) << a.reason;
  // Sent again whole: the version is taken, and the engine gets exactly its bytes.
  EXPECT_EQ(chunk(5, 1, c1, hashes[1], hash).type, "chunk_ok");
  EXPECT_EQ(chunk(5, 2, c2, hashes[2], hash).type, "chunk_ok");
  a = run.next();
  EXPECT_EQ(a.type, "weights_ok");
  EXPECT_EQ(a.version, 5u);

  // A version whose hash is not that of its chunks: refused as a whole.
  const std::string wrong = chunk_list_hash({hashes[1], hashes[0], hashes[2]});
  EXPECT_EQ(chunk(6, 0, c0, hashes[0], wrong).type, "chunk_ok");
  EXPECT_EQ(chunk(6, 1, c1, hashes[1], wrong).type, "chunk_ok");
  EXPECT_EQ(chunk(6, 2, c2, hashes[2], wrong).type, "chunk_ok");
  a = run.next();
  EXPECT_EQ(a.type, "weights_bad");
  EXPECT_EQ(a.version, 6u);

  // The engine sees version 5 once; version 6 never reaches it.
  for (int i = 0; i < 100; ++i) {
    {
      std::lock_guard lock(got->mutex);
      if (!got->versions.empty()) break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  stop = true;
  worker.join();
  ASSERT_TRUE(stats) << stats.err().message;
  EXPECT_EQ(stats->bad_chunks, 3u);
  EXPECT_EQ(stats->versions, 1u);
  std::lock_guard lock(got->mutex);
  ASSERT_EQ(got->versions.size(), 1u);
  EXPECT_EQ(got->versions[0].first, 5u);
  EXPECT_EQ(got->versions[0].second, bytes);
}

}  // namespace
}  // namespace adarl
