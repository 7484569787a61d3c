#include "net/verify_worker.hpp"

#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>
#include <ostream>
#include <thread>
#include <utility>
#include <vector>
#include <spdlog/logger.h>
#include <zmq.hpp>

#include "base/clock.hpp"
#include "net/curve_key_files.hpp"
#include "net/remote_wire.hpp"
#include "net/wake_fd.hpp"
#include "runtime/logging.hpp"

namespace adarl {

std::string default_worker_name() {
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  // A random suffix too: containers share host names and often run as pid 1.
  char suffix[8];
  std::snprintf(suffix, sizeof suffix, "%04x", unsigned(std::random_device{}() & 0xffff));
  return std::string(host[0] ? host : "worker") + "-" + std::to_string(::getpid()) + "-" +
         suffix;
}

namespace {

struct worker_link {
  zmq::socket_t socket;
  double last_heard = 0;
  double last_sent = 0;
};

/// Sends without blocking; a full queue or a closed peer loses the message (the
/// coordinator's lease and heartbeat timeouts cover it).
void post(zmq::socket_t& socket, const std::string& payload) {
  try {
    socket.send(zmq::buffer(payload), zmq::send_flags::dontwait);
  } catch (const zmq::error_t&) {
  }
}

/// A fresh DEALER connected under the worker's name, its hello sent.
result<worker_link> connect(zmq::context_t& ctx, const verify_worker_options& o,
                            const std::string& name, const std::optional<curve_keys>& keys,
                            double now) {
  worker_link l;
  try {
    l.socket = zmq::socket_t(ctx, zmq::socket_type::dealer);
    l.socket.set(zmq::sockopt::linger, 200);
    l.socket.set(zmq::sockopt::routing_id, name);
    if (keys) {
      l.socket.set(zmq::sockopt::curve_serverkey, o.server_key);
      l.socket.set(zmq::sockopt::curve_publickey, keys->public_key);
      l.socket.set(zmq::sockopt::curve_secretkey, keys->secret_key);
    }
    l.socket.connect(o.connect);
  } catch (const zmq::error_t& e) {
    return error{"worker: cannot connect to \"" + o.connect + "\": " + e.what()};
  }
  post(l.socket, encode_hello(o.credit, name));
  l.last_heard = l.last_sent = now;
  return l;
}

/// Scoring threads (one per batch of credit): batches go in, verdicts come out, and an
/// eventfd the worker loop polls beside its socket says when. Heartbeats go on while a
/// long batch is scored.
class scoring_pool {
 public:
  struct done_batch {
    uint64_t session = 0, batch = 0;
    std::vector<verdict> verdicts;
  };

  scoring_pool(const verifier_registry& registry, uint32_t threads, uint32_t tbb_threads)
      : registry_(registry),
        arena_(tbb_threads ? int(tbb_threads) : tbb::task_arena::automatic) {
    for (uint32_t i = 0; i < std::max(1u, threads); ++i) threads_.emplace_back([this] { run(); });
  }
  ~scoring_pool() {
    {
      std::lock_guard lock(mutex_);
      closing_ = true;
      todo_.clear();  // nobody will read their answers
    }
    wake_.notify_all();
    for (auto& t : threads_) t.join();
  }
  bool ok() const { return done_fd_.ok(); }
  int fd() const { return done_fd_.fd(); }
  void add(remote_message m) {
    {
      std::lock_guard lock(mutex_);
      todo_.push_back(std::move(m));
    }
    wake_.notify_one();
  }
  /// Drops the batches not started yet (the coordinator takes them back on hello).
  void drop_waiting() {
    std::lock_guard lock(mutex_);
    todo_.clear();
  }
  std::vector<done_batch> take() {
    done_fd_.clear();
    std::lock_guard lock(mutex_);
    return std::exchange(done_, {});
  }

 private:
  void run() {
    std::unique_lock lock(mutex_);
    for (;;) {
      wake_.wait(lock, [&] { return closing_ || !todo_.empty(); });
      if (todo_.empty()) return;  // closing
      remote_message m = std::move(todo_.front());
      todo_.pop_front();
      lock.unlock();
      std::vector<verdict> out(m.items.size());
      arena_.execute([&] {
        tbb::parallel_for(size_t(0), m.items.size(), [&](size_t i) {
          out[i] = verify_item(registry_, m.items[i].item, m.items[i].completion);
        });
      });
      lock.lock();
      done_.push_back({m.session, m.batch, std::move(out)});
      done_fd_.signal();
    }
  }

  const verifier_registry& registry_;
  tbb::task_arena arena_;
  wake_fd done_fd_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<remote_message> todo_;
  std::vector<done_batch> done_;
  bool closing_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace

result<verify_worker_stats> run_verify_worker(const verify_worker_options& o,
                                              const verifier_registry& registry,
                                              const std::atomic<bool>& stop, std::ostream* log) {
  const std::string name = o.name.empty() ? default_worker_name() : o.name;
  const logger_ptr lg = open_worker_log(log, "worker " + name);
  const auto start = steady_clock::now();
  auto now = [&] { return seconds_since(start); };
  std::optional<curve_keys> keys;
  if (!o.server_key.empty()) {
    if (!is_z85_key(o.server_key))
      return error{"worker: the server key must be the run's public key, 40 characters of "
                   "Z85 (got " + std::to_string(o.server_key.size()) + " characters)"};
    auto k = o.keys_file.empty() ? make_curve_keys() : read_curve_keys(o.keys_file);
    if (!k) return error{"worker: " + k.err().message};
    keys = *k;
  } else if (!o.keys_file.empty()) {
    return error{"worker: a keys file needs the run's public key (--server-key)"};
  }
  zmq::context_t ctx{1};
  auto link = connect(ctx, o, name, keys, now());
  if (!link) return link.err();
  scoring_pool pool(registry, o.credit, o.threads);
  if (!pool.ok()) return error{"worker: eventfd failed"};
  lg->info("connecting to {} (credit {})", o.connect, o.credit);
  verify_worker_stats stats;
  double timeout = o.timeout;
  while (!stop.load()) {
    zmq::pollitem_t items[] = {{link->socket.handle(), 0, ZMQ_POLLIN, 0},
                               {nullptr, pool.fd(), ZMQ_POLLIN, 0}};
    try {
      zmq::poll(items, 2, std::chrono::milliseconds(50));
    } catch (const zmq::error_t&) {
      continue;  // EINTR: the loop checks stop
    }
    for (zmq::message_t body; items[0].revents & ZMQ_POLLIN;) {
      if (!link->socket.recv(body, zmq::recv_flags::dontwait)) break;
      link->last_heard = now();
      auto m = decode_remote(body.to_string_view());
      if (!m) {
        if (++stats.malformed <= 10) lg->warn("skipped: {}", m.err().message);
        continue;
      }
      if (m->type == "refused")
        return error{"worker " + name + ": refused by the run: " + m->reason};
      if (m->type == "verify") pool.add(std::move(*m));
      // The coordinator's heartbeat period: silent for several of them, it is gone.
      if (m->type == "heartbeat" && m->interval > 0) timeout = std::max(o.timeout, 4 * m->interval);
    }
    if (items[1].revents & ZMQ_POLLIN)
      for (const auto& d : pool.take()) {
        post(link->socket, encode_result(d.session, d.batch, d.verdicts));
        link->last_sent = now();
        ++stats.batches;
        stats.items += d.verdicts.size();
      }
    if (now() - link->last_heard >= timeout) {
      // The coordinator went away or never came: start over with a hello, which also
      // tells a restarted coordinator that this worker exists.
      auto fresh = connect(ctx, o, name, keys, now());
      if (!fresh) return fresh.err();
      link = std::move(fresh);
      pool.drop_waiting();  // the hello makes the coordinator send them again
      if (++stats.reconnects <= 3 || stats.reconnects % 100 == 0)
        lg->warn("no word from {} for {} s: connecting again{}", o.connect, int(timeout),
                 keys ? " (a wrong --server-key, or a key not on the run's client list, "
                        "looks the same)"
                      : "");
      continue;
    }
    if (now() - link->last_sent >= o.heartbeat) {
      post(link->socket, encode_heartbeat());
      link->last_sent = now();
    }
  }
  post(link->socket, encode_bye());
  lg->info("stopped after {} batches ({} completions)", stats.batches, stats.items);
  return stats;
}

}  // namespace adarl
