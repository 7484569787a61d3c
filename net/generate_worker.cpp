#include "net/generate_worker.hpp"

#include <caf/all.hpp>
#include <spdlog/logger.h>
#include <xxhash.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>
#include <optional>
#include <ostream>
#include <shared_mutex>
#include <unordered_map>
#include <vector>
#include <zmq.hpp>

#include "actors/generator.hpp"
#include "base/clock.hpp"
#include "net/curve_key_files.hpp"
#include "net/remote_wire.hpp"
#include "net/verify_worker.hpp"
#include "net/wake_fd.hpp"
#include "runtime/logging.hpp"

namespace adarl {

namespace {

/// What the worker's actors hand the socket loop (they run on CAF's threads).
struct outbox {
  std::mutex mutex;
  wake_fd wake;
  uint32_t credit = 0;  ///< Announced without results (the generator's first credit).
  std::vector<std::pair<std::vector<completion>, uint32_t>> results;  ///< With their credit.
  std::vector<std::string> warnings;

  template <class F>
  void put(F f) {
    {
      std::lock_guard lock(mutex);
      f(*this);
    }
    wake.signal();
  }
};

/// Prompts learned with the orders; the generator reads them on its own thread.
struct prompt_cache {
  std::shared_mutex mutex;
  std::unordered_map<uint64_t, std::shared_ptr<const std::vector<int32_t>>> tokens;

  std::shared_ptr<const std::vector<int32_t>> find(uint64_t id) {
    std::shared_lock lock(mutex);
    auto it = tokens.find(id);
    return it == tokens.end() ? nullptr : it->second;
  }
};

// The worker's own side of the generator's collaborators: credit and results go to the
// socket loop; nothing else is asked of them here.
work_source_actor::behavior_type uplink_tracker(work_source_actor::pointer,
                                                std::shared_ptr<outbox> out) {
  return {
      [=](credit_atom, uint32_t n, generator_actor) { out->put([&](outbox& o) { o.credit += n; }); },
  };
}

verifier_actor::behavior_type uplink_verifier(verifier_actor::pointer, std::shared_ptr<outbox> out) {
  return {[=](verify_atom, std::vector<completion>& batch, uint32_t credit, generator_actor) {
    out->put([&](outbox& o) { o.results.emplace_back(std::move(batch), credit); });
  }};
}

metrics_actor::behavior_type quiet_metrics(metrics_actor::pointer) {
  return {[](record_atom, const step_record&) {}, [](eval_atom, const eval_report&) {},
          [](load_atom, const generator_load&) {}, [](cluster_atom, const cluster_stats&) {},
          [](save_atom) -> bool { return true; },
          [](flush_atom) -> bool { return true; }};
}

caf::behavior warning_sink(caf::event_based_actor*, std::shared_ptr<outbox> out) {
  return {[=](const std::string& w) { out->put([&](outbox& o) { o.warnings.push_back(w); }); },
          [=](stop_atom, const std::string& w) {
            out->put([&](outbox& o) { o.warnings.push_back(w); });
          }};
}

struct scheduler_config : caf::actor_system_config {
  scheduler_config() {
    set("scheduler.max-threads", size_t{2});
    set("logger.console", caf::atom("none"));
  }
};

/// One connection's engine: an actor system with a generator inside, built from the
/// run's spec when the run says setup, torn down when the connection ends.
struct engine_host {
  scheduler_config cfg;
  caf::actor_system sys{cfg};
  generator_actor generator;
  std::vector<caf::actor> helpers;

  engine_host(const engine_spec& spec, const spec_engine_factory& make,
              std::shared_ptr<outbox> out, std::shared_ptr<prompt_cache> prompts) {
    auto tracker = sys.spawn(uplink_tracker, out);
    auto verifier = sys.spawn(uplink_verifier, out);
    auto metrics = sys.spawn(quiet_metrics);
    auto warnings = sys.spawn(warning_sink, out);
    helpers = {caf::actor_cast<caf::actor>(tracker), caf::actor_cast<caf::actor>(verifier),
               caf::actor_cast<caf::actor>(metrics), warnings};
    generator_setup gs;
    gs.make_engine = [spec, make] { return make(spec); };
    gs.prompt_tokens = [prompts](uint64_t id) { return prompts->find(id); };
    gs.tracker = tracker;
    gs.verifiers = {verifier};
    gs.metrics = metrics;
    gs.supervisor = warnings;
    gs.wait_for_weights = true;
    generator = spawn_generator(sys, std::move(gs));
  }
  ~engine_host() {
    caf::anon_send_exit(generator, caf::exit_reason::user_shutdown);
    for (const auto& h : helpers) caf::anon_send_exit(h, caf::exit_reason::user_shutdown);
  }
};

/// A version arriving in chunks.
struct assembly {
  uint64_t version = 0;
  std::string hash;
  std::string bytes;
  std::vector<bool> got;
  std::vector<uint64_t> chunk_hashes;  ///< As checked, for the version's hash.
  uint64_t filled = 0;                 ///< Bytes the chunks taken cover.
  uint32_t left = 0;
};

/// The worker's state over one run of run_generate_worker.
class worker_loop {
 public:
  worker_loop(const generate_worker_options& o, const spec_engine_factory& make, std::ostream* log)
      : o_(o), make_(make), name_(o.name.empty() ? default_worker_name() : o.name),
        log_(open_worker_log(log, "worker " + name_)) {}

  result<generate_worker_stats> run(const std::atomic<bool>& stop) {
    if (!out_->wake.ok()) return error{"worker: eventfd failed"};
    if (!o_.server_key.empty()) {
      if (!is_z85_key(o_.server_key))
        return error{"worker: the server key must be the run's public key, 40 characters of Z85"};
      auto k = o_.keys_file.empty() ? make_curve_keys() : read_curve_keys(o_.keys_file);
      if (!k) return error{"worker: " + k.err().message};
      keys_ = *k;
    } else if (!o_.keys_file.empty()) {
      return error{"worker: a keys file needs the run's public key (--server-key)"};
    }
    if (auto e = connect()) return *e;
    log_->info("connecting to {} to generate", o_.connect);
    double timeout = o_.timeout;
    while (!stop.load()) {
      zmq::pollitem_t items[] = {{socket_.handle(), 0, ZMQ_POLLIN, 0},
                                 {nullptr, out_->wake.fd(), ZMQ_POLLIN, 0}};
      try {
        zmq::poll(items, 2, std::chrono::milliseconds(50));
      } catch (const zmq::error_t&) {
        continue;  // EINTR: the loop checks stop
      }
      if (items[0].revents & ZMQ_POLLIN)
        if (auto e = receive(timeout)) return *e;
      if (items[1].revents & ZMQ_POLLIN) drain();
      if (now() - last_heard_ >= timeout) {
        // The run went away or never came: start over with a hello (a restarted run finds
        // this worker); the engine of the old connection goes.
        host_.reset();
        session_ = 0;
        if (auto e = connect()) return *e;
        if (++stats_.reconnects <= 3 || stats_.reconnects % 100 == 0)
          log_->warn("no word from {} for {} s: connecting again", o_.connect, int(timeout));
        continue;
      }
      if (now() - last_sent_ >= o_.heartbeat) post(encode_heartbeat());
    }
    post(encode_bye());
    host_.reset();
    log_->info("stopped after {} completions, {} policy versions", stats_.completions,
               stats_.versions);
    return stats_;
  }

 private:
  double now() const { return seconds_since(start_); }

  void post(const std::string& payload) {
    last_sent_ = now();
    try {
      socket_.send(zmq::buffer(payload), zmq::send_flags::dontwait);
    } catch (const zmq::error_t&) {
    }
  }

  std::optional<error> connect() {
    try {
      socket_ = zmq::socket_t(ctx_, zmq::socket_type::dealer);
      socket_.set(zmq::sockopt::linger, 200);
      socket_.set(zmq::sockopt::routing_id, name_);
      socket_.set(zmq::sockopt::maxmsgsize, int64_t{80} << 20);
      if (keys_) {
        socket_.set(zmq::sockopt::curve_serverkey, o_.server_key);
        socket_.set(zmq::sockopt::curve_publickey, keys_->public_key);
        socket_.set(zmq::sockopt::curve_secretkey, keys_->secret_key);
      }
      socket_.connect(o_.connect);
    } catch (const zmq::error_t& e) {
      return error{"worker: cannot connect to \"" + o_.connect + "\": " + e.what()};
    }
    post(encode_generate_hello(name_, o_.capacity));
    last_heard_ = now();
    return std::nullopt;
  }

  std::optional<error> receive(double& timeout) {
    for (;;) {
      zmq::message_t body, data;
      bool has_data = false;
      try {
        if (!socket_.recv(body, zmq::recv_flags::dontwait)) return std::nullopt;
        if (body.more()) {
          has_data = bool(socket_.recv(data, zmq::recv_flags::dontwait));
          for (bool more = has_data && data.more(); more;) {
            zmq::message_t extra;
            if (!socket_.recv(extra, zmq::recv_flags::dontwait)) break;
            more = extra.more();
          }
        }
      } catch (const zmq::error_t&) {
        return std::nullopt;
      }
      last_heard_ = now();
      auto m = decode_remote(body.to_string_view());
      if (!m) {
        if (++stats_.malformed <= 10) log_->warn("skipped: {}", m.err().message);
        continue;
      }
      if (m->type == "refused")
        return error{"worker " + name_ + ": refused by the run: " + m->reason};
      if (m->type == "heartbeat") {
        if (m->interval > 0) timeout = std::max(o_.timeout, 4 * m->interval);
        continue;
      }
      if (m->type == "setup") {
        setup(*m);
        continue;
      }
      if (m->session != session_ || !host_) continue;  // for an earlier connection
      if (m->type == "orders") {
        on_orders(*m);
      } else if (m->type == "weights") {
        if (has_data) on_chunk(*m, data);
      } else if (m->type == "weights_path") {
        on_path(*m);
      }
    }
  }

  void setup(const remote_message& m) {
    auto spec = decode_engine_spec(m.engine);
    if (!spec) {
      log_->error("{}", spec.err().message);
      post(encode_error(spec.err().message));
      return;
    }
    if (o_.capacity > 0) spec->capacity = spec->latency.capacity = o_.capacity;
    host_.reset();  // a new connection: the previous engine goes first, and what it left
    {
      std::lock_guard lock(out_->mutex);
      out_->credit = 0;
      out_->results.clear();
    }
    prompts_ = std::make_shared<prompt_cache>();
    assembly_.reset();
    session_ = m.session;
    host_ = std::make_unique<engine_host>(*spec, make_, out_, prompts_);
    log_->info("engine set up (capacity {})", spec->capacity);
  }

  void on_orders(remote_message& m) {
    {
      std::unique_lock lock(prompts_->mutex);
      for (auto& p : m.prompts)
        prompts_->tokens[p.id] = std::make_shared<const std::vector<int32_t>>(std::move(p.tokens));
    }
    stats_.orders += m.orders.size();
    caf::anon_send(host_->generator, work_atom::value, std::move(m.orders));
  }

  void deliver(uint64_t version, std::string bytes) {
    stats_.weight_bytes += bytes.size();
    ++stats_.versions;
    post(encode_weights_ok(session_, version));
    auto w = std::make_shared<weight_bytes>();
    w->version = version;
    w->bytes = std::move(bytes);
    caf::anon_send(host_->generator, weights_atom::value, weight_bytes_ptr(std::move(w)));
  }

  void on_chunk(const remote_message& m, const zmq::message_t& data) {
    if (assembly_ && m.version < assembly_->version) return;  // superseded: abandoned
    if (!assembly_ || m.version > assembly_->version || m.hash != assembly_->hash) {
      if (m.bytes > (uint64_t{1} << 40)) {
        post(encode_weights_bad(session_, m.version, "a version of " + std::to_string(m.bytes) +
                                                         " bytes is beyond this worker"));
        return;
      }
      assembly_.emplace();
      assembly_->version = m.version;
      assembly_->hash = m.hash;
      assembly_->bytes.assign(m.bytes, '\0');
      assembly_->got.assign(m.chunks, false);
      assembly_->chunk_hashes.assign(m.chunks, 0);
      assembly_->left = m.chunks;
    }
    auto& a = *assembly_;
    const auto* p = static_cast<const char*>(data.data());
    std::string why;
    if (m.chunk >= a.got.size() || m.offset + data.size() > a.bytes.size())
      why = "chunk beyond the version's bytes";
    else if (XXH3_64bits(p, data.size()) != m.chunk_hash)
      why = "chunk hash mismatch";
    if (!why.empty()) {
      ++stats_.bad_chunks;
      post(encode_chunk_bad(session_, m.version, m.chunk, why));
      return;
    }
    if (!a.got[m.chunk]) {
      std::copy(p, p + data.size(), a.bytes.begin() + std::ptrdiff_t(m.offset));
      a.got[m.chunk] = true;
      a.chunk_hashes[m.chunk] = m.chunk_hash;
      a.filled += data.size();
      --a.left;
    }
    post(encode_chunk_ok(session_, m.version, m.chunk));
    if (a.left > 0) return;
    if (a.filled != a.bytes.size() || chunk_list_hash(a.chunk_hashes) != a.hash) {
      post(encode_weights_bad(session_, a.version,
                              a.filled != a.bytes.size()
                                  ? "the chunks cover " + std::to_string(a.filled) + " of " +
                                        std::to_string(a.bytes.size()) + " bytes"
                                  : "the chunk hashes do not match the version's hash"));
      assembly_.reset();
      return;
    }
    const uint64_t version = a.version;
    std::string bytes = std::move(a.bytes);
    assembly_.reset();
    deliver(version, std::move(bytes));
  }

  void on_path(const remote_message& m) {
    namespace fs = std::filesystem;
    const std::string path = o_.weights_dir.empty()
                                 ? m.path
                                 : (fs::path(o_.weights_dir) / fs::path(m.path).filename()).string();
    std::ifstream in(path, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::string why;
    if (!in && !in.eof()) why = path + ": cannot read";
    else if (bytes.size() != m.bytes) why = path + ": " + std::to_string(bytes.size()) + " bytes, expected " + std::to_string(m.bytes);
    else if (content_hash(bytes) != m.hash) why = path + ": content hash mismatch";
    if (!why.empty()) {
      log_->warn("version {}: {}", m.version, why);
      post(encode_weights_bad(session_, m.version, why));
      return;
    }
    deliver(m.version, std::move(bytes));
  }

  void drain() {
    out_->wake.clear();
    uint32_t credit = 0;
    std::vector<std::pair<std::vector<completion>, uint32_t>> results;
    std::vector<std::string> warnings;
    {
      std::lock_guard lock(out_->mutex);
      std::swap(credit, out_->credit);
      results.swap(out_->results);
      warnings.swap(out_->warnings);
    }
    for (const auto& w : warnings) {
      log_->warn("{}", w);
      if (w.find("cannot load weights") != std::string::npos) post(encode_error(w));
    }
    if (session_ == 0) return;  // no connection to answer on: the run re-issues
    if (credit > 0) post(encode_credit(session_, credit));
    for (auto& [batch, n] : results) {
      stats_.completions += batch.size();
      post(encode_results(session_, batch, n));
    }
  }

  const generate_worker_options& o_;
  const spec_engine_factory& make_;
  const std::string name_;
  const logger_ptr log_;
  std::optional<curve_keys> keys_;
  zmq::context_t ctx_{1};
  zmq::socket_t socket_;
  steady_clock::time_point start_ = steady_clock::now();
  double last_heard_ = 0, last_sent_ = 0;
  uint64_t session_ = 0;
  std::shared_ptr<outbox> out_ = std::make_shared<outbox>();
  std::shared_ptr<prompt_cache> prompts_ = std::make_shared<prompt_cache>();
  std::unique_ptr<engine_host> host_;
  std::optional<assembly> assembly_;
  generate_worker_stats stats_;
};

}  // namespace

result<generate_worker_stats> run_generate_worker(const generate_worker_options& options,
                                                  const spec_engine_factory& make_engine,
                                                  const std::atomic<bool>& stop,
                                                  std::ostream* log) {
  worker_loop loop(options, make_engine, log);
  return loop.run(stop);
}

}  // namespace adarl
