#include "runtime/remote_worker.hpp"

#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>
#include <unistd.h>

#include <chrono>
#include <future>
#include <ostream>
#include <utility>
#include <vector>
#include <zmq.hpp>

#include "actors/clock.hpp"
#include "actors/remote_wire.hpp"

namespace adarl {

std::string default_worker_name() {
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  return std::string(host[0] ? host : "worker") + "-" + std::to_string(::getpid());
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

void say(std::ostream* log, const std::string& line) {
  if (log) *log << line << std::endl;
}

/// A fresh DEALER connected under the worker's name, its hello sent.
result<worker_link> connect(zmq::context_t& ctx, const verify_worker_options& o,
                            const std::string& name, double now) {
  worker_link l;
  try {
    l.socket = zmq::socket_t(ctx, zmq::socket_type::dealer);
    l.socket.set(zmq::sockopt::linger, 200);
    l.socket.set(zmq::sockopt::routing_id, name);
    l.socket.connect(o.connect);
  } catch (const zmq::error_t& e) {
    return error{"worker: cannot connect to \"" + o.connect + "\": " + e.what()};
  }
  post(l.socket, encode_hello(o.credit, name));
  l.last_heard = l.last_sent = now;
  return l;
}

std::vector<verdict> score_batch(const verifier_registry& registry,
                                 const std::vector<remote_item>& items, tbb::task_arena& arena) {
  std::vector<verdict> out(items.size());
  arena.execute([&] {
    tbb::parallel_for(size_t(0), items.size(), [&](size_t i) {
      out[i] = verify_item(registry, items[i].item, items[i].completion);
    });
  });
  return out;
}

}  // namespace

result<verify_worker_stats> run_verify_worker(const verify_worker_options& o,
                                              const verifier_registry& registry,
                                              const std::atomic<bool>& stop, std::ostream* log) {
  const std::string name = o.name.empty() ? default_worker_name() : o.name;
  const auto start = steady_clock::now();
  auto now = [&] { return seconds_since(start); };
  tbb::task_arena arena(o.threads ? int(o.threads) : tbb::task_arena::automatic);
  zmq::context_t ctx{1};
  auto link = connect(ctx, o, name, now());
  if (!link) return link.err();
  say(log, "worker " + name + ": connecting to " + o.connect + " (credit " +
               std::to_string(o.credit) + ")");
  verify_worker_stats stats;
  std::vector<std::future<std::pair<uint64_t, std::vector<verdict>>>> pending;
  while (!stop.load()) {
    zmq::pollitem_t items[] = {{link->socket.handle(), 0, ZMQ_POLLIN, 0}};
    try {
      zmq::poll(items, 1, std::chrono::milliseconds(pending.empty() ? 50 : 1));
    } catch (const zmq::error_t&) {
      continue;  // EINTR: the loop checks stop
    }
    for (zmq::message_t body; items[0].revents & ZMQ_POLLIN;) {
      if (!link->socket.recv(body, zmq::recv_flags::dontwait)) break;
      link->last_heard = now();
      auto m = decode_remote(body.to_string_view());
      if (!m) {
        if (++stats.malformed <= 10) say(log, "worker " + name + ": skipped: " + m.err().message);
        continue;
      }
      if (m->type != "verify") continue;  // heartbeats just keep the link alive
      // Scored off this thread, so that heartbeats go on during a long batch.
      pending.push_back(std::async(std::launch::async, [&registry, &arena, m = std::move(*m)] {
        return std::pair{m.batch, score_batch(registry, m.items, arena)};
      }));
    }
    for (auto it = pending.begin(); it != pending.end();) {
      if (it->wait_for(std::chrono::seconds(0)) != std::future_status::ready) {
        ++it;
        continue;
      }
      const auto [batch, verdicts] = it->get();
      post(link->socket, encode_result(batch, verdicts));
      link->last_sent = now();
      ++stats.batches;
      stats.items += verdicts.size();
      it = pending.erase(it);
    }
    if (now() - link->last_heard >= o.timeout) {
      // The coordinator went away or never came: start over with a hello, which also
      // tells a restarted coordinator that this worker exists.
      auto fresh = connect(ctx, o, name, now());
      if (!fresh) return fresh.err();
      link = std::move(fresh);
      ++stats.reconnects;
      continue;
    }
    if (now() - link->last_sent >= o.heartbeat) {
      post(link->socket, encode_heartbeat());
      link->last_sent = now();
    }
  }
  post(link->socket, encode_bye());
  say(log, "worker " + name + ": stopped after " + std::to_string(stats.batches) +
               " batches (" + std::to_string(stats.items) + " completions)");
  return stats;
}

}  // namespace adarl
