// Strategy throughput: verified results per second through each step strategy, driven
// the way the tracker drives it (one result per call, requests served FIFO).
// Targets: at least 1,000,000 results/s through Seq on this machine (issue 2), and
// through online Est (issue 25). BM_EstOnlineFull is online Est's reference re-plan
// (every prompt and allocate_budget per result), the implementation before issue 25;
// full_replans_per_result is the share of results online Est re-planned with
// allocate_budget.
//
//   ./build/bench/strategy_bench
#include <benchmark/benchmark.h>

#include <cmath>
#include <deque>
#include <functional>
#include <memory>
#include <random>
#include <vector>

#include "algorithms/est_strategy.hpp"
#include "algorithms/step_strategy.hpp"

namespace {

using namespace adarl;

constexpr uint32_t kPrompts = 256;
constexpr uint32_t kStreamLength = 64;  // > N*M = 32 and > n_max

using factory = std::function<std::unique_ptr<step_strategy>()>;

// Rewards per (prompt, index), from pass rates spread like a hard task mix.
std::vector<std::vector<float>> make_streams(uint64_t seed, uint32_t prompts) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> logit(-1.5, 2.0);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<std::vector<float>> s(prompts, std::vector<float>(kStreamLength));
  for (auto& stream : s) {
    const double p = 1.0 / (1.0 + std::exp(-logit(rng)));
    for (auto& r : stream) r = u(rng) < p ? 1.f : 0.f;
  }
  return s;
}

// Runs whole steps of `count` prompts; counts accepted results as items.
void run_steps(benchmark::State& state, const factory& make, uint32_t count = kPrompts) {
  const auto streams = make_streams(42, count);
  std::vector<prompt_entry> prompts(count);
  for (uint32_t i = 0; i < count; ++i) prompts[i].id = i;
  decisions out;
  std::deque<sample_result> pending;
  uint64_t results = 0, fallbacks = 0;
  bool est_online = false;
  for (auto _ : state) {
    auto strategy = make();
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
    if (const auto* est = dynamic_cast<const est_strategy*>(strategy.get())) {
      const auto& r = est->replans();
      est_online = r.full + r.incremental > 0;
      fallbacks += r.full;
    }
    benchmark::DoNotOptimize(out);
  }
  state.SetItemsProcessed(static_cast<int64_t>(results));
  state.counters["results_per_s"] =
      benchmark::Counter(static_cast<double>(results), benchmark::Counter::kIsRate);
  if (est_online && results > 0)
    state.counters["full_replans_per_result"] =
        static_cast<double>(fallbacks) / static_cast<double>(results);
}

void run_steps(benchmark::State& state, const strategy_config& config) {
  run_steps(state, [&] { return make_strategy(config); });
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
void BM_EstOnlineFull(benchmark::State& state) {
  run_steps(state, [] {
    return std::make_unique<est_strategy>(est_config{}, /*online=*/true,
                                          est_strategy::replan_mode::full);
  });
}
// 16 times the prompts: the per-result cost should barely move.
void BM_EstOnline4096(benchmark::State& state) {
  strategy_config c;
  c.kind = strategy_kind::ada_est_online;
  const factory make = [&] { return make_strategy(c); };
  run_steps(state, make, /*count=*/4096);
}

BENCHMARK(BM_SeqBalance);
BENCHMARK(BM_SeqPos);
BENCHMARK(BM_Grpo);
BENCHMARK(BM_Est);
BENCHMARK(BM_EstOnline);
BENCHMARK(BM_EstOnlineFull);
BENCHMARK(BM_EstOnline4096);

}  // namespace

BENCHMARK_MAIN();
