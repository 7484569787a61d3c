// Math verifier throughput on one core (tasks/math_verifier.hpp): the fast path (the
// built-in suite's "#### 42" and "\boxed{42}", exact rationals, no GiNaC), typical
// MATH-style boxed answers (about one in three symbolic), single symbolic forms, and
// hostile answers, whose worst time must stay near limits.budget (100 ms).
// allocs_per_verify counts operator new calls inside the timed loop.
//
//   ./build/bench/math_verifier_bench
//   ./build/bench/math_verifier_bench --benchmark_filter=Hostile
#include <benchmark/benchmark.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "tasks/math_suite.hpp"
#include "tasks/math_verifier.hpp"

namespace {

std::atomic<uint64_t> g_allocations{0};

}  // namespace

// Counting replacements of the global allocation functions (malloc underneath; GCC
// cannot tell that the delete below frees what this new returned).
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void* operator new(std::size_t n) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}

namespace {

using namespace adarl;

struct pair_batch {
  std::vector<task_item> items;
  std::vector<std::string> completions;
};

task_item item_of(std::string answer) {
  task_item t;
  t.answer = std::move(answer);
  t.verifier = "math";
  return t;
}

/// The built-in suite with "#### answer" (or "\boxed{answer}") completions, 3 in 4 right.
pair_batch suite_batch(bool boxed) {
  suite_request req;
  req.seed = 3;
  req.count = 1024;
  pair_batch b;
  b.items = generate_math(req);
  for (size_t i = 0; i < b.items.size(); ++i) {
    const std::string answer = i % 4 == 3 ? "7" : b.items[i].answer;
    b.completions.push_back(boxed ? "So the result is \\boxed{" + answer + "}."
                                  : "First we multiply, then we add the rest.\n#### " + answer);
  }
  return b;
}

/// MATH-style references and boxed completions: integers, fractions, surds, intervals,
/// tuples, text, expressions; right and wrong.
pair_batch typical_batch() {
  const std::vector<std::pair<std::string, std::string>> pairs = {
      {"18", "so the answer is $\\boxed{18}$."},
      {"\\frac{1}{3}", "Thus $\\boxed{\\dfrac{1}{3}}$."},
      {"-\\frac{7}{2}", "\\boxed{-3.5}"},
      {"204", "\\boxed{205}"},
      {"3\\sqrt{13}", "\\boxed{\\sqrt{117}}"},
      {"\\frac{1+\\sqrt5}{2}", "\\boxed{\\frac{1+\\sqrt{5}}{2}}"},
      {"[0,1)", "\\boxed{[0, 1)}"},
      {"(3, -4)", "\\boxed{\\left(3,-4\\right)}"},
      {"\\text{odd}", "\\boxed{\\text{odd}}"},
      {"x^2+7x+10", "\\boxed{(x+2)(x+5)}"},
      {"2\\pi", "\\boxed{2\\pi}"},
      {"\\$16,\\!386.20", "\\boxed{16386.20}"},
  };
  pair_batch b;
  for (const auto& [ref, completion] : pairs) {
    b.items.push_back(item_of(ref));
    b.completions.push_back("Let us compute step by step. ... " + completion);
  }
  return b;
}

void run(benchmark::State& state, const pair_batch& b) {
  static const math_verifier v;
  float total = 0;
  v.verify(b.items[0], b.completions[0]);  // GiNaC's first use builds its tables
  const uint64_t before = g_allocations.load();
  for (auto _ : state) {
    for (size_t i = 0; i < b.items.size(); ++i) total += v.verify(b.items[i], b.completions[i]).reward;
    benchmark::DoNotOptimize(total);
  }
  const double n = static_cast<double>(state.iterations() * b.items.size());
  state.SetItemsProcessed(static_cast<int64_t>(n));
  state.counters["reward_mean"] = total / n;
  state.counters["allocs_per_verify"] = static_cast<double>(g_allocations.load() - before) / n;
}

void BM_FastPathHashes(benchmark::State& state) {
  static const pair_batch b = suite_batch(/*boxed=*/false);
  run(state, b);
}
void BM_FastPathBoxed(benchmark::State& state) {
  static const pair_batch b = suite_batch(/*boxed=*/true);
  run(state, b);
}
void BM_TypicalBoxed(benchmark::State& state) {
  static const pair_batch b = typical_batch();
  run(state, b);
}

/// One symbolic or hostile pair per benchmark.
void BM_One(benchmark::State& state, std::string ref, std::string completion) {
  pair_batch b;
  b.items.push_back(item_of(std::move(ref)));
  b.completions.push_back(std::move(completion));
  run(state, b);
}

std::string nested(const std::string& open, const std::string& inner, const std::string& close,
                   int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += open;
  out += inner;
  for (int i = 0; i < n; ++i) out += close;
  return out;
}

// (x+0)(x+1)...(x+n-1): near the node limit, never expanded.
std::string binomials(int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += "(x+" + std::to_string(i) + ")";
  return out;
}

const std::vector<std::pair<std::string, std::pair<std::string, std::string>>>& cases() {
  static const std::vector<std::pair<std::string, std::pair<std::string, std::string>>> c = {
      {"Symbolic/golden_ratio", {"\\frac{1+\\sqrt5}{2}", "\\boxed{\\frac{2}{\\sqrt5-1}}"}},
      {"Symbolic/sin_pi_12", {"\\sin(\\pi/12)", "\\boxed{\\frac{\\sqrt6-\\sqrt2}{4}}"}},
      {"Symbolic/polynomial", {"x^2-1", "\\boxed{(x-1)(x+1)}"}},
      {"Symbolic/trig_identity", {"1", "\\boxed{\\sin^2 x + \\cos^2 x}"}},
      {"Symbolic/union", {"(-\\infty,1)\\cup(3,\\infty)", "\\boxed{(3,\\infty)\\cup(-\\infty,1)}"}},
      {"Symbolic/inequality", {"x \\ge 5", "\\boxed{[5, \\infty)}"}},
      {"Symbolic/matrix", {"\\begin{pmatrix}1&2\\\\3&4\\end{pmatrix}",
                           "\\boxed{\\begin{bmatrix}1&2\\\\3&4\\end{bmatrix}}"}},
      {"Symbolic/plus_minus", {"\\frac{1\\pm\\sqrt5}{2}",
                               "\\boxed{\\frac{1+\\sqrt5}{2}, \\frac{1-\\sqrt5}{2}}"}},
      {"Hostile/tower", {"5", "\\boxed{10^{10^{10}}}"}},
      {"Hostile/factorial_1000", {"5", "\\boxed{1000!}"}},
      {"Hostile/factorial_of_factorial", {"5", "\\boxed{(1000!)!}"}},
      {"Hostile/expansion", {"5", "\\boxed{(x+y+z+w)^{1000}}"}},
      {"Hostile/nested_400", {"5", "\\boxed{" + nested("(", "1", ")", 400) + "}"}},
      {"Hostile/nested_sqrt_30", {"5", "\\boxed{" + nested("\\sqrt{", "2", "}", 30) + "}"}},
      {"Hostile/100kB_box", {"5", "\\boxed{" + nested("1+", "1", "", 50000) + "}"}},
      {"Hostile/100kB_prose_then_box", {"5", std::string(100000, 'x') + " \\boxed{6}"}},
      {"Hostile/exp_tower", {"5", "\\boxed{e^{e^{e^{e^{100}}}}}"}},
      {"Hostile/sin_huge", {"5", "\\boxed{\\sin(10^{5000})}"}},
      {"Hostile/big_rational_function", {"x", "\\boxed{\\frac{1}{x^{999}-x^{998}}}"}},
      {"Hostile/product_of_90_binomials", {"5", "\\boxed{" + binomials(90) + "}"}},
  };
  return c;
}

const bool registered = [] {
  for (const auto& [name, p] : cases()) {
    benchmark::RegisterBenchmark(("BM_" + name).c_str(), BM_One, p.first, p.second)
        ->Unit(benchmark::kMicrosecond);
  }
  return true;
}();

BENCHMARK(BM_FastPathHashes)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_FastPathBoxed)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_TypicalBoxed)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
