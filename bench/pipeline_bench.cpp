// The actor pipeline's own costs, with simulated engines (no model), printed:
//  1. scale: the tracker with a 1,000,000-prompt dataset: persistent bytes per prompt,
//     tracker decisions (results) per second alone, and through 1,000 generator actors
//     with the p99 latency from a verified result to the request it triggers;
//  2. steady state: generator busy fraction and framework overhead per step when each
//     decoding step costs a fixed time;
//  3. Seq-balance against GRPO at the same samples, wall-clock per step, with
//     asynchronous rounds and with the synchronous-rounds mode (the reference's barrier).
// Issue 5 targets: <= 64 bytes per prompt, >= 1M results/s, p99 < 1 ms, busy >= 95%,
// overhead < 2%, Seq-balance / GRPO per-step ratio <= 1.15.
//
//   ./build/bench/pipeline_bench [scale|scale-core|saturated|paced|steady|ratio|all]
#include <caf/all.hpp>
#ifdef ADARL_JEMALLOC
#include <jemalloc/jemalloc.h>
#else
#include <malloc.h>
#endif

#include <algorithm>
#include <cmath>
#include <deque>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <string>

#include <nlohmann/json.hpp>

#include "actors/tracker.hpp"
#include "base/clock.hpp"
#include "pipelines/pipeline.hpp"
#include "tasks/suites.hpp"

using namespace adarl;

namespace {

/// Bytes allocated on the heap now, from whichever allocator the bench is linked with.
size_t heap_bytes() {
#ifdef ADARL_JEMALLOC
  uint64_t epoch = 1;  // statistics are cached until the epoch advances
  size_t size = sizeof(epoch);
  mallctl("epoch", &epoch, &size, &epoch, size);
  size_t allocated = 0;
  size = sizeof(allocated);
  if (mallctl("stats.allocated", &allocated, &size, nullptr, 0) != 0) return 0;
  return allocated;
#else
  return mallinfo2().uordblks;
#endif
}

tracker_config scale_config(strategy_kind kind) {
  tracker_config c;
  c.strategy.kind = kind;
  c.prompts_per_step = 1024;
  c.lag.max_lag = 1;
  c.lease_ns = 60'000'000'000;
  return c;
}

// Every prompt of the dataset passes through the tracker once (one epoch).
void scale_core() {
  const uint64_t prompts = 1'000'000;
  const size_t before = heap_bytes();
  tracker_core core(scale_config(strategy_kind::ada_seq), prompts);
  std::vector<work_item> items;
  tracker_output out;
  uint64_t results = 0, version = 0;
  const auto t0 = steady_clock::now();
  while (uint64_t(core.generated_through() + 1) * 1024 < prompts) {
    items.clear();
    core.next_work(4096, version, 0, items);
    for (const auto& w : items) {
      out.clear();
      // A prompt's pass rate from its id; a keyed draw per sample.
      const double p = double(w.prompt_id % 97) / 97.0;
      const float r = keyed_uniform(w.stream, 0, 0, 0) < p ? 1.f : 0.f;
      core.on_result({w.step, w.slot, w.index, r, 10, version}, 0, out);
      ++results;
    }
    while (core.generated_through() >= int64_t(version)) core.retire_through(++version);
  }
  const double secs = seconds_since(t0);
  const size_t after = heap_bytes();
  std::printf("scale/core: %llu prompts seen, %llu results in %.2f s: %.2f M results/s\n",
              (unsigned long long)core.pass_rates().size(), (unsigned long long)results, secs,
              results / secs / 1e6);
  std::printf("scale/core: persistent state %.1f bytes per prompt (pass-rate table + prompt "
              "order, heap growth %zu bytes over %llu prompts)\n",
              double(after - before) / prompts, after - before, (unsigned long long)prompts);
}

// A generator that answers its orders `delay_us` after receiving them (at once when 0;
// with `jitter`, a delay drawn uniformly from [0.5, 1.5] x delay_us per batch, so that
// 1,000 generators do not answer in lockstep), rewards keyed by the stream, and records
// the delay between its previous answer and the next order it receives (the tracker's
// result -> next order latency).
struct fast_gen_state {
  uint64_t last_sent = 0;
  std::vector<uint64_t> latencies;
  uint64_t answered = 0;
  std::multimap<uint64_t, std::vector<work_order>> due;  ///< By due time.
  std::minstd_rand rng;
};

generator_actor::behavior_type fast_generator(
    generator_actor::stateful_pointer<fast_gen_state> self, result_sink_actor tracker,
    caf::actor sink, uint64_t limit, uint64_t delay_us, bool jitter, uint32_t seed) {
  self->state.rng.seed(seed + 1);
  auto answer = [=](std::vector<work_order>& w) {
    auto& st = self->state;
    std::vector<completion> batch;
    batch.reserve(w.size());
    for (const auto& o : w) {
      completion c;
      c.order = o;
      c.reward = keyed_uniform(o.stream, 0, 0, 0) < double(o.prompt_id % 97) / 97.0;
      batch.push_back(std::move(c));
    }
    st.answered += batch.size();
    st.last_sent = now_ns();
    // Results and the credit they free in one message, as generators and verifiers send.
    self->send(tracker, scored_atom::value, std::move(batch), uint32_t(w.size()),
               generator_actor{self});
    if (st.answered >= limit) {
      caf::anon_send(sink, std::move(st.latencies), st.answered);
      st.latencies.clear();
      st.last_sent = 0;
      st.answered = 0;
    }
  };
  return {
      [=](work_atom, std::vector<work_order>& w) {
        auto& st = self->state;
        const uint64_t now = now_ns();
        if (st.last_sent) st.latencies.push_back(now - st.last_sent);
        if (delay_us == 0) return answer(w);
        uint64_t ns = delay_us * 1000;
        if (jitter) ns = ns / 2 + st.rng() % (ns + 1);
        const uint64_t due = now + ns;
        if (st.due.empty() || due < st.due.begin()->first)
          self->delayed_send(self, std::chrono::nanoseconds(ns), decode_atom::value);
        st.due.emplace(due, std::move(w));
      },
      [](weights_atom, weights_ptr) {},
      [](weights_atom, weight_bytes_ptr) {},
      [=](decode_atom) {
        auto& st = self->state;
        const uint64_t now = now_ns();
        while (!st.due.empty() && st.due.begin()->first <= now) {
          answer(st.due.begin()->second);
          st.due.erase(st.due.begin());
        }
        if (!st.due.empty())
          self->delayed_send(self, std::chrono::nanoseconds(st.due.begin()->first - now),
                             decode_atom::value);
      },
  };
}

// A learner that retires steps at once.
learner_actor::behavior_type instant_learner(learner_actor::pointer self,
                                             learner_link_actor tracker) {
  return {
      [](group_atom, train_group&) {},
      [=](ready_atom, step_report& r) { self->send(tracker, version_atom::value, r.step + 1); },
      [](stop_atom) -> uint64_t { return 0; },
      [](save_atom) -> uint64_t { return 0; },
      [](status_atom) -> std::string { return "instant"; },
  };
}

// 1,000 generator actors with credit 4 each. delay_us = 0: every generator answers at
// once, so the tracker is saturated (throughput; the latency is then queueing behind
// the other 999). delay_us > 0: each batch takes that long to "generate" on average, an
// offered load of 4,000 results per delay (the latency of the tracker itself under
// load). Without jitter every generator's batch takes exactly delay_us and the 1,000
// generators answer in bursts (the worst case: each burst queues behind itself).
void scale_actors(uint64_t delay_us, bool jitter) {
  const uint32_t generators = 1000;
  const uint64_t per_generator = delay_us ? 400 : 2000;
  struct cfg_t : caf::actor_system_config {
    cfg_t() { set("scheduler.max-threads", size_t{2}); }
  } cfg;
  caf::actor_system sys{cfg};
  caf::scoped_actor self{sys};
  // Prompt text is not read by these generators: a one-row table per id is not needed,
  // only the id count. Build a minimal table with 1,000,000 empty training rows.
  auto table = std::make_shared<prompt_table>();
  table->rows.resize(1'000'000);
  table->train = 1'000'000;
  tracker_setup ts;
  ts.core = scale_config(strategy_kind::ada_seq);
  ts.core.lag.max_lag = 2;
  ts.prompts = table;
  auto tracker = spawn_tracker(sys, ts);
  auto learner = sys.spawn(instant_learner, tracker);
  self->send(tracker, start_atom::value, learner, evaluator_actor{});
  std::vector<generator_actor> gens;
  const auto t0 = steady_clock::now();
  for (uint32_t i = 0; i < generators; ++i) {
    auto g = sys.spawn(fast_generator, tracker, caf::actor_cast<caf::actor>(self), per_generator,
                       delay_us, jitter, i);
    self->send(tracker, credit_atom::value, uint32_t{4}, g);
    gens.push_back(g);
  }
  std::vector<uint64_t> all;
  uint64_t results = 0;
  for (uint32_t i = 0; i < generators; ++i)
    self->receive([&](std::vector<uint64_t>& l, uint64_t n) {
      all.insert(all.end(), l.begin(), l.end());
      results += n;
    });
  const double secs = seconds_since(t0);
  std::sort(all.begin(), all.end());
  const auto pct = [&](double q) { return all.empty() ? 0.0 : all[size_t(q * (all.size() - 1))] / 1e3; };
  std::printf("scale/actors (%s): %u generators, %llu results in %.2f s: %.2f M results/s\n",
              delay_us ? ("paced, " + std::to_string(delay_us) + " us per batch" +
                          (jitter ? " +-50%" : ", lockstep")).c_str()
                       : "saturated",
              generators, (unsigned long long)results, secs, results / secs / 1e6);
  std::printf("scale/actors: result -> next order latency p50 %.1f us, p99 %.1f us, max %.1f us\n",
              pct(0.5), pct(0.99), pct(1.0));
  for (auto& g : gens) self->send_exit(g, caf::exit_reason::user_shutdown);
  self->send_exit(tracker, caf::exit_reason::user_shutdown);
  self->send_exit(learner, caf::exit_reason::user_shutdown);
}

prompt_table_ptr bench_prompts(uint32_t train, uint32_t held) {
  suite_request r;
  r.count = train;
  auto tr = generate_suite("math", r);
  r.count = held;
  r.part = split::held_out;
  auto ho = generate_suite("math", r);
  auto tok = tokenizer::from_charset(tokenizer::default_charset());
  return std::make_shared<const prompt_table>(std::move(*build_prompt_table(*tr, *ho, *tok)));
}

struct run_figures {
  double step_seconds = 0;   ///< Mean wall time per step (steps after the first).
  double samples_per_step = 0;
  double busy = 0;           ///< Generator busy fraction over the run.
  double overhead = 0;       ///< 1 - busy: share of generator time outside engine work.
};

run_figures sim_run(const std::string& name, strategy_kind kind, exit_rule rule, uint32_t n,
                    bool sync, uint64_t steps, double step_seconds, double tail,
                    uint32_t max_lag = 1) {
  pipeline_config c;
  c.policy.kind = policy_kind::simulated;
  c.tracker.strategy.kind = kind;
  c.tracker.strategy.seq.exit = rule;
  c.tracker.strategy.uniform.group_size = n;
  c.tracker.sync_rounds = sync;
  c.tracker.prompts_per_step = 32;
  c.tracker.steps = steps;
  c.tracker.lag.max_lag = max_lag;
  c.actors.generators = 1;
  c.actors.generator_capacity = 64;
  c.actors.sim_latency.step_seconds = step_seconds;
  c.actors.sim_latency.min_steps = 8;
  c.actors.sim_latency.tail = tail;
  c.actors.sim_latency.max_steps = 64;
  c.eval.greedy = false;
  c.progress = false;
  c.out = (std::filesystem::temp_directory_path() / ("adarl_bench_" + name)).string();
  std::filesystem::remove_all(c.out);
  auto table = bench_prompts(512, 0);
  auto r = run_pipeline(c, table, sim_factories(c, table), {});
  run_figures f;
  if (!r) {
    std::printf("%s: %s\n", name.c_str(), r.err().message.c_str());
    return f;
  }
  std::ifstream in(c.out + "/metrics.jsonl");
  double wall = 0, busy_w = 0, busy_wall = 0, samples = 0;
  uint64_t counted = 0;
  for (std::string line; std::getline(in, line);) {
    auto j = nlohmann::json::parse(line);
    samples += j["samples"].get<double>();
    if (j["step"].get<uint64_t>() == 0) continue;  // start-up
    wall += j["time_step"].get<double>();
    if (j.contains("generator_busy")) {  // absent: no load report during the step
      busy_w += j["generator_busy"].get<double>() * j["time_step"].get<double>();
      busy_wall += j["time_step"].get<double>();
    }
    ++counted;
  }
  f.step_seconds = counted ? wall / counted : 0;
  f.samples_per_step = samples / double(steps);
  f.busy = busy_wall > 0 ? busy_w / busy_wall : 0;
  f.overhead = 1 - f.busy;
  std::printf("%-28s %6.1f samples/step  %7.1f ms/step  %6.3f ms/sample  busy %.1f%%\n",
              name.c_str(), f.samples_per_step, f.step_seconds * 1e3,
              f.step_seconds * 1e3 / f.samples_per_step, f.busy * 100);
  return f;
}

void steady() {
  std::printf("steady state: 1 simulated generator (64 slots, 2 ms per decoding step, 8-64 steps "
              "per sample), 40 steps of 32 prompts\n");
  auto f = sim_run("steady/grpo-n8", strategy_kind::grpo, exit_rule::balance, 8, false, 40,
                   0.002, 1.5);
  std::printf("steady: generator busy %.1f%%, framework overhead %.2f%% of step time\n",
              f.busy * 100, f.overhead * 100);
}

void ratio() {
  std::printf("Seq-balance vs GRPO at the same samples per step: 1 simulated generator (64 "
              "slots, 2 ms per decoding step, heavy-tailed lengths), 30 steps of 32 prompts.\n"
              "async: adarl (no round barrier, max lag 1); sync-rounds: a barrier after each "
              "round and no overlap of steps (max lag 0), as the reference implementation\n");
  auto s = sim_run("ada-seq-balance/async", strategy_kind::ada_seq, exit_rule::balance, 4, false,
                   30, 0.002, 1.5);
  // GRPO's group size that draws as many samples per step as Seq-balance did.
  const auto n = uint32_t(std::max(1.0, std::round(s.samples_per_step / 32)));
  auto g = sim_run("grpo-n" + std::to_string(n) + "/async", strategy_kind::grpo,
                   exit_rule::balance, n, false, 30, 0.002, 1.5);
  auto ss = sim_run("ada-seq-balance/sync-rounds", strategy_kind::ada_seq, exit_rule::balance, 4,
                    true, 30, 0.002, 1.5, /*max_lag=*/0);
  auto gs = sim_run("grpo-n" + std::to_string(n) + "/sync-rounds", strategy_kind::grpo,
                    exit_rule::balance, n, true, 30, 0.002, 1.5, /*max_lag=*/0);
  const auto per_sample = [](const run_figures& f) {
    return f.samples_per_step > 0 ? f.step_seconds / f.samples_per_step : 0;
  };
  std::printf("ratio Seq-balance / GRPO, wall per step at equal samples: async %.2f, "
              "sync-rounds %.2f\n",
              per_sample(g) > 0 ? per_sample(s) / per_sample(g) : 0.0,
              per_sample(gs) > 0 ? per_sample(ss) / per_sample(gs) : 0.0);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string what = argc > 1 ? argv[1] : "all";
  const bool scale = what == "scale" || what == "all";
  if (scale || what == "scale-core") scale_core();
  if (scale || what == "saturated") scale_actors(0, false);
  if (scale || what == "paced") {
    scale_actors(20'000, true);   // offered 200 k results/s
    scale_actors(10'000, true);   // offered 400 k results/s
    scale_actors(5'000, true);    // offered 800 k results/s
    scale_actors(20'000, false);  // 200 k results/s in bursts of 4,000
  }
  if (what == "steady" || what == "all") steady();
  if (what == "ratio" || what == "all") ratio();
  return 0;
}
