// Strategy throughput: verified results per second through each step strategy, driven
// the way the tracker drives it (one result per call, requests served FIFO).
// Target (issue 2): at least 1,000,000 results/s through Seq on this machine.
//
//   ./build/bench/strategy_bench
#include <benchmark/benchmark.h>

#include <cmath>
#include <deque>
#include <random>
#include <vector>

#include "algorithms/step_strategy.hpp"

namespace {

using namespace adarl;

constexpr uint32_t kPrompts = 256;
constexpr uint32_t kStreamLength = 64;  // > N*M = 32 and > n_max

// Rewards per (prompt, index), from pass rates spread like a hard task mix.
std::vector<std::vector<float>> make_streams(uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> logit(-1.5, 2.0);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<std::vector<float>> s(kPrompts, std::vector<float>(kStreamLength));
  for (auto& stream : s) {
    const double p = 1.0 / (1.0 + std::exp(-logit(rng)));
    for (auto& r : stream) r = u(rng) < p ? 1.f : 0.f;
  }
  return s;
}

// Runs whole steps; counts accepted results as items.
void run_steps(benchmark::State& state, const strategy_config& config) {
  const auto streams = make_streams(42);
  std::vector<prompt_entry> prompts(kPrompts);
  for (uint32_t i = 0; i < kPrompts; ++i) prompts[i].id = i;
  decisions out;
  std::deque<sample_result> pending;
  uint64_t results = 0;
  for (auto _ : state) {
    auto strategy = make_strategy(config);
    out.clear();
    strategy->start(prompts, out);
    auto enqueue = [&] {
      for (const auto& r : out.requests)
        for (uint32_t i = r.first_index; i < r.first_index + r.count; ++i)
          pending.push_back({r.slot, i, streams[r.slot][i], 16});
      out.clear();
    };
    enqueue();
    while (!pending.empty()) {
      strategy->on_result(pending.front(), out);
      pending.pop_front();
      if (!out.requests.empty() || !out.finished.empty()) enqueue();
    }
    results += strategy->samples_accepted();
    benchmark::DoNotOptimize(out);
  }
  state.SetItemsProcessed(static_cast<int64_t>(results));
  state.counters["results_per_s"] =
      benchmark::Counter(static_cast<double>(results), benchmark::Counter::kIsRate);
}

void BM_SeqBalance(benchmark::State& state) {
  strategy_config c;
  c.kind = strategy_kind::ada_seq;
  run_steps(state, c);
}
void BM_SeqPos(benchmark::State& state) {
  strategy_config c;
  c.kind = strategy_kind::ada_seq;
  c.seq.exit = exit_rule::pos;
  run_steps(state, c);
}
void BM_Grpo(benchmark::State& state) {
  strategy_config c;
  c.kind = strategy_kind::grpo;
  run_steps(state, c);
}
void BM_Est(benchmark::State& state) {
  strategy_config c;
  c.kind = strategy_kind::ada_est;
  run_steps(state, c);
}
void BM_EstOnline(benchmark::State& state) {
  strategy_config c;
  c.kind = strategy_kind::ada_est_online;
  run_steps(state, c);
}

BENCHMARK(BM_SeqBalance);
BENCHMARK(BM_SeqPos);
BENCHMARK(BM_Grpo);
BENCHMARK(BM_Est);
BENCHMARK(BM_EstOnline);

}  // namespace

BENCHMARK_MAIN();
