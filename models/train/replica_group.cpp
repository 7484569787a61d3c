#include "models/train/replica_group.hpp"

#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#ifdef USE_C10D_NCCL
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#endif

#include "models/torch_compat.hpp"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <sstream>
#include <thread>
#include <vector>

namespace adarl {

namespace {

using clock_type = std::chrono::steady_clock;

std::chrono::milliseconds ms(double seconds) {
  return std::chrono::milliseconds(int64_t(std::max(0.001, seconds) * 1000));
}

std::string what_of(const std::exception& e) {
  if (const auto* c10 = dynamic_cast<const c10::Error*>(&e)) return c10->what_without_backtrace();
  return e.what();
}

std::vector<uint8_t> bytes_of(const std::string& s) { return {s.begin(), s.end()}; }
std::string text_of(const std::vector<uint8_t>& b) { return {b.begin(), b.end()}; }

std::map<std::string, std::string> lines_of(const std::string& text) {
  std::map<std::string, std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    const auto eq = line.find('=');
    if (eq != std::string::npos) out[line.substr(0, eq)] = line.substr(eq + 1);
  }
  return out;
}

bool loopback(const std::string& host) {
  return host == "localhost" || host.rfind("127.", 0) == 0 || host == "::1";
}

}  // namespace

std::string config_text_differences(const std::string& there, const std::string& here) {
  const auto a = lines_of(there), b = lines_of(here);
  std::map<std::string, std::pair<std::string, std::string>> keys;
  for (const auto& [k, v] : a) keys[k].first = v;
  for (const auto& [k, v] : b) keys[k].second = v;
  std::string out;
  for (const auto& [k, v] : keys) {
    if (v.first == v.second && a.count(k) == b.count(k)) continue;
    auto show = [](const std::map<std::string, std::string>& m, const std::string& key) {
      auto it = m.find(key);
      return it == m.end() ? std::string("absent") : "\"" + it->second + "\"";
    };
    out += (out.empty() ? "" : "; ") + k + " is " + show(a, k) + " there, " + show(b, k) + " here";
  }
  return out;
}

/// "rank 1" or "ranks 1, 2".
std::string rank_list(const std::vector<uint32_t>& ranks) {
  std::string names;
  for (uint32_t i : ranks) names += (names.empty() ? "" : ", ") + std::to_string(i);
  return std::string(ranks.size() > 1 ? "ranks " : "rank ") + names;
}

struct replica_group::impl {
  replica_config config;
  replica_join_watch watch;
  std::string host;
  c10::intrusive_ptr<c10d::Store> store;
  c10::intrusive_ptr<torch_compat::process_group> group;  ///< Gloo or NCCL.
  std::string backend = "gloo";
  uint64_t seq = 0;  ///< Rank 0: commands posted; others: commands taken.

  bool stopped() const { return watch.stop && watch.stop->load(); }

  // Polls `key` until it exists; false at `deadline` or once stopped.
  bool wait_key(const std::string& key, clock_type::time_point deadline) {
    for (auto pause = std::chrono::milliseconds(1);; pause = std::min(pause * 2, std::chrono::milliseconds(20))) {
      if (store->check({key})) return true;
      if (clock_type::now() >= deadline || stopped()) return false;
      std::this_thread::sleep_for(pause);
    }
  }

  void verdict(const std::string& v) { store->set("adarl/verdict", bytes_of(v)); }
  c10::intrusive_ptr<c10d::Store> open_store(uint16_t port);
  result<bool> handshake(const std::string& config_text);
  /// Rank 0: the problem with rank `r`'s hello ("" when it may join).
  std::string check_hello(uint32_t r, const std::string& there, const std::string& hello);
  /// Rank 0: waits until every other rank said hello, then posts the verdict.
  result<bool> gather(const std::string& hello, clock_type::time_point deadline);
  /// Ranks > 0: rank 0's hello and verdict.
  result<bool> await_verdict(const std::string& r, clock_type::time_point deadline);
};

c10::intrusive_ptr<c10d::Store> replica_group::impl::open_store(uint16_t port) {
  c10d::TCPStoreOptions so;
  so.port = port;
  so.isServer = config.rank == 0;
  so.waitWorkers = false;
  torch_compat::use_classic_tcp_store(so);
  so.timeout = ms(std::max(2.0, config.join_timeout));  // connecting takes whole seconds
  if (so.isServer) return c10::make_intrusive<c10d::TCPStore>(host, so);
  // Attempts of 2 s (2.x adds its own back-off) until join_timeout, so that a stop is
  // seen between them.
  const auto deadline = clock_type::now() + ms(config.join_timeout);
  so.timeout = ms(2.0);
  for (;;) {
    try {
      return c10::make_intrusive<c10d::TCPStore>(host, so);
    } catch (const std::exception&) {
      if (stopped() || clock_type::now() >= deadline) throw;
    }
  }
}

std::string replica_group::impl::check_hello(uint32_t r, const std::string& there,
                                             const std::string& hello) {
  const auto fields = lines_of(there);
  const std::string who = "learner rank " + std::to_string(r);
  const std::string k = fields.count("replicas") ? fields.at("replicas") : "?";
  if (k != std::to_string(config.replicas))
    return who + " was started for " + k + " replicas, this run has learner.replicas " +
           std::to_string(config.replicas);
  if (auto d = config_text_differences(there, hello); !d.empty())
    return who + " runs another learner config: " + d;
  return "";
}

result<bool> replica_group::impl::gather(const std::string& hello,
                                         clock_type::time_point deadline) {
  std::vector<uint32_t> missing;
  for (uint32_t i = 1; i < config.replicas; ++i) missing.push_back(i);
  const auto start = clock_type::now();
  auto next_report = start;
  for (auto pause = std::chrono::milliseconds(1);; pause = std::min(pause * 2, std::chrono::milliseconds(20))) {
    for (auto it = missing.begin(); it != missing.end();) {
      const std::string key = "adarl/hello/" + std::to_string(*it);
      if (!store->check({key})) {
        ++it;
        continue;
      }
      if (auto problem = check_hello(*it, text_of(store->get(key)), hello); !problem.empty()) {
        verdict("refused by rank 0: " + problem);
        // The store lives in this process: let the refused rank read why first.
        wait_key("adarl/ack/" + std::to_string(*it), clock_type::now() + std::chrono::seconds(3));
        return error{problem};
      }
      it = missing.erase(it);
    }
    if (missing.empty()) return true;
    const auto now = clock_type::now();
    const std::string who = "learner " + rank_list(missing);
    if (stopped()) {
      verdict("refused by rank 0: it was stopped before every rank joined");
      return error{"stopped while waiting for " + who + " to join the store at " + config.store};
    }
    if (now >= deadline) {
      const std::string problem =
          who + " did not join within " + std::to_string(int(config.join_timeout)) +
          " s (learner.join_timeout); start each with `adarl worker learn CONFIG --rank R`";
      verdict("refused by rank 0: " + problem);
      return error{problem};
    }
    if (watch.on_wait && now >= next_report) {
      watch.on_wait({missing, config.store, std::chrono::duration<double>(now - start).count(),
                     config.join_timeout});
      next_report = now + ms(watch.remind_seconds);
    }
    std::this_thread::sleep_for(pause);
  }
}

result<bool> replica_group::impl::await_verdict(const std::string& r,
                                                clock_type::time_point deadline) {
  const std::string within = " within " + std::to_string(int(config.join_timeout)) + " s";
  if (!wait_key("adarl/hello/0", deadline))
    return error{stopped() ? "stopped while waiting for rank 0 at the store " + config.store
                           : "rank 0 did not join the store at " + config.store + within};
  const auto zero = lines_of(text_of(store->get("adarl/hello/0")));
  const std::string k0 = zero.count("replicas") ? zero.at("replicas") : "?";
  if (k0 != std::to_string(config.replicas)) {
    store->set("adarl/ack/" + r, bytes_of("1"));  // rank 0 refuses it too: no need to wait
    return error{"world size mismatch: rank 0 runs learner.replicas " + k0 +
                 ", this rank was started for " + std::to_string(config.replicas)};
  }
  if (!wait_key("adarl/verdict", deadline))
    return error{stopped() ? "stopped while waiting for rank 0's verdict (it waits for other ranks)"
                           : "rank 0 gave no verdict" + within +
                                 " (learner.join_timeout): it waits for other ranks"};
  const auto v = text_of(store->get("adarl/verdict"));
  store->set("adarl/ack/" + r, bytes_of("1"));
  if (v != "ok") return error{v};
  return true;
}

result<bool> replica_group::impl::handshake(const std::string& config_text) {
  const auto deadline = clock_type::now() + ms(config.join_timeout);
  const std::string r = std::to_string(config.rank);
  if (store->add("adarl/joined/" + r, 1) > 1)
    return error{"learner rank " + r + " is taken: another process joined as rank " + r};
  const std::string hello = "replicas=" + std::to_string(config.replicas) + "\n" + config_text;
  store->set("adarl/hello/" + r, bytes_of(hello));
  if (config.rank != 0) return await_verdict(r, deadline);
  if (auto ok = gather(hello, deadline); !ok) return ok;
  verdict("ok");
  return true;
}

replica_group::replica_group(std::unique_ptr<impl> p) : impl_(std::move(p)) {}
replica_group::~replica_group() = default;

result<std::unique_ptr<replica_group>> replica_group::join(const replica_config& c,
                                                           const std::string& config_text,
                                                           const torch::Device& device,
                                                           const replica_join_watch& watch) {
  if (c.replicas < 2) return error{"learner.replicas: a group needs at least 2 ranks"};
  if (c.rank >= c.replicas)
    return error{"learner rank " + std::to_string(c.rank) + " is outside [0, " +
                 std::to_string(c.replicas) + ") (learner.replicas " +
                 std::to_string(c.replicas) + ")"};
  const auto colon = c.store.rfind(':');
  int port = -1;
  if (colon != std::string::npos && colon > 0) {
    try {
      size_t used = 0;
      port = std::stoi(c.store.substr(colon + 1), &used);
      if (used != c.store.size() - colon - 1) port = -1;
    } catch (const std::exception&) {
      port = -1;
    }
  }
  if (port < 1 || port > 65535)
    return error{"learner.store: expected HOST:PORT with a port from 1 to 65535, got \"" +
                 c.store + "\""};
  auto p = std::make_unique<impl>();
  p->config = c;
  p->watch = watch;
  p->host = c.store.substr(0, colon);
  if (device.is_cuda()) {
#ifdef USE_C10D_NCCL
    p->backend = "nccl";
#else
    return error{"learner.device " + device.str() +
                 ": this LibTorch has no NCCL; replicated learners on CUDA need a build "
                 "with USE_C10D_NCCL"};
#endif
  }
  try {
    p->store = p->open_store(uint16_t(port));
  } catch (const std::exception& e) {
    if (p->stopped()) return error{"stopped while connecting to rank 0's store at " + c.store};
    return error{"learner.store " + c.store + ": " +
                 (c.rank == 0 ? "rank 0 cannot host the store: "
                              : "cannot reach rank 0's store: ") +
                 what_of(e)};
  }
  try {
    if (auto ok = p->handshake(config_text); !ok) return ok.err();
    auto pg_store = c10::make_intrusive<c10d::PrefixStore>("adarl/pg", p->store);
    p->store->setTimeout(ms(c.join_timeout));
    if (p->backend == "gloo") {
      auto opts = c10d::ProcessGroupGloo::Options::create(ms(c.collective_timeout));
      if (const char* ifname = std::getenv("GLOO_SOCKET_IFNAME"); ifname && *ifname)
        opts->devices.push_back(c10d::ProcessGroupGloo::createDeviceForInterface(ifname));
      else if (loopback(p->host))
        opts->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1"));
      else
        opts->devices.push_back(c10d::ProcessGroupGloo::createDefaultDevice());
      p->group = c10::make_intrusive<c10d::ProcessGroupGloo>(pg_store, int(c.rank),
                                                             int(c.replicas), opts);
    } else {
#ifdef USE_C10D_NCCL
      auto opts = c10d::ProcessGroupNCCL::Options::create();
      opts->timeout = ms(c.collective_timeout);
      p->group = c10::make_intrusive<c10d::ProcessGroupNCCL>(pg_store, int(c.rank),
                                                             int(c.replicas), opts);
#endif
    }
  } catch (const std::exception& e) {
    return error{"learner rank " + std::to_string(c.rank) + ": joining the " + p->backend +
                 " process group at " + c.store + ": " + what_of(e)};
  }
  return std::unique_ptr<replica_group>(new replica_group(std::move(p)));
}

uint32_t replica_group::rank() const { return impl_->config.rank; }
uint32_t replica_group::world() const { return impl_->config.replicas; }
std::string replica_group::backend() const { return impl_->backend; }

void replica_group::allreduce(torch::Tensor& t, const char* op) {
  c10d::AllreduceOptions o;
  const std::string name = op;
  o.reduceOp = name == "min" ? c10d::ReduceOp::MIN
               : name == "max" ? c10d::ReduceOp::MAX
                               : c10d::ReduceOp::SUM;
  std::vector<at::Tensor> ts{t};
  auto work = impl_->group->allreduce(ts, o);
  work->wait();
}

void replica_group::broadcast(torch::Tensor& t) {
  std::vector<at::Tensor> ts{t};
  impl_->group->broadcast(ts)->wait();
}

uint64_t replica_group::post(const std::string& bytes) {
  auto& p = *impl_;
  const uint64_t n = ++p.seq;
  p.store->set("adarl/cmd/" + std::to_string(n), bytes_of(bytes));
  if (n > 1) p.store->deleteKey("adarl/cmd/" + std::to_string(n - 1));
  return n;
}

result<std::string> replica_group::take(const std::atomic<bool>* stop) {
  auto& p = *impl_;
  const std::string key = "adarl/cmd/" + std::to_string(p.seq + 1);
  try {
    auto pause = std::chrono::milliseconds(1);
    while (!p.store->check({key})) {
      if (stop && stop->load()) return error{"stopped"};
      std::this_thread::sleep_for(pause);
      pause = std::min(pause * 2, std::chrono::milliseconds(20));
    }
    auto bytes = p.store->get(key);
    ++p.seq;
    p.store->set("adarl/taken/" + std::to_string(p.config.rank), bytes_of(std::to_string(p.seq)));
    return text_of(bytes);
  } catch (const std::exception& e) {
    return error{"rank 0's store at " + p.config.store + " is gone (the coordinator ended?): " +
                 what_of(e)};
  }
}

std::string replica_group::blame(const std::string& what) {
  auto& p = *impl_;
  std::vector<std::string> late;
  try {
    for (uint32_t r = 1; r < p.config.replicas; ++r) {
      const std::string key = "adarl/taken/" + std::to_string(r);
      uint64_t taken = 0;
      if (p.store->check({key})) taken = std::stoull(text_of(p.store->get(key)));
      if (taken < p.seq)
        late.push_back("rank " + std::to_string(r) + " (last took command " +
                       std::to_string(taken) + " of " + std::to_string(p.seq) + ")");
    }
  } catch (const std::exception&) {
  }
  std::string who;
  if (!late.empty()) {
    for (const auto& l : late) who += (who.empty() ? "" : ", ") + l;
    who = "learner " + who + " did not take part (died or hung)";
  } else if (p.config.replicas == 2) {
    who = "learner rank 1 failed during the collective (died or hung)";
  } else {
    who = "one of learner ranks 1.." + std::to_string(p.config.replicas - 1) +
          " failed during the collective (died or hung)";
  }
  return who + ": " + what;
}

void replica_group::await_taken(std::chrono::milliseconds patience) {
  auto& p = *impl_;
  const auto deadline = clock_type::now() + patience;
  try {
    for (uint32_t r = 1; r < p.config.replicas; ++r) {
      const std::string key = "adarl/taken/" + std::to_string(r);
      for (;;) {
        if (p.store->check({key}) && std::stoull(text_of(p.store->get(key))) >= p.seq) break;
        if (clock_type::now() >= deadline) return;
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
    }
  } catch (const std::exception&) {
  }
}

}  // namespace adarl
