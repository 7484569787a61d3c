#include "net/verify_hub.hpp"

#include <caf/all.hpp>

#include <atomic>
#include <mutex>
#include <optional>
#include <random>
#include <set>
#include <unordered_map>
#include <zmq.hpp>

#include "actors/failure.hpp"
#include "base/clock.hpp"
#include "net/remote_wire.hpp"
#include "net/wake_fd.hpp"
#include "net/hub_thread.hpp"
#include "net/worker_socket.hpp"

namespace adarl {

/// The I/O thread and everything it owns. Only submit() and stats() are called from
/// other threads; the socket, the pool and the batches belong to the I/O thread.
class remote_hub {
 public:
  explicit remote_hub(remote_verifier_setup s)
      : setup_(std::move(s)), session_(std::random_device{}() * 0x100000000ull + std::random_device{}()),
        pool_(setup_.pool) {}

  ~remote_hub() { close(); }

  /// Stops the I/O thread (idempotent): batches still queued or out are dropped.
  void close() { shell_.close(); }

  std::optional<error> open() {
    hub_thread::handlers h;
    h.inbox = [this] { take_inbox(); };
    h.receive = [this] { receive(); };
    h.tick = [this] { act(pool_.poll(now())); };
    h.after = [this] { publish_stats(); };
    h.wait = [this] {
      const double due = std::min(pool_.next_due(now()), 0.1);
      return std::chrono::milliseconds(int64_t(due * 1000) + 1);
    };
    h.warn = [this](const std::string& w) { warn(w); };
    return shell_.open({setup_.bind, setup_.curve, setup_.curve_clients, "remote verifiers"},
                       wake_, std::move(h));
  }

  const std::string& endpoint() const { return shell_.endpoint(); }

  void submit(std::vector<completion> batch) {
    if (shell_.stopping()) return;  // the run is over
    {
      std::lock_guard lock(inbox_mutex_);
      inbox_.push_back(std::move(batch));
    }
    wake_.signal();
  }

  remote_verifier_stats stats() const {
    std::lock_guard lock(stats_mutex_);
    return stats_;
  }

 private:
  double now() const { return seconds_since(start_); }

  void warn(const std::string& what) {
    if (setup_.warn) setup_.warn("remote verifiers: " + what);
  }

  std::string name_of(const std::string& id) const {
    auto it = names_.find(id);
    return it == names_.end() || it->second.empty() ? "(unnamed)" : it->second;
  }

  /// False when the worker cannot be reached (gone, or its queue is full).
  bool send(const std::string& id, const std::string& payload) { return shell_.socket().send(id, payload); }

  std::string encode(uint64_t id, const std::vector<completion>& batch) const {
    std::vector<remote_item> items(batch.size());
    const auto& rows = setup_.scoring.prompts->rows;
    for (size_t i = 0; i < batch.size(); ++i) {
      const auto p = batch[i].order.prompt_id;
      if (p < rows.size()) items[i].item = rows[p].item;
      items[i].completion = completion_codec(setup_.scoring).decode_completion(batch[i].tokens);
    }
    return encode_verify(session_, id, items);
  }

  /// Counters become visible before the batch they count is passed on.
  void publish_stats() {
    std::lock_guard lock(stats_mutex_);
    stats_.pool = pool_.stats();
    stats_.malformed = malformed_;
    stats_.bad_results = bad_results_;
    stats_.other_session = other_session_;
    stats_.refused = refused_ + shell_.socket().refused();
    stats_.workers = pool_.workers();
  }

  void score_locally(std::vector<completion> batch) {
    publish_stats();
    if (setup_.local.empty()) {
      for (auto& c : batch) score(setup_.scoring, c);
      caf::anon_send(setup_.scoring.tracker, scored_atom::value, std::move(batch));
      return;
    }
    const auto& v = setup_.local[next_local_++ % setup_.local.size()];
    caf::anon_send(v, verify_atom::value, std::move(batch), uint32_t{0}, generator_actor{});
  }

  void act(const remote_actions& a) {
    std::vector<std::string> unreachable;
    for (const auto& [b, id] : a.send)
      if (!send(id, encode(b, batches_.at(b)))) unreachable.push_back(id);
    for (uint64_t b : a.local) {
      auto it = batches_.find(b);
      score_locally(std::move(it->second));
      batches_.erase(it);
    }
    for (const auto& id : a.heartbeat)
      if (!send(id, encode_heartbeat(setup_.pool.heartbeat))) unreachable.push_back(id);
    for (const auto& id : a.lost) {
      warn("worker " + name_of(id) + " silent for " + std::to_string(setup_.pool.timeout) +
           " s: lost, its batches go to other workers");
      names_.erase(id);
    }
    // Gone without a bye: its batches go elsewhere now; it says hello again when it
    // finds the run silent.
    for (const auto& id : unreachable)
      if (pool_.knows(id)) {
        warn("worker " + name_of(id) + " unreachable: its batches go to other workers");
        names_.erase(id);
        act(pool_.bye(id, now()));
      }
  }

  void take_inbox() {
    wake_.clear();
    std::vector<std::vector<completion>> in;
    {
      std::lock_guard lock(inbox_mutex_);
      in.swap(inbox_);
    }
    for (auto& batch : in) {
      remote_actions a;
      const uint64_t id = pool_.submit(now(), a);
      batches_.emplace(id, std::move(batch));
      act(a);
    }
  }

  void on_result(const std::string& id, remote_message& m) {
    if (m.session != session_) {  // scored for an earlier run: its batch ids mean nothing here
      ++other_session_;
      pool_.heard(id, now());
      return;
    }
    remote_actions a;
    if (pool_.returned(id, m.batch, now(), a)) {
      auto it = batches_.find(m.batch);
      auto batch = std::move(it->second);
      batches_.erase(it);
      if (m.problem.empty() && m.verdicts.size() != batch.size())
        m.problem = std::to_string(m.verdicts.size()) + " verdicts for a batch of " +
                    std::to_string(batch.size());
      if (!m.problem.empty()) {
        if (++bad_results_ <= 10)
          warn("worker " + name_of(id) + " returned unusable verdicts (" + m.problem +
               "): scored locally");
        score_locally(std::move(batch));
      } else {
        const auto rows = setup_.scoring.prompts->rows.size();
        for (size_t i = 0; i < batch.size(); ++i) {
          auto& c = batch[i];
          const verdict v = settled(std::move(m.verdicts[i]));  // a worker may not follow it
          c.reward = v.reward;
          c.reason = v.reason;
          if (c.order.prompt_id >= rows) {
            c.reward = 0.f;
            c.reason = "unknown_prompt";
          }
        }
        publish_stats();
        caf::anon_send(setup_.scoring.tracker, scored_atom::value, std::move(batch));
      }
    }
    act(a);
  }

  void receive() {
    while (auto in = shell_.socket().receive()) {
      const std::string& id = in->id;
      auto& m = in->message;
      if (!m) {
        if (shell_.socket().refuse_other_version(id, m.err())) {
          // Another version of adarl: told why, once per message, so that it stops.
          if (++refused_ <= 10) warn("refused worker " + name_of(id) + ": " + m.err().message);
        } else if (++malformed_ <= 10) {
          warn("malformed message from worker " + name_of(id) + ": " + m.err().message);
        }
        continue;
      }
      if (m->type == "hello" && m->role != "verify") {
        send(id, encode_refused("this endpoint serves verifiers; generators connect to "
                                "actors.remote_generators.bind"));
        if (++refused_ <= 10) warn("refused " + m->role + " worker " + m->name + " (wrong endpoint)");
        continue;
      }
      if (m->type == "hello") {
        names_[id] = m->name;
        act(pool_.hello(id, m->credit, now()));
      } else if (m->type == "result") {
        on_result(id, *m);
      } else if (m->type == "bye") {
        names_.erase(id);
        act(pool_.bye(id, now()));
      } else {
        pool_.heard(id, now());
      }
    }
  }

  remote_verifier_setup setup_;
  wake_fd wake_;
  steady_clock::time_point start_ = steady_clock::now();
  const uint64_t session_;  ///< Random per hub: answers for another run's batches are dropped.

  std::mutex inbox_mutex_;
  std::vector<std::vector<completion>> inbox_;
  mutable std::mutex stats_mutex_;
  remote_verifier_stats stats_;

  // I/O thread only.
  remote_pool pool_;
  std::unordered_map<uint64_t, std::vector<completion>> batches_;
  std::unordered_map<std::string, std::string> names_;  ///< identity -> name (logs).
  size_t next_local_ = 0;
  uint64_t malformed_ = 0;
  uint64_t bad_results_ = 0;
  uint64_t other_session_ = 0;
  uint64_t refused_ = 0;  ///< Workers of another protocol version or role.
  hub_thread shell_;  ///< Last: its thread uses every member above.
};

result<std::shared_ptr<remote_verifier_hub>> remote_verifier_hub::open(
    remote_verifier_setup setup) {
  auto impl = std::make_unique<remote_hub>(std::move(setup));
  if (auto e = impl->open()) return *e;
  return std::shared_ptr<remote_verifier_hub>(new remote_verifier_hub(std::move(impl)));
}

remote_verifier_hub::remote_verifier_hub(std::unique_ptr<remote_hub> impl)
    : impl_(std::move(impl)) {}

remote_verifier_hub::~remote_verifier_hub() = default;

const std::string& remote_verifier_hub::endpoint() const { return impl_->endpoint(); }

void remote_verifier_hub::close() { impl_->close(); }

void remote_verifier_hub::submit(std::vector<completion> batch) {
  impl_->submit(std::move(batch));
}

remote_verifier_stats remote_verifier_hub::stats() const { return impl_->stats(); }

namespace {

struct remote_verifier_state {
  static inline const char* name = "remote_verifier";
};

}  // namespace

verifier_actor spawn_remote_verifier(caf::actor_system& sys,
                                     std::shared_ptr<remote_verifier_hub> hub,
                                     result_sink_actor tracker) {
  return sys.spawn(
      [hub, tracker](verifier_actor::stateful_pointer<remote_verifier_state> self)
          -> verifier_actor::behavior_type {
        report_exceptions(self, "remote verifier hub");
        return {
            [hub, self, tracker](verify_atom, std::vector<completion>& batch,
                                 uint32_t credit, generator_actor g) {
              // Credit goes back at once: the batch may wait for a worker a while.
              if (credit > 0) self->send(tracker, credit_atom::value, credit, std::move(g));
              hub->submit(std::move(batch));
            },
        };
      });
}

}  // namespace adarl
