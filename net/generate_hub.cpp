#include "net/generate_hub.hpp"

#include <caf/all.hpp>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <random>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "actors/failure.hpp"
#include "base/atomic_file.hpp"
#include "base/clock.hpp"
#include "net/tsan_annotate.hpp"
#include "net/wake_fd.hpp"
#include "net/hub_thread.hpp"
#include "net/worker_socket.hpp"

namespace adarl {

namespace {

/// One policy version as workers receive it.
struct version_bytes {
  uint64_t version = 0;
  std::shared_ptr<const std::string> bytes;  ///< Pushed mode; null with a path.
  std::string path;                          ///< weights_path mode: the file.
  uint64_t size = 0;
  std::string hash;                          ///< chunk_list_hash, or content_hash of a file.
  std::vector<uint64_t> chunk_hashes;        ///< XXH3-64 of each chunk (pushed mode).
  uint32_t chunk_bytes = 0;
  steady_clock::time_point published;        ///< When publish() began (before to_bytes).
  uint32_t chunks() const { return uint32_t(chunk_hashes.size()); }
};

/// What other threads hand the I/O thread: a proxy's orders, the newest version.
struct hub_inbox {
  std::mutex mutex;
  std::vector<std::pair<std::string, std::vector<work_order>>> orders;
  std::shared_ptr<const version_bytes> version;  ///< Newest, not yet taken.
  wake_fd wake;

  void push_orders(const std::string& worker, std::vector<work_order> o) {
    {
      std::lock_guard lock(mutex);
      orders.emplace_back(worker, std::move(o));
    }
    wake.signal();
  }
};

/// A remote worker as the tracker sees it: orders go to the hub, for that worker.
generator_actor::behavior_type proxy_fun(generator_actor::pointer self,
                                         std::shared_ptr<hub_inbox> inbox, std::string worker) {
  report_exceptions(self, "remote generator proxy");
  return {
      [=](work_atom, std::vector<work_order>& orders) {
        inbox->push_orders(worker, std::move(orders));
      },
      [](weights_atom, weights_ptr) {},  // the hub sends weights to every worker
      [](weights_atom, weight_bytes_ptr) {},
      [](decode_atom) {},
  };
}

struct order_key {
  uint64_t step;
  uint32_t slot, index, round;
  bool operator==(const order_key&) const = default;
};

struct order_key_hash {
  size_t operator()(const order_key& k) const {
    return std::hash<uint64_t>()(k.step * 0x9e3779b97f4a7c15ull ^
                                 (uint64_t(k.slot) << 32 | k.index) ^ (uint64_t(k.round) << 17));
  }
};

order_key key_of(const work_order& o) { return {o.step, o.slot, o.index, o.eval_round}; }

}  // namespace

/// The I/O thread and everything it owns. publish(), stats() and the proxies (through
/// the inbox) are called from other threads; the socket and the workers belong to it.
class generator_hub_io {
 public:
  generator_hub_io(caf::actor_system& sys, remote_generator_setup s)
      : sys_(sys), setup_(std::move(s)), inbox_(std::make_shared<hub_inbox>()) {}
  ~generator_hub_io() { close(); }

  std::optional<error> open() {
    hub_thread::handlers h;
    h.inbox = [this] { take_inbox(); };
    h.receive = [this] { receive(); };
    h.tick = [this] { timers(); };
    h.finish = [this] { retire_all(); };
    h.wait = [] { return std::chrono::milliseconds(50); };
    h.warn = [this](const std::string& w) { warn(w); };
    return shell_.open({setup_.bind, setup_.curve, setup_.curve_clients, "remote generators"},
                       inbox_->wake, std::move(h));
  }

  void close() { shell_.close(); }

  const std::string& endpoint() const { return shell_.endpoint(); }

  void publish(const weights_ptr& w) {
    if (!w || (published_ && w->version <= last_published_)) return;
    const auto began = steady_clock::now();
    auto bytes = w->to_bytes();
    if (!bytes) return warn("version " + std::to_string(w->version) + ": " + bytes.err().message);
    auto v = std::make_shared<version_bytes>();
    v->version = w->version;
    v->size = bytes->size();
    v->published = began;
    if (!setup_.weights_path.empty()) {
      v->hash = content_hash(*bytes);
      if (auto ok = write_version_file(*v, *bytes); !ok) return warn(ok.err().message);
    } else {
      v->chunk_bytes = std::max<uint32_t>(1, setup_.chunk_bytes);
      v->chunk_hashes = chunk_hashes(*bytes, v->chunk_bytes);
      v->hash = chunk_list_hash(v->chunk_hashes);
      v->bytes = std::make_shared<const std::string>(std::move(*bytes));
    }
    published_ = true;
    last_published_ = w->version;
    {
      std::lock_guard lock(inbox_->mutex);
      inbox_->version = std::move(v);
    }
    inbox_->wake.signal();
  }

  cluster_stats stats() const {
    std::lock_guard lock(stats_mutex_);
    return stats_;
  }

 private:
  struct worker {
    std::string id, name;
    uint64_t session = 0;
    generator_actor proxy;          ///< Spawned once the worker holds weights.
    double last_heard = 0, last_sent = 0;
    uint32_t capacity = 0;
    uint32_t pending_credit = 0;    ///< Credit announced before it held any weights.
    bool ready = false;             ///< Holds a version: its credit goes to the tracker.
    std::shared_ptr<const version_bytes> sending;  ///< Version being delivered.
    uint32_t next_chunk = 0, unacked = 0, restarts = 0;
    std::vector<uint32_t> resend;   ///< Chunks the worker found damaged.
    uint64_t holds = 0;             ///< Version acknowledged (valid when ready).
    std::unordered_map<order_key, work_order, order_key_hash> in_flight;
    std::unordered_set<uint64_t> prompts_sent;
  };

  double now() const { return seconds_since(start_); }
  void warn(const std::string& what) {
    if (setup_.warn) setup_.warn("remote generators: " + what);
  }
  void note(const std::string& what) {
    if (setup_.note) setup_.note("remote generators: " + what);
    else warn(what);
  }

  result<bool> write_version_file(version_bytes& v, const std::string& bytes) {
    namespace fs = std::filesystem;
    char name[64];
    std::snprintf(name, sizeof name, "weights-v%09llu.bin", (unsigned long long)v.version);
    v.path = (fs::path(setup_.weights_path) / name).string();
    std::error_code ec;
    fs::create_directories(setup_.weights_path, ec);
    if (auto ok = write_file_atomic(v.path, bytes); !ok) return ok;
    // Keep this version and the two before it (a worker may still be reading one of
    // them); remove older ones and any numbered above this one (left by an earlier run
    // in the same directory, or by this run before a resume from an earlier checkpoint).
    // Names are zero-padded to one length, so they sort as their versions.
    const std::string current = name;
    std::vector<std::string> before;
    for (const auto& e : fs::directory_iterator(setup_.weights_path, ec)) {
      const auto f = e.path().filename().string();
      if (f.rfind("weights-v", 0) != 0 || f.size() != current.size() || f == current) continue;
      if (f > current) fs::remove(e.path(), ec);
      else before.push_back(f);
    }
    std::sort(before.begin(), before.end());
    for (size_t i = 0; i + 2 < before.size(); ++i)
      fs::remove(fs::path(setup_.weights_path) / before[i], ec);
    return true;
  }

  bool send(worker& w, const std::string& payload) {
    w.last_sent = now();
    return shell_.socket().send(w.id, payload);
  }

  /// `id` holds the current version (or is gone): the version's delivery time is known
  /// once every worker there at its publication has it.
  void delivered(const std::string& id) {
    if (!awaiting_.erase(id) || !awaiting_.empty() || !current_) return;
    const double s = seconds_since(current_->published);
    change([&](cluster_stats& st) {
      st.weights_seconds = s;
      st.weights_delivered = current_->version;
    });
  }

  void lose(const std::string& id, const std::string& why) {
    auto it = workers_.find(id);
    if (it == workers_.end()) return;
    awaiting_.erase(id);
    worker& w = it->second;
    std::vector<work_order> orders;
    for (auto& [k, o] : w.in_flight) orders.push_back(o);
    change([&](cluster_stats& s) {  // counted before anyone hears of it
      ++s.lost;
      s.orders_reissued += orders.size();
      s.workers = uint32_t(workers_.size() - 1);
    });
    warn("worker " + w.name + " " + why + ": " + std::to_string(orders.size()) +
         " orders handed out again");
    // The proxy stays until the run ends: orders the tracker sends it before it hears
    // of the loss come back here and are handed out again (an ended actor would drop them).
    if (w.proxy) {
      caf::anon_send(setup_.tracker, reissue_atom::value, std::move(orders), w.proxy);
      retired_.push_back(w.proxy);
    } else if (!orders.empty()) {
      caf::anon_send(setup_.tracker, reissue_atom::value, std::move(orders));
    }
    workers_.erase(it);
  }

  template <class F>
  void change(F f) {
    {
      std::lock_guard lock(stats_mutex_);
      f(stats_);
    }
    stats_dirty_ = true;
  }

  void start_delivery(worker& w) {
    if (!current_) return;
    w.sending = current_;
    w.next_chunk = 0;
    w.unacked = 0;
    w.resend.clear();
    if (!current_->path.empty()) {
      if (!send(w, encode_weights_path(w.session, current_->version, current_->path,
                                       current_->size, current_->hash)))
        lose(w.id, "unreachable");
      return;
    }
    pump(w);
  }

  /// Sends chunks of the version in delivery while the worker's window has room.
  bool pump(worker& w) {
    const auto& v = w.sending;
    if (!v || !v->bytes) return true;
    while (w.unacked < std::max<uint32_t>(1, setup_.window)) {
      uint32_t chunk;
      if (!w.resend.empty()) {
        chunk = w.resend.back();
        w.resend.pop_back();
      } else if (w.next_chunk < v->chunks()) {
        chunk = w.next_chunk++;
      } else {
        break;
      }
      const uint64_t at = uint64_t(chunk) * v->chunk_bytes;
      const size_t len = std::min<uint64_t>(v->chunk_bytes, v->size - std::min(at, v->size));
      // Zero-copy: the frame points into the version's bytes and keeps them alive;
      // libzmq's I/O thread drops that reference once the frame is sent.
      auto* keep = new std::shared_ptr<const std::string>(v->bytes);
      tsan_release(keep);
      zmq::message_t data(const_cast<char*>(v->bytes->data()) + at, len,
                          [](void*, void* hint) {
                            tsan_acquire(hint);
                            delete static_cast<std::shared_ptr<const std::string>*>(hint);
                          },
                          keep);
      w.last_sent = now();
      if (!shell_.socket().send(w.id,
                         encode_weights(w.session, v->version, chunk, v->chunks(), at,
                                        v->size, v->hash, v->chunk_hashes[chunk]),
                         data)) {
        lose(w.id, "unreachable");
        return false;
      }
      ++w.unacked;
      change([&](cluster_stats& s) { s.weights_bytes += len; });
    }
    return true;
  }

  void take_inbox() {
    inbox_->wake.clear();
    std::vector<std::pair<std::string, std::vector<work_order>>> orders;
    std::shared_ptr<const version_bytes> version;
    {
      std::lock_guard lock(inbox_->mutex);
      orders.swap(inbox_->orders);
      version = std::move(inbox_->version);
      inbox_->version.reset();
    }
    if (version) {
      current_ = version;
      change([](cluster_stats& s) { ++s.weights_versions; });
      awaiting_.clear();
      for (const auto& [id, w] : workers_) awaiting_.insert(id);
      for (const auto& id : std::vector<std::string>(awaiting_.begin(), awaiting_.end()))
        if (auto it = workers_.find(id); it != workers_.end())
          start_delivery(it->second);  // a superseded version in flight is abandoned
    }
    for (auto& [id, list] : orders) send_orders(id, std::move(list));
  }

  void send_orders(const std::string& id, std::vector<work_order> orders) {
    auto it = workers_.find(id);
    if (it == workers_.end()) {  // its proxy outlived it: the orders go elsewhere
      change([&](cluster_stats& s) { s.orders_reissued += orders.size(); });
      caf::anon_send(setup_.tracker, reissue_atom::value, std::move(orders));
      return;
    }
    worker& w = it->second;
    std::vector<remote_prompt> prompts;
    const auto& rows = setup_.prompts->rows;
    for (const auto& o : orders) {
      w.in_flight[key_of(o)] = o;
      if (o.prompt_id < rows.size() && w.prompts_sent.insert(o.prompt_id).second)
        prompts.push_back({o.prompt_id, rows[o.prompt_id].tokens});
    }
    if (!send(w, encode_orders(w.session, orders, prompts))) lose(id, "unreachable");
  }

  void on_hello(const std::string& id, const remote_message& m) {
    if (m.role != "generate") {
      shell_.socket().send(id, encode_refused("this endpoint serves generators; verifiers connect "
                                       "to actors.remote_verifiers.bind"));
      warn("refused a " + m.role + " worker (wrong endpoint)");
      return;
    }
    if (workers_.count(id)) lose(id, "restarted");
    // (A worker restarted under its name gets a new proxy: the old one is retired.)
    worker w;
    w.id = id;
    w.name = m.name.empty() ? "(unnamed)" : m.name;
    w.capacity = m.capacity;
    w.session = session_rng_();
    w.last_heard = now();
    auto& ref = workers_.emplace(id, std::move(w)).first->second;
    change([&](cluster_stats& s) {
      ++s.joined;
      s.workers = uint32_t(workers_.size());
    });
    note("worker " + ref.name + " joined (capacity " + std::to_string(ref.capacity) + ")");
    if (!send(ref, encode_setup(ref.session, setup_.engine, setup_.heartbeat)))
      return lose(id, "unreachable");
    start_delivery(ref);
  }

  void make_ready(worker& w) {
    if (w.ready) return;
    w.ready = true;
    // The tracker sees the worker as a generator from now on.
    w.proxy = sys_.spawn(proxy_fun, inbox_, w.id);
    if (w.pending_credit > 0)
      caf::anon_send(setup_.tracker, credit_atom::value, w.pending_credit, w.proxy);
    w.pending_credit = 0;
  }

  void on_message(const std::string& id, remote_message& m) {
    if (m.type == "hello") return on_hello(id, m);
    auto it = workers_.find(id);
    if (it == workers_.end()) {
      if (m.type != "bye") ++unknown_;  // not (or no longer) joined: ignored
      return;
    }
    worker& w = it->second;
    w.last_heard = now();
    const bool has_session = m.type != "heartbeat" && m.type != "bye" && m.type != "error";
    if (has_session && m.session != w.session) {
      if (m.type == "results") change([&](cluster_stats& s) { s.stale_results += m.completions.size(); });
      return;  // meant for an earlier connection of this worker
    }
    if (m.type == "credit") {
      if (!w.ready) {
        w.pending_credit += m.credit;
      } else if (m.credit > 0) {
        caf::anon_send(setup_.tracker, credit_atom::value, m.credit, w.proxy);
      }
    } else if (m.type == "results") {
      for (const auto& c : m.completions) w.in_flight.erase(key_of(c.order));
      const auto& v = setup_.verifiers;
      if (!m.completions.empty() || m.credit > 0)
        caf::anon_send(v[next_verifier_++ % v.size()], verify_atom::value,
                       std::move(m.completions), m.credit, w.proxy);
    } else if (m.type == "chunk_ok") {
      if (w.sending && m.version == w.sending->version && w.unacked > 0) {
        --w.unacked;
        pump(w);
      }
    } else if (m.type == "chunk_bad") {
      if (w.sending && m.version == w.sending->version) {
        if (w.unacked > 0) --w.unacked;
        w.resend.push_back(m.chunk);
        ++chunks_resent_;
        pump(w);
      }
    } else if (m.type == "weights_ok") {
      w.holds = m.version;
      if (w.sending && m.version == w.sending->version) w.sending.reset();
      if (current_ && m.version == current_->version) delivered(id);
      make_ready(w);
    } else if (m.type == "weights_bad") {
      if (w.sending && m.version == w.sending->version) {
        if (++w.restarts > 3) return lose(id, "failed to take weights (" + m.reason + ")");
        warn("worker " + w.name + " refused version " + std::to_string(m.version) + " (" +
             m.reason + "): sending it again");
        start_delivery(w);
      }
    } else if (m.type == "error") {
      lose(id, "failed (" + m.reason + ")");
    } else if (m.type == "bye") {
      lose(id, "left");
    }
  }

  void receive() {
    while (auto in = shell_.socket().receive(/*data_frames=*/1)) {
      auto& m = in->message;
      if (!m) {
        if (shell_.socket().refuse_other_version(in->id, m.err())) {
          if (++refused_ <= 10) warn("refused a worker: " + m.err().message);
        } else if (++malformed_ <= 10) {
          warn("malformed message from a worker: " + m.err().message);
        }
        continue;
      }
      on_message(in->id, *m);
    }
  }

  void timers() {
    const double t = now();
    std::vector<std::string> silent;
    for (auto& [id, w] : workers_) {
      if (t - w.last_heard > setup_.timeout) silent.push_back(id);
      else if (t - w.last_sent >= setup_.heartbeat &&
               !send(w, encode_heartbeat(setup_.heartbeat)))
        silent.push_back(id);
    }
    for (const auto& id : silent) lose(id, "silent or unreachable");
    if (stats_dirty_ && t - stats_sent_ >= 0.2) {
      stats_dirty_ = false;
      stats_sent_ = t;
      if (setup_.metrics) caf::anon_send(setup_.metrics, cluster_atom::value, stats());
    }
  }

  /// The loop has stopped: every worker's proxy ends.
  void retire_all() {
    for (auto& [id, w] : workers_)
      if (w.proxy) retired_.push_back(w.proxy);
    for (const auto& p : retired_) caf::anon_send_exit(p, caf::exit_reason::user_shutdown);
    workers_.clear();
  }

  caf::actor_system& sys_;
  remote_generator_setup setup_;
  std::shared_ptr<hub_inbox> inbox_;
  steady_clock::time_point start_ = steady_clock::now();
  mutable std::mutex stats_mutex_;
  cluster_stats stats_;
  // The publishing thread only.
  bool published_ = false;
  uint64_t last_published_ = 0;
  // The I/O thread only.
  std::mt19937_64 session_rng_{std::random_device{}() * 0x100000001ull + std::random_device{}()};
  std::unordered_map<std::string, worker> workers_;
  std::shared_ptr<const version_bytes> current_;
  std::set<std::string> awaiting_;  ///< Workers still to acknowledge current_.
  std::vector<generator_actor> retired_;  ///< Proxies of lost workers, ended at close.
  size_t next_verifier_ = 0;
  bool stats_dirty_ = false;
  double stats_sent_ = 0;
  uint64_t malformed_ = 0, refused_ = 0, unknown_ = 0, chunks_resent_ = 0;
  hub_thread shell_;  ///< Last: its thread uses every member above.
};

result<std::shared_ptr<remote_generator_hub>> remote_generator_hub::open(
    caf::actor_system& sys, remote_generator_setup setup) {
  if (setup.verifiers.empty()) return error{"remote generators: no verifier to send results to"};
  auto io = std::make_unique<generator_hub_io>(sys, std::move(setup));
  if (auto e = io->open()) return *e;
  return std::shared_ptr<remote_generator_hub>(new remote_generator_hub(std::move(io)));
}

remote_generator_hub::remote_generator_hub(std::unique_ptr<generator_hub_io> io)
    : io_(std::move(io)) {}

remote_generator_hub::~remote_generator_hub() = default;

const std::string& remote_generator_hub::endpoint() const { return io_->endpoint(); }

void remote_generator_hub::publish(const weights_ptr& weights) { io_->publish(weights); }

void remote_generator_hub::close() { io_->close(); }

cluster_stats remote_generator_hub::stats() const { return io_->stats(); }

generator_actor spawn_remote_generators(caf::actor_system& sys,
                                        std::shared_ptr<remote_generator_hub> hub) {
  return sys.spawn<caf::detached>([hub](generator_actor::pointer self) -> generator_actor::behavior_type {
    report_exceptions(self, "remote generator hub");
    return {
        [](work_atom, std::vector<work_order>&) {},  // never asked: it announces no credit
        [hub](weights_atom, weights_ptr w) { hub->publish(w); },
        [](weights_atom, weight_bytes_ptr) {},
        [](decode_atom) {},
    };
  });
}

}  // namespace adarl
