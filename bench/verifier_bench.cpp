// Verifier throughput: verifications per second of the math, expr (interpreter) and
// python verifiers over a batch of realistic completions, single-threaded and with TBB
// parallel_for over the batch (as a verifier actor scores one batch).
// Targets (issue "Tasks and verifiers"): math 1M/s per core, expr 100k/s per core,
// python 50/s on 2 cores.
//
//   ./build/bench/verifier_bench
#include <benchmark/benchmark.h>
#include <tbb/parallel_for.h>

#include <atomic>
#include <string>
#include <vector>

#include "tasks/code_suite.hpp"
#include "tasks/expr_verifier.hpp"
#include "tasks/math_suite.hpp"
#include "tasks/math_verifier.hpp"
#include "tasks/python_verifier.hpp"

namespace {

using namespace adarl;

constexpr uint32_t kBatch = 1024;
constexpr uint32_t kPythonBatch = 16;

/// A batch: items and one completion each (about three in four right).
struct batch {
  std::vector<task_item> items;
  std::vector<std::string> completions;
};

suite_request request(uint32_t count) {
  suite_request req;
  req.seed = 3;
  req.count = count;
  return req;
}

batch math_batch() {
  batch b;
  b.items = generate_math(request(kBatch));
  for (size_t i = 0; i < b.items.size(); ++i) {
    const std::string answer = i % 4 == 3 ? "7" : b.items[i].answer;
    b.completions.push_back("First we multiply, then we add the rest.\n#### " + answer);
  }
  return b;
}

batch expr_batch() {
  batch b;
  b.items = generate_code(request(kBatch));
  for (size_t i = 0; i < b.items.size(); ++i)
    b.completions.push_back(i % 4 == 3 ? "x + 1" : b.items[i].answer);
  return b;
}

batch python_batch() {
  batch b;
  for (uint32_t i = 0; i < kPythonBatch; ++i) {
    task_item item;
    item.id = "py-" + std::to_string(i);
    item.verifier = "python";
    item.tests = R"({"cases": [{"input": ")" + std::to_string(i) + R"(\n", "output": ")" +
                 std::to_string(2 * i + 1) + R"("}]})";
    b.items.push_back(item);
    b.completions.push_back(i % 4 == 3 ? "print(int(input()) * 2)"
                                       : "print(int(input()) * 2 + 1)");
  }
  return b;
}

/// Verifies the whole batch per iteration, one item after another.
void run_serial(benchmark::State& state, const verifier& v, const batch& b) {
  float total = 0;
  for (auto _ : state) {
    for (size_t i = 0; i < b.items.size(); ++i)
      total += v.verify(b.items[i], b.completions[i]).reward;
    benchmark::DoNotOptimize(total);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(b.items.size()));
  state.counters["reward_mean"] =
      total / static_cast<double>(state.iterations() * b.items.size());
}

/// Verifies the whole batch per iteration with tbb::parallel_for over the items.
void run_parallel(benchmark::State& state, const verifier& v, const batch& b) {
  std::atomic<int64_t> right{0};
  for (auto _ : state) {
    tbb::parallel_for(size_t{0}, b.items.size(), [&](size_t i) {
      if (v.verify(b.items[i], b.completions[i]).reward > 0) right.fetch_add(1);
    });
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(b.items.size()));
  state.counters["reward_mean"] =
      static_cast<double>(right.load()) /
      static_cast<double>(state.iterations() * b.items.size());
}

void BM_MathSerial(benchmark::State& state) {
  static const batch b = math_batch();
  run_serial(state, math_verifier{}, b);
}
void BM_MathParallel(benchmark::State& state) {
  static const batch b = math_batch();
  run_parallel(state, math_verifier{}, b);
}
void BM_ExprSerial(benchmark::State& state) {
  static const batch b = expr_batch();
  run_serial(state, expr_verifier{}, b);
}
void BM_ExprParallel(benchmark::State& state) {
  static const batch b = expr_batch();
  run_parallel(state, expr_verifier{}, b);
}
void BM_PythonSerial(benchmark::State& state) {
  static const batch b = python_batch();
  const python_verifier v;
  if (!v.runner().available()) return state.SkipWithError("python3 is not available");
  run_serial(state, v, b);
}
void BM_PythonParallel(benchmark::State& state) {
  static const batch b = python_batch();
  const python_verifier v;
  if (!v.runner().available()) return state.SkipWithError("python3 is not available");
  run_parallel(state, v, b);
}

BENCHMARK(BM_MathSerial)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_MathParallel)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_ExprSerial)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ExprParallel)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_PythonSerial)->Unit(benchmark::kMillisecond)->Iterations(3)->UseRealTime();
BENCHMARK(BM_PythonParallel)->Unit(benchmark::kMillisecond)->Iterations(3)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
