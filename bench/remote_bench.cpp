// Remote verifiers over ZeroMQ (net/verify_hub): completions scored per second
// and the round trip of one batch (hub -> worker -> hub -> tracker) over TCP loopback,
// against the same batches scored in process (actors/verifier's score()). Workers run as
// threads of this process (the same loop as `adarl worker verify`), so the figure is
// the transport's cost: encoding, two socket hops, decoding, on the same cores.
//
//   ./build/bench/remote_bench [batches] [batch_size] [workers]
#include <caf/all.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <thread>
#include <vector>

#include "base/clock.hpp"
#include "net/verify_hub.hpp"
#include "net/verify_worker.hpp"
#include "tasks/suites.hpp"

namespace {

using namespace adarl;

struct bench_config : caf::actor_system_config {
  bench_config() { set("scheduler.max-threads", size_t{2}); }
};

double percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, size_t(q * double(v.size())))];
}

}  // namespace

int main(int argc, char** argv) {
  const uint32_t batches = argc > 1 ? uint32_t(std::atoi(argv[1])) : 2000;
  const uint32_t size = argc > 2 ? uint32_t(std::atoi(argv[2])) : 16;
  const uint32_t n_workers = argc > 3 ? uint32_t(std::atoi(argv[3])) : 1;
  if (batches == 0 || size == 0 || n_workers == 0) {
    std::fprintf(stderr, "usage: remote_bench [batches] [batch_size] [workers], all > 0\n");
    return 2;
  }

  suite_request r;
  r.count = 256;
  auto items = generate_suite("math", r);
  auto tok = std::make_shared<const tokenizer>(*tokenizer::from_charset(tokenizer::default_charset()));
  auto table = build_prompt_table(*items, {}, *tok);
  auto prompts = std::make_shared<const prompt_table>(std::move(*table));
  auto registry = std::make_shared<const verifier_registry>(verifier_registry::with_builtins());
  // Batches of completions, about half right.
  std::vector<std::vector<completion>> work(batches);
  for (uint32_t b = 0; b < batches; ++b)
    for (uint32_t i = 0; i < size; ++i) {
      completion c;
      c.order.prompt_id = (uint64_t(b) * size + i) % prompts->rows.size();
      c.order.index = b;  // the batch number travels with its completions
      const auto& item = prompts->rows[c.order.prompt_id].item;
      c.tokens = *tok->encode((b + i) % 2 ? item.answer : "The answer is 7", "bench");
      work[b].push_back(std::move(c));
    }

  bench_config cfg;
  caf::actor_system sys{cfg};
  caf::scoped_actor self{sys};
  const verifier_setup scoring{prompts, registry, tok, caf::actor_cast<result_sink_actor>(self)};

  // In process: score() over every batch, one thread.
  const auto t0 = steady_clock::now();
  uint64_t rewarded_local = 0;
  for (auto b : work)
    for (auto& c : b) {
      score(scoring, c);
      rewarded_local += c.reward > 0;
    }
  const double local_s = seconds_since(t0);

  remote_verifier_setup rs;
  rs.bind = "tcp://127.0.0.1:*";
  rs.pool.local_after = 1e9;  // no fallback: every batch goes through a worker
  rs.scoring = scoring;
  auto hub = remote_verifier_hub::open(std::move(rs));
  if (!hub) {
    std::fprintf(stderr, "%s\n", hub.err().message.c_str());
    return 1;
  }
  std::atomic<bool> stop{false};
  std::vector<std::thread> workers;
  for (uint32_t w = 0; w < n_workers; ++w)
    workers.emplace_back([&, w] {
      verify_worker_options o;
      o.connect = (*hub)->endpoint();
      o.name = "bench-" + std::to_string(w);
      o.credit = 4;
      o.threads = 1;
      (void)run_verify_worker(o, *registry, stop, nullptr);
    });

  // Warm-up: one batch through, so the workers are connected before timing.
  (*hub)->submit(work[0]);
  self->receive([](scored_atom, std::vector<completion>&) {});

  // Keep `window` batches in flight; time each from submit to arrival.
  const uint32_t window = 4 * n_workers;
  std::vector<steady_clock::time_point> sent(batches);
  std::vector<double> latency;
  latency.reserve(batches);
  uint64_t rewarded_remote = 0;
  uint32_t next = 0, done = 0;
  const auto t1 = steady_clock::now();
  while (done < batches) {
    while (next < batches && next - done < window) {
      sent[next] = steady_clock::now();
      (*hub)->submit(work[next++]);
    }
    bool timed_out = false;
    self->receive(
        [&](scored_atom, std::vector<completion>& b) {
          latency.push_back(seconds_since(sent[b.front().order.index]));
          for (const auto& c : b) rewarded_remote += c.reward > 0;
          ++done;
        },
        caf::after(std::chrono::seconds(30)) >> [&] { timed_out = true; });
    if (timed_out) {
      std::fprintf(stderr, "timed out after %u of %u batches\n", done, batches);
      return 1;
    }
  }
  const double remote_s = seconds_since(t1);
  stop = true;
  for (auto& t : workers) t.join();

  const double n = double(batches) * size;
  std::printf("remote_bench: %u batches x %u math completions, %u worker(s) over TCP loopback, "
              "%u batches in flight\n",
              batches, size, n_workers, window);
  std::printf("  in process (score(), 1 thread): %.0f completions/s\n", n / local_s);
  std::printf("  remote:                         %.0f completions/s, %.0f batches/s\n",
              n / remote_s, batches / remote_s);
  std::printf("  batch round trip: p50 %.0f us, p99 %.0f us\n", percentile(latency, 0.5) * 1e6,
              percentile(latency, 0.99) * 1e6);
  std::printf("  same rewards: %s (%lu rewarded in process, %lu remote)\n",
              rewarded_local == rewarded_remote ? "yes" : "NO",
              static_cast<unsigned long>(rewarded_local),
              static_cast<unsigned long>(rewarded_remote));
  const auto s = (*hub)->stats();
  std::printf("  hub: %lu returned, %lu local, %lu re-issued, %lu stale\n",
              static_cast<unsigned long>(s.pool.returned), static_cast<unsigned long>(s.pool.local),
              static_cast<unsigned long>(s.pool.reissued), static_cast<unsigned long>(s.pool.stale));
  return rewarded_local == rewarded_remote ? 0 : 1;
}
