// The learned pass-rate estimator's cost (tracker.estimator.kind: learned, issue 25
// part 2): what the tracker spends on it per training step, at the feature widths of
// the built-in character transformer (d_model 128), of Qwen2-0.5B (hidden 896) and of a
// 7B-class model (4096). A step of the compare configs is 12 prompts: each prompt's
// prior is read once (predict) and each finished group is fitted once (fit: 2 Adam
// steps by default). BM_PredictorStep/D reports the time of one such step;
// BM_SetFeatures/D the one-time standardisation of 2,000 prompts' features.
//
//   ./build/bench/predictor_bench
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "algorithms/pass_rate_predictor.hpp"

namespace {

using namespace adarl;

constexpr uint32_t kPrompts = 2000;       // a training pool
constexpr uint32_t kPromptsPerStep = 12;  // tracker.prompts_per_step of the compare configs
constexpr uint32_t kGroupSamples = 16;    // about an informed Seq visit's samples

std::vector<std::vector<float>> make_features(size_t dim) {
  std::mt19937_64 rng(7);
  std::normal_distribution<float> x(0.f, 1.f);
  std::vector<std::vector<float>> rows(kPrompts, std::vector<float>(dim));
  for (auto& r : rows)
    for (auto& v : r) v = x(rng);
  return rows;
}

void BM_PredictorStep(benchmark::State& state) {
  const auto dim = size_t(state.range(0));
  pass_rate_predictor p;
  if (!p.set_features(make_features(dim))) state.SkipWithError("set_features failed");
  std::mt19937_64 rng(11);
  std::uniform_int_distribution<uint32_t> id(0, kPrompts - 1), wins(0, kGroupSamples);
  const beta_ema_counts counts{8.f, 2.f};
  double sink = 0;
  for (auto _ : state) {
    for (uint32_t i = 0; i < kPromptsPerStep; ++i) {
      const uint64_t prompt = id(rng);
      sink += p.prior(prompt, &counts).mean();
      p.fit(prompt, kGroupSamples, wins(rng));
    }
  }
  benchmark::DoNotOptimize(sink);
  state.SetItemsProcessed(int64_t(state.iterations()));  // items/s = steps/s
  state.counters["prompts_per_step"] = kPromptsPerStep;
}

void BM_SetFeatures(benchmark::State& state) {
  const auto rows = make_features(size_t(state.range(0)));
  for (auto _ : state) {
    pass_rate_predictor p;
    benchmark::DoNotOptimize(p.set_features(rows));
  }
  state.counters["prompts"] = kPrompts;
}

}  // namespace

BENCHMARK(BM_PredictorStep)->Arg(128)->Arg(896)->Arg(4096);
BENCHMARK(BM_SetFeatures)->Arg(128)->Arg(896)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
