// Remote generators on loopback (issue 13), printed:
//  1. scaling: a generation-bound simulated run (each decoding step sleeps
//     step_seconds, standing in for GPU decode time) with 1, 2 and 4 real
//     `adarl worker generate` processes against 1 local generator: steady-state
//     samples/s and the ratio to N x (1 local generator); target >= 0.9 x N;
//  2. weights: seconds per policy version from publish to every worker's
//     acknowledgement (remote_generator_hub::stats().weights_seconds) for 1 M, 10 M and
//     100 M float32 parameters, 1 and 4 workers, and GB/s per worker (target >= 1 GB/s),
//     over a grid of chunk sizes and windows; the workers are threads of the bench
//     running run_generate_worker (the loop of `adarl worker generate`: chunk hashes,
//     assembly, whole-version hash) with an engine that takes any bytes; beside it the
//     costs of the pieces (copies, hashes, ZeroMQ alone) on this machine;
//  3. overhead: the same simulated run with step_seconds = 0, 1 local generator against
//     1 remote worker: wall time per sample and the difference (microseconds).
// Each figure is the median of `repeats` runs with its range; the load average is
// printed with each part (other work may share the cores).
//
//   ./build/bench/cluster_bench [scaling|weights|overhead|costs|all] [--adarl PATH]
//                               [--repeats N]
//   ./build/bench/cluster_bench weights-one M_PARAMS WORKERS CHUNK_MIB WINDOW  # perf
// Worker processes run the adarl executable next to the bench's folder (build/adarl for
// build/bench/cluster_bench) unless --adarl names it.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
#include <xxhash.h>

#include <algorithm>
#include <atomic>
#include <caf/all.hpp>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>
#include <zmq.hpp>

#include "base/clock.hpp"
#include "base/loopback_port.hpp"
#include "engines/engine_spec.hpp"
#include "net/config_cluster.hpp"
#include "net/generate_worker.hpp"
#include "net/generate_hub.hpp"
#include "pipelines/engine_registry.hpp"
#include "pipelines/pipeline.hpp"
#include "tasks/suites.hpp"

extern char** environ;

namespace {

using namespace adarl;
namespace fs = std::filesystem;

std::string adarl_exe;  ///< The adarl executable the worker processes run.
int repeats = 3;

// ---------------------------------------------------------------------------------
// Small helpers

std::string load_average() {
  std::ifstream in("/proc/loadavg");
  double a = 0, b = 0, c = 0;
  in >> a >> b >> c;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f %.2f %.2f", a, b, c);
  return buf;
}

/// Median and range of a few figures, printed as "m [lo-hi]".
std::string summary(std::vector<double> v, const char* fmt = "%.3g") {
  if (v.empty()) return "n/a";
  std::sort(v.begin(), v.end());
  const double med =
      v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
  char m[32], lo[32], hi[32], out[128];
  std::snprintf(m, sizeof m, fmt, med);
  std::snprintf(lo, sizeof lo, fmt, v.front());
  std::snprintf(hi, sizeof hi, fmt, v.back());
  std::snprintf(out, sizeof out, "%s [%s-%s]", m, lo, hi);
  return out;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

/// `adarl worker generate` processes, stopped (SIGTERM: bye; SIGKILL after 3 s) at the
/// end.
struct worker_processes {
  std::vector<pid_t> pids;

  bool start(const std::string& endpoint, const std::string& name,
             const std::string& log) {
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    std::vector<std::string> args{adarl_exe, "worker", "generate", "--connect",
                                  endpoint,  "--name", name};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t pid = 0;
    const int rc =
        posix_spawn(&pid, adarl_exe.c_str(), &fa, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) return false;
    pids.push_back(pid);
    return true;
  }

  ~worker_processes() {
    for (pid_t p : pids) ::kill(p, SIGTERM);
    for (pid_t p : pids) {
      int status = 0;
      for (int i = 0; i < 300 && ::waitpid(p, &status, WNOHANG) == 0; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      if (::waitpid(p, &status, WNOHANG) == 0) {
        ::kill(p, SIGKILL);
        ::waitpid(p, &status, 0);
      }
    }
  }
};

// ---------------------------------------------------------------------------------
// Parts 1 and 3: simulated runs with local generators or worker processes

prompt_table_ptr bench_prompts() {
  suite_request r;
  r.count = 512;
  auto items = generate_suite("math", r);
  auto tok = tokenizer::from_charset(tokenizer::default_charset());
  return std::make_shared<const prompt_table>(
      std::move(*build_prompt_table(*items, {}, *tok)));
}

struct sim_params {
  uint32_t local = 1;          ///< Local generators.
  uint32_t remote = 0;         ///< Worker processes.
  double step_seconds = 0.02;  ///< Sleep per decoding step.
  uint32_t min_steps = 16;     ///< Decoding steps per completion (no tail: all equal).
  uint64_t steps = 10;         ///< Training steps of 32 prompts x 8 samples.
  uint32_t skip_front = 2;     ///< Steps left out of the steady state at the start...
  uint32_t skip_back = 2;      ///< ...and at the end (the pipeline drains).
};

struct sim_figures {
  bool ok = false;
  double steady_rate = 0;  ///< Samples/s between the skipped steps.
  double whole_rate = 0;   ///< Samples / wall of run_pipeline (start-up included).
  double steady_us = 0;    ///< Wall microseconds per sample in the steady window.
  double whole_us = 0;
  uint64_t samples = 0;
  double wall = 0;
};

pipeline_config sim_config(const sim_params& p, const std::string& out) {
  pipeline_config c;
  c.name = "cluster_bench";
  c.policy.kind = policy_kind::simulated;
  c.tracker.strategy.kind = strategy_kind::grpo;  // a fixed 256 samples per step
  c.tracker.strategy.uniform.group_size = 8;
  c.tracker.prompts_per_step = 32;
  c.tracker.steps = p.steps;
  c.tracker.lag.max_lag = 2;  // up to 3 steps (768 orders) open: 4 x 64 rows stay fed
  c.actors.generators = p.local;
  c.actors.generator_capacity = 64;
  c.actors.sim_latency.step_seconds = p.step_seconds;
  c.actors.sim_latency.min_steps = p.min_steps;
  c.actors.sim_latency.tail = 0;
  c.actors.sim_latency.max_steps = std::max<uint32_t>(64, p.min_steps);
  c.eval.greedy = false;
  c.progress = false;
  c.stall_seconds = 60;
  c.out = out;
  return c;
}

/// Reads metrics.jsonl: the steady window runs from the end of step skip_front - 1 to
/// the end of step n - 1 - skip_back.
void read_metrics(const std::string& out, const sim_params& p, sim_figures& f) {
  std::ifstream in(out + "/metrics.jsonl");
  std::vector<std::pair<double, double>> ends;  // (elapsed, cumulative samples) by step
  for (std::string line; std::getline(in, line);) {
    auto j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded()) continue;
    ends.emplace_back(j["elapsed"].get<double>(), j["cumulative_samples"].get<double>());
  }
  if (ends.size() != p.steps || p.steps < p.skip_front + p.skip_back + 2) return;
  const auto& a = ends[p.skip_front - 1];
  const auto& b = ends[p.steps - 1 - p.skip_back];
  f.samples = uint64_t(ends.back().second);
  f.steady_rate = (b.second - a.second) / (b.first - a.first);
  f.steady_us = 1e6 / f.steady_rate;
  f.whole_rate = double(f.samples) / f.wall;
  f.whole_us = 1e6 * f.wall / double(f.samples);
  f.ok = true;
}

sim_figures sim_run(const sim_params& p, const std::string& tag) {
  static const auto table = bench_prompts();
  const std::string out =
      (fs::temp_directory_path() / ("adarl_cluster_bench_" + tag)).string();
  fs::remove_all(out);
  fs::create_directories(out);
  auto c = sim_config(p, out);
  worker_processes workers;
  std::string endpoint;
  if (p.remote > 0) {
    endpoint = "tcp://127.0.0.1:" + std::to_string(free_loopback_port());
    c.actors.remote_generators.bind = endpoint;
    for (uint32_t i = 0; i < p.remote; ++i)
      if (!workers.start(endpoint, tag + "-w" + std::to_string(i),
                         out + "/worker" + std::to_string(i) + ".log")) {
        std::printf("  %s: cannot start %s\n", tag.c_str(), adarl_exe.c_str());
        return {};
      }
  }
  std::ostringstream log;
  run_options o;
  o.log = &log;
  o.cluster = config_cluster();  // the remote generator hub of actors.remote_generators
  const auto t0 = steady_clock::now();
  auto r = run_pipeline(c, table, sim_factories(c, table), o);
  sim_figures f;
  f.wall = seconds_since(t0);
  if (!r) {
    std::printf("  %s: %s\n", tag.c_str(), r.err().message.c_str());
    return f;
  }
  read_metrics(out, p, f);
  if (p.remote > 0) {  // every worker joined, none lost
    const std::string want =
        "remote generators: " + std::to_string(p.remote) + " workers joined, 0 lost";
    if (log.str().find(want) == std::string::npos) {
      std::printf("  %s: not \"%s\"; the run said:\n%s", tag.c_str(), want.c_str(),
                  log.str().c_str());
      f.ok = false;
    }
  }
  if (!f.ok)
    std::printf("  %s: unreadable metrics in %s\n", tag.c_str(), out.c_str());
  else
    fs::remove_all(out);  // kept when something went wrong
  return f;
}

void scaling() {
  const double step_s = 0.01;
  const uint32_t min_steps = 16;
  std::printf("\n== 1. scaling: generation-bound simulated run (load %s)\n",
              load_average().c_str());
  std::printf(
      "GRPO, 32 prompts x 8 samples per step, max lag 2; each generator has 64 rows and "
      "every completion takes %u decoding steps of %.0f ms (a sleep standing in for GPU "
      "decode time): ideal %.0f samples/s per generator. The machine has 2 cores, so the "
      "simulated latency must dominate the pipeline's CPU work (see part 3 for that "
      "cost). "
      "Steady state: steps after the first 2 and before the last 2. %d runs each.\n",
      min_steps, step_s * 1e3, 64 / (min_steps * step_s), repeats);
  std::vector<double> local_rates;
  const uint32_t counts[] = {0, 1, 2, 4};  // 0: the 1 local generator
  for (uint32_t n : counts) {
    std::vector<double> rates, whole;
    for (int i = 0; i < repeats; ++i) {
      sim_params p;
      p.local = n == 0 ? 1 : 0;
      p.remote = n;
      p.step_seconds = step_s;
      p.min_steps = min_steps;
      p.steps = 5 * std::max<uint32_t>(n, 1) + 5;
      auto f = sim_run(p, "scale-" + std::to_string(n) + "-" + std::to_string(i));
      if (!f.ok) continue;
      rates.push_back(f.steady_rate);
      whole.push_back(f.whole_rate);
    }
    if (n == 0) local_rates = rates;
    const double base = median(local_rates);
    std::vector<double> ratios;
    for (double r : rates)
      ratios.push_back(base > 0 ? r / (std::max<uint32_t>(n, 1) * base) : 0);
    std::printf(
        "  %-22s steady %s samples/s, whole run %s samples/s",
        n == 0 ? "1 local generator"
               : (std::to_string(n) + " worker process" + (n > 1 ? "es" : "")).c_str(),
        summary(rates, "%.0f").c_str(), summary(whole, "%.0f").c_str());
    if (n > 0)
      std::printf(", ratio to %u x local %s (target >= 0.9)", n,
                  summary(ratios, "%.3f").c_str());
    std::vector<double> ideal;
    for (double r : rates)
      ideal.push_back(r / (std::max<uint32_t>(n, 1) * 64 / (min_steps * step_s)));
    std::printf(", of ideal %s\n", summary(ideal, "%.3f").c_str());
  }
  std::printf("  load average after: %s\n", load_average().c_str());
}

/// What a policy version costs the remote path of these simulated runs and not the local
/// one: the simulated policy's byte form is text (to_bytes on the coordinator, parsed by
/// the worker), one version per step of 256 samples.
void sim_weights_cost() {
  static const auto table = bench_prompts();
  const auto spec = run_engine_spec(sim_config(sim_params{}, ""), *table);
  auto w = sim_initial_weights(spec.world);
  auto engine = sim_engine_of(spec);
  if (!engine) return;
  const int n = 200;
  auto t0 = steady_clock::now();
  size_t size = 0;
  for (int i = 0; i < n; ++i) size = w->to_bytes()->size();
  const double encode = seconds_since(t0) / n;
  const auto bytes = *w->to_bytes();
  t0 = steady_clock::now();
  for (int i = 0; i < n; ++i) (void)(*engine)->weights_from_bytes(bytes, 1);
  const double decode = seconds_since(t0) / n;
  std::printf(
      "  of which the simulated policy's weights as text (%zu bytes): to_bytes %.0f us + "
      "weights_from_bytes %.0f us per version = %.1f us/sample at one version per 256 "
      "samples\n",
      size, encode * 1e6, decode * 1e6, (encode + decode) * 1e6 / 256);
}

void overhead() {
  std::printf("\n== 3. per-order overhead: step_seconds = 0 (load %s)\n",
              load_average().c_str());
  std::printf(
      "The same run (GRPO 32 x 8 per step, 64 rows, 1 decoding step per completion, no "
      "sleep), 1 local generator against 1 worker process; wall per sample in the steady "
      "window (whole run in brackets below). %d runs each.\n",
      repeats);
  std::vector<double> us[2], whole[2];
  for (int i = 0; i < repeats; ++i)
    for (int remote = 0; remote < 2; ++remote) {  // interleaved: load drifts hit both
      sim_params p;
      p.local = remote ? 0 : 1;
      p.remote = remote ? 1 : 0;
      p.step_seconds = 0;
      p.min_steps = 1;
      p.steps = 1500;
      p.skip_front = 100;
      p.skip_back = 20;
      auto f = sim_run(
          p, std::string(remote ? "ovh-remote-" : "ovh-local-") + std::to_string(i));
      if (!f.ok) continue;
      us[remote].push_back(f.steady_us);
      whole[remote].push_back(f.whole_us);
    }
  std::printf("  1 local generator: %s us/sample (whole run %s)\n",
              summary(us[0], "%.1f").c_str(), summary(whole[0], "%.1f").c_str());
  std::printf("  1 worker process:  %s us/sample (whole run %s)\n",
              summary(us[1], "%.1f").c_str(), summary(whole[1], "%.1f").c_str());
  std::vector<double> diff;
  for (size_t i = 0; i < std::min(us[0].size(), us[1].size()); ++i)
    diff.push_back(us[1][i] - us[0][i]);
  std::printf("  remote - local: %s us/sample (paired by repeat)\n",
              summary(diff, "%.1f").c_str());
  sim_weights_cost();
  std::printf("  load average after: %s\n", load_average().c_str());
}

// ---------------------------------------------------------------------------------
// Part 2: weights

/// n float32 parameters; to_bytes copies them once (what any float32 serializer does at
/// least) and stamps the version into the first 8 bytes so that versions differ.
struct float_weights : policy_weights {
  std::shared_ptr<const std::vector<float>> params;
  result<std::string> to_bytes() const override {
    std::string s(reinterpret_cast<const char*>(params->data()),
                  params->size() * sizeof(float));
    std::memcpy(s.data(), &version, sizeof version);
    return s;
  }
};

/// Per worker: the newest version its engine was given.
struct delivery_board {
  std::vector<std::atomic<uint64_t>> seen;
  explicit delivery_board(size_t n) : seen(n) {}
};

/// A worker's engine for this bench: decodes nothing (no orders are sent), takes any
/// bytes whose stamp matches their version, without copying them (a real engine would
/// copy them into its tensors after the worker has acknowledged the version).
class sink_engine final : public generation_engine {
 public:
  sink_engine(std::shared_ptr<delivery_board> b, size_t i)
      : board_(std::move(b)), i_(i) {}
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
    uint64_t stamp = 0;
    if (bytes.size() < sizeof stamp || bytes.size() % sizeof(float) != 0)
      return error{"sink engine: not float32 parameters"};
    std::memcpy(&stamp, bytes.data(), sizeof stamp);
    if (stamp != version) return error{"sink engine: bytes of another version"};
    board_->seen[i_] = version;
    auto w = std::make_shared<policy_weights>();
    w->version = version;
    return weights_ptr(std::move(w));
  }

 private:
  std::shared_ptr<delivery_board> board_;
  size_t i_;
  uint64_t version_ = 0;
};

struct quiet_config : caf::actor_system_config {
  quiet_config() { set("scheduler.max-threads", size_t{2}); }
};

struct weights_setting {
  uint32_t chunk_bytes = 4u << 20;
  uint32_t window = 4;
  std::string path;  ///< weights.path: versions go through files in this directory.
};

struct weights_figures {
  std::vector<double> seconds;  ///< stats().weights_seconds per version.
  std::vector<double> publish;  ///< publish() on the caller's thread (to_bytes, hashes).
};

/// Polls `cond` every 200 us; false after `timeout` seconds.
template <class F>
bool wait_until(F cond, double timeout) {
  const auto t0 = steady_clock::now();
  while (!cond()) {
    if (seconds_since(t0) > timeout) return false;
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  return true;
}

/// `n` parameters, made once per size (filling 100 M takes a while).
std::shared_ptr<const std::vector<float>> params_of(size_t n) {
  static std::map<size_t, std::shared_ptr<const std::vector<float>>> made;
  auto& p = made[n];
  if (!p) {
    auto v = std::make_shared<std::vector<float>>(n);
    for (size_t i = 0; i < n; ++i) (*v)[i] = float(i % 1000) * 1e-3f;
    p = std::move(v);
  }
  return p;
}

weights_ptr version_of(uint64_t version,
                       std::shared_ptr<const std::vector<float>> params) {
  auto w = std::make_shared<float_weights>();
  w->version = version;
  w->params = std::move(params);
  return w;
}

/// A hub on loopback whose tracker and verifier are `self` (it gets the workers' credit,
/// never read: no orders are sent).
result<std::shared_ptr<remote_generator_hub>> open_hub(caf::actor_system& sys,
                                                       caf::scoped_actor& self,
                                                       weights_setting s) {
  static auto table = bench_prompts();
  remote_generator_setup rs;
  rs.bind = "tcp://127.0.0.1:*";
  rs.chunk_bytes = s.chunk_bytes;
  rs.window = s.window;
  rs.weights_path = s.path;
  engine_spec spec;
  spec.kind = policy_kind::simulated;
  rs.engine = encode_engine_spec(spec);
  rs.prompts = table;
  rs.tracker = caf::actor_cast<generator_pool_actor>(self);
  rs.verifiers = {caf::actor_cast<verifier_actor>(self)};
  rs.warn = [](const std::string& w) {  // joins and the bye at the end are expected
    if (w.find(" joined ") == std::string::npos && w.find(" left: ") == std::string::npos)
      std::printf("  (hub) %s\n", w.c_str());
  };
  return remote_generator_hub::open(sys, std::move(rs));
}

/// `n` threads running run_generate_worker against `endpoint` with sink engines;
/// stopped (bye) and joined when it goes.
struct worker_threads {
  std::shared_ptr<delivery_board> board;
  std::atomic<bool> stop{false};
  std::vector<std::thread> threads;

  worker_threads(const std::string& endpoint, uint32_t n)
      : board(std::make_shared<delivery_board>(n)) {
    for (uint32_t i = 0; i < n; ++i)
      threads.emplace_back([this, endpoint, i] {
        generate_worker_options o;
        o.connect = endpoint;
        o.name = "bench-" + std::to_string(i);
        const spec_engine_factory make =
            [b = board,
             i](const engine_spec&) -> result<std::unique_ptr<generation_engine>> {
          return std::unique_ptr<generation_engine>(new sink_engine(b, i));
        };
        auto r = run_generate_worker(o, make, stop, nullptr);
        if (!r) std::printf("  worker %u: %s\n", i, r.err().message.c_str());
      });
  }
  ~worker_threads() {
    stop = true;
    for (auto& t : threads) t.join();
  }
  bool all_hold(uint64_t version) const {
    for (const auto& s : board->seen)
      if (s.load() < version) return false;
    return true;
  }
};

/// Publishes `w` and waits until every worker's engine holds it and the hub has counted
/// the last acknowledgement (stats().weights_delivered is its version).
bool publish_and_wait(remote_generator_hub& hub, const worker_threads& workers,
                      const weights_ptr& w, double* publish_seconds) {
  const auto t0 = steady_clock::now();
  hub.publish(w);
  if (publish_seconds) *publish_seconds = seconds_since(t0);
  return wait_until(
      [&] {
        return workers.all_hold(w->version) && hub.stats().weights_delivered == w->version;
      },
      30);
}

/// A hub and `n` worker threads; `versions` versions of `params` floats published one at
/// a time, each after the previous one reached every worker.
weights_figures weights_run(size_t params, uint32_t n, weights_setting s, int versions) {
  quiet_config cfg;
  caf::actor_system sys{cfg};
  caf::scoped_actor self{sys};
  weights_figures f;
  auto hub = open_hub(sys, self, s);
  if (!hub) {
    std::printf("  %s\n", hub.err().message.c_str());
    return f;
  }
  {
    worker_threads workers((*hub)->endpoint(), n);
    bool ok = wait_until([&] { return (*hub)->stats().workers == n; }, 30);
    // Warm-up: a small version, so that every connection is up before timing.
    ok = ok && publish_and_wait(**hub, workers, version_of(1, params_of(1024)), nullptr);
    for (int v = 0; ok && v < versions; ++v) {
      double publish = 0;
      ok = publish_and_wait(**hub, workers, version_of(2 + v, params_of(params)),
                            &publish);
      f.publish.push_back(publish);
      if (ok) f.seconds.push_back((*hub)->stats().weights_seconds);
    }
    if (!ok) {
      const auto st = (*hub)->stats();
      std::printf(
          "  a version did not reach every worker in 30 s: workers %u, versions %llu, "
          "bytes %llu\n",
          st.workers, (unsigned long long)st.weights_versions,
          (unsigned long long)st.weights_bytes);
    }
  }
  (*hub)->close();
  return f;
}

std::string mib(uint32_t bytes) {
  return std::to_string(bytes >> 20) + " MiB";
}

void print_weights(const char* what, size_t params, uint32_t n, weights_setting s,
                   const weights_figures& f) {
  std::vector<double> gbs;
  for (double x : f.seconds) gbs.push_back(double(params) * 4 / x / 1e9);
  std::printf(
      "  %5.0f M params, %u worker%s, %-6s x %u %-9s: %s s/version, %s GB/s per worker "
      "(publish() %s s)\n",
      double(params) / 1e6, n, n > 1 ? "s" : " ", mib(s.chunk_bytes).c_str(), s.window,
      what, summary(f.seconds).c_str(), summary(gbs, "%.2f").c_str(),
      summary(f.publish).c_str());
}

void weights() {
  std::printf("\n== 2. weights to workers over TCP loopback (load %s)\n",
              load_average().c_str());
  std::printf(
      "Workers: threads of this bench running run_generate_worker (the loop of `adarl "
      "worker generate`: each chunk checked against its XXH3-64 and copied into the "
      "version, the chunk hashes checked against the version's XXH3-128, then "
      "acknowledged) with an engine that takes the bytes without copying. s/version: "
      "stats().weights_seconds, from the start of publish() to the last acknowledgement "
      "(to_bytes and the hub's hashing included); publish(): to_bytes + hashing on the "
      "publishing thread. (file): weights.path, each version written to a file (atomic "
      "rename, page cache) that each worker reads and hashes whole. GB/s per worker: bytes / s per version. %d versions "
      "each, after a small warm-up version.\n",
      repeats);
  // The grids: chunk size x window at 100 M parameters to 1 worker and 10 M to 4.
  weights_setting best;
  for (auto [grid_params, n] :
       {std::pair{size_t{100'000'000}, 1u}, std::pair{size_t{10'000'000}, 4u}}) {
    double best_s = 1e9;
    for (uint32_t chunk : {1u << 20, 4u << 20, 16u << 20})
      for (uint32_t window : {2u, 4u, 8u}) {
        const weights_setting s{chunk, window, {}};
        auto f = weights_run(grid_params, n, s, repeats);
        print_weights("(grid)", grid_params, n, s, f);
        if (!f.seconds.empty() && median(f.seconds) < best_s) {
          best_s = median(f.seconds);
          if (n == 1) best = s;  // the per-worker figure against its target
        }
      }
  }
  std::printf("  best at 100 M x 1 worker: chunk %s, window %u\n",
              mib(best.chunk_bytes).c_str(), best.window);
  const weights_setting defaults;
  for (size_t params : {size_t{1'000'000}, size_t{10'000'000}, size_t{100'000'000}})
    for (uint32_t n : {1u, 4u}) {
      print_weights("(default)", params, n, defaults,
                    weights_run(params, n, defaults, repeats));
      if (best.chunk_bytes != defaults.chunk_bytes || best.window != defaults.window)
        print_weights("(best)", params, n, best, weights_run(params, n, best, repeats));
    }
  namespace fs = std::filesystem;
  weights_setting files;
  files.path = (fs::temp_directory_path() / ("cluster_bench_weights." + std::to_string(::getpid()))).string();
  for (size_t params : {size_t{10'000'000}, size_t{100'000'000}})
    for (uint32_t n : {1u, 4u})
      print_weights("(file)", params, n, files, weights_run(params, n, files, repeats));
  std::error_code ec;
  fs::remove_all(files.path, ec);
  std::printf("  load average after: %s\n", load_average().c_str());
}

// ---------------------------------------------------------------------------------
// The pieces of a delivery, alone, for the analysis

double gbs(size_t bytes, steady_clock::time_point t0) {
  return double(bytes) / seconds_since(t0) / 1e9;
}

/// ZeroMQ alone: `total` bytes to each of `receivers` DEALER threads in `chunk` frames
/// from one ROUTER, each receiver acknowledging every frame, `window` frames in flight
/// per receiver (the protocol without hashes, copies or MessagePack). Aggregate GB/s.
double zmq_alone(size_t total, size_t chunk, uint32_t window, uint32_t receivers,
                 const std::string& src) {
  zmq::context_t ctx{1};
  zmq::socket_t router{ctx, zmq::socket_type::router};
  router.set(zmq::sockopt::linger, 0);
  router.bind("tcp://127.0.0.1:*");
  const std::string ep = router.get(zmq::sockopt::last_endpoint);
  std::vector<std::thread> threads;
  for (uint32_t r = 0; r < receivers; ++r)
    threads.emplace_back([&, r] {
      zmq::context_t c{1};
      zmq::socket_t d{c, zmq::socket_type::dealer};
      d.set(zmq::sockopt::linger, 0);
      d.set(zmq::sockopt::routing_id, "r" + std::to_string(r));
      d.connect(ep);
      d.send(zmq::str_buffer("hi"), zmq::send_flags::none);
      for (size_t got = 0; got < total;) {
        zmq::message_t m;
        if (!d.recv(m)) break;
        got += m.size();
        d.send(zmq::str_buffer("ok"), zmq::send_flags::none);
      }
    });
  struct peer {
    std::string id;
    size_t sent = 0, acked = 0;
    uint32_t in_flight = 0;
  };
  std::vector<peer> peers(receivers);
  for (auto& p : peers) {
    zmq::message_t id, hi;
    (void)router.recv(id);
    (void)router.recv(hi);
    p.id = id.to_string();
  }
  auto pump = [&](peer& p) {
    while (p.in_flight < window && p.sent < total) {
      const size_t len = std::min(chunk, total - p.sent);
      router.send(zmq::buffer(p.id), zmq::send_flags::sndmore);
      router.send(zmq::message_t(const_cast<char*>(src.data()) + (p.sent % src.size()),
                                 len, nullptr, nullptr),
                  zmq::send_flags::none);  // zero-copy, as the hub sends
      p.sent += len;
      ++p.in_flight;
    }
  };
  const auto t0 = steady_clock::now();
  for (auto& p : peers) pump(p);
  for (size_t done = 0; done < receivers;) {
    zmq::message_t who, ack;
    (void)router.recv(who);
    (void)router.recv(ack);
    for (auto& p : peers)
      if (p.id == who.to_string_view()) {
        --p.in_flight;
        p.acked += std::min(chunk, total - p.acked);
        if (p.acked >= total) ++done;
        pump(p);
      }
  }
  const double r = gbs(total * receivers, t0);
  for (auto& t : threads) t.join();
  return r;
}

void costs() {
  std::printf(
      "\n== costs of the pieces on this machine (load %s), 400 MB (100 M floats)\n",
      load_average().c_str());
  const size_t n = 400'000'000;
  std::vector<double> copy_new, copy_into, zero_fill, h128, h64;
  std::string src(n, 'x');
  for (size_t i = 0; i < n; i += 4096) src[i] = char(i);
  for (int r = 0; r < repeats; ++r) {
    auto t0 = steady_clock::now();
    {
      std::string s(src.data(), n);
      copy_new.push_back(gbs(n, t0));
    }
    t0 = steady_clock::now();
    std::string z;
    z.assign(n, '\0');  // as the worker's assembly; pages reused (jemalloc: decay off)
    zero_fill.push_back(gbs(n, t0));
    t0 = steady_clock::now();
    std::copy(src.begin(), src.end(), z.begin());
    copy_into.push_back(gbs(n, t0));
    t0 = steady_clock::now();
    volatile auto h = XXH3_128bits(src.data(), n);
    (void)h;
    h128.push_back(gbs(n, t0));
    t0 = steady_clock::now();
    uint64_t acc = 0;
    for (size_t at = 0; at < n; at += 4u << 20)
      acc ^= XXH3_64bits(src.data() + at, std::min<size_t>(4u << 20, n - at));
    volatile uint64_t sink = acc;
    (void)sink;
    h64.push_back(gbs(n, t0));
  }
  std::printf(
      "  to_bytes-like copy into a new string %s GB/s (the lowest: first touch of fresh "
      "pages); string::assign(n, 0) %s GB/s; copy into it %s GB/s\n",
      summary(copy_new, "%.2f").c_str(), summary(zero_fill, "%.2f").c_str(),
      summary(copy_into, "%.2f").c_str());
  std::printf("  XXH3-128 of the whole %s GB/s; XXH3-64 per 4 MiB chunk %s GB/s\n",
              summary(h128, "%.2f").c_str(), summary(h64, "%.2f").c_str());
  for (uint32_t receivers : {1u, 4u}) {
    std::vector<double> z;
    for (int r = 0; r < repeats; ++r)
      z.push_back(zmq_alone(n / receivers, 4u << 20, 4, receivers, src));
    std::printf(
        "  ZeroMQ alone (no hashes, no copies), %u receiver thread%s, 4 MiB frames, "
        "window 4: %s GB/s in all\n",
        receivers, receivers > 1 ? "s" : "", summary(z, "%.2f").c_str());
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // figures appear as they are measured
  std::string what;
  std::vector<double> numbers;  // weights-one: M params, workers, chunk MiB, window
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--adarl" && i + 1 < argc)
      adarl_exe = argv[++i];
    else if (a == "--repeats" && i + 1 < argc)
      repeats = std::max(1, std::atoi(argv[++i]));
    else if (a.rfind("--", 0) != 0 && what.empty())
      what = a;
    else if (a.rfind("--", 0) != 0)
      numbers.push_back(std::atof(a.c_str()));
    else {
      std::fprintf(
          stderr,
          "usage: cluster_bench [scaling|weights|overhead|costs|all] "
          "[--adarl PATH] [--repeats N]\n"
          "       cluster_bench weights-one M_PARAMS WORKERS CHUNK_MIB WINDOW\n");
      return 2;
    }
  }
  if (what.empty()) what = "all";
  if (what == "weights-one") {  // one setting, e.g. under perf
    if (numbers.size() != 4) return std::fprintf(stderr, "weights-one: 4 numbers\n"), 2;
    const auto params = size_t(numbers[0] * 1e6);
    const weights_setting s{uint32_t(numbers[2] * (1 << 20)), uint32_t(numbers[3]), {}};
    print_weights("", params, uint32_t(numbers[1]), s,
                  weights_run(params, uint32_t(numbers[1]), s, repeats));
    return 0;
  }
  if (adarl_exe.empty()) {  // build/bench/cluster_bench -> build/adarl
    std::error_code ec;
    adarl_exe =
        (fs::read_symlink("/proc/self/exe", ec).parent_path().parent_path() / "adarl")
            .string();
  }
  const bool all = what == "all";
  if (!all && what != "scaling" && what != "weights" && what != "overhead" &&
      what != "costs") {
    std::fprintf(stderr, "cluster_bench: unknown part \"%s\"\n", what.c_str());
    return 2;
  }
  const bool needs_adarl = all || what == "scaling" || what == "overhead";
  if (needs_adarl && ::access(adarl_exe.c_str(), X_OK) != 0) {
    std::fprintf(stderr, "cluster_bench: no adarl executable at %s (--adarl PATH)\n",
                 adarl_exe.c_str());
    return 2;
  }
  std::printf("cluster_bench: %u cores, load average %s, workers: %s\n",
              std::thread::hardware_concurrency(), load_average().c_str(),
              adarl_exe.c_str());
  const auto t0 = steady_clock::now();
  if (all || what == "scaling") scaling();
  if (all || what == "weights") weights();
  if (all || what == "overhead") overhead();
  if (all || what == "costs") costs();
  std::printf("\ncluster_bench: %.0f s in all\n", seconds_since(t0));
  return 0;
}
