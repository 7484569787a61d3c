#include "experiments/simulate.hpp"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <numeric>
#include <random>
#include <thread>
#include <utility>

#include "algorithms/budget_ledger.hpp"
#include "algorithms/step_strategy.hpp"
#include "algorithms/step_summary.hpp"
#include "base/random_keys.hpp"

namespace adarl {
namespace {

/// Training prompts in epochs: each epoch is a fresh shuffle drawn from the seed, so
/// every strategy sees the same sequence (DAPO just consumes it faster).
class prompt_order {
 public:
  prompt_order(uint32_t prompts, uint64_t seed)
      : order_(prompts), pos_(prompts), rng_(splitmix64(seed ^ 0x6f72646572ULL)) {
    std::iota(order_.begin(), order_.end(), uint64_t{0});
  }

  uint64_t next() {
    if (pos_ == order_.size()) {
      std::shuffle(order_.begin(), order_.end(), rng_);
      pos_ = 0;
    }
    return order_[pos_++];
  }

 private:
  std::vector<uint64_t> order_;
  size_t pos_;
  std::mt19937_64 rng_;
};

/// One step of one run: serves the strategy's requests from the policy, first in first
/// out, until the strategy says the step is done.
class step_driver {
 public:
  step_driver(const simulated_policy& policy, const pass_rate_table& table,
              prompt_order& order, uint64_t seed, uint64_t step)
      : policy_(policy), table_(table), order_(order), seed_(seed), step_(step) {}

  std::vector<finished_group> run(step_strategy& strategy, uint32_t batch,
                                  budget_ledger& ledger) {
    decisions d;
    strategy.start(entries(batch), d);
    act(strategy, d);
    while (!pending_.empty()) {
      const sample_result r = pending_.front();
      pending_.pop_front();
      d.clear();
      if (strategy.on_result(r, d) == result_status::accepted)
        ledger.charge(step_, /*samples=*/1, r.tokens);
      act(strategy, d);
    }
    // Nothing in flight and not done: the strategy would wait forever (a bug in it).
    if (!strategy.done()) {
      std::fprintf(stderr,
                   "simulate: step %llu: the strategy stopped requesting samples "
                   "before its step was done\n",
                   static_cast<unsigned long long>(step_));
      std::abort();
    }
    return std::move(finished_);
  }

 private:
  std::vector<prompt_entry> entries(uint32_t count) {
    std::vector<prompt_entry> out(count);
    for (auto& e : out) {
      e.id = order_.next();
      e.prior = table_.posterior_of(e.id);
      // The visit's key, as the tracker keys it: strategies that skip explore by it.
      e.visit_key = mix_keys(seed_ ^ 0x7151'7000'0000'0000ull, step_, e.id, ids_.size());
      ids_.push_back(e.id);
    }
    return out;
  }

  void act(step_strategy& strategy, decisions& d) {
    for (const auto& req : d.requests)
      for (uint32_t i = req.first_index; i < req.first_index + req.count; ++i)
        // Simulated samples have no tokens: the budget is counted in samples.
        pending_.push_back({req.slot, i, policy_.draw(step_, ids_.at(req.slot), i),
                            /*tokens=*/0});
    for (auto& g : d.finished) finished_.push_back(std::move(g));
    if (d.prompts_wanted > 0) {
      decisions more;
      strategy.add_prompts(entries(d.prompts_wanted), more);
      act(strategy, more);
    }
  }

  const simulated_policy& policy_;
  const pass_rate_table& table_;
  prompt_order& order_;
  uint64_t seed_;
  uint64_t step_;
  std::vector<uint64_t> ids_;  ///< Prompt id of each slot.
  std::deque<sample_result> pending_;
  std::vector<finished_group> finished_;
};

}  // namespace

seed_run run_seed(const simulate_config& config, const strategy_config& strategy,
                  uint64_t seed) {
  std::mt19937_64 rng(seed);
  simulated_policy policy(config.model, config.prompts, config.held_out, rng,
                          /*sample_seed=*/seed);
  pass_rate_table table(config.estimator);
  budget_ledger ledger;
  prompt_order order(config.prompts, seed);
  seed_run run;
  run.seed = seed;
  for (uint64_t step = 0; ledger.cumulative().samples < config.total_samples; ++step) {
    const auto strat = make_strategy(strategy);
    step_driver driver(policy, table, order, seed, step);
    const auto groups = driver.run(*strat, config.batch_prompts, ledger);
    step_summary summary;
    for (const auto& g : groups) {
      summary.add(g);
      table.update(g.prompt_id, g.samples_used, g.positives);
      if (!g.trainable() || g.zero_gradient()) run.wasted_samples += g.samples_used;
    }
    policy.update(groups);
    ledger.close_step(step);
    run.groups += summary.prompts;
    run.curve.push_back({step, ledger.cumulative().samples, policy.train_mean(),
                         policy.held_out_mean(), summary.zero_gradient_fraction(),
                         summary.mean_samples_per_prompt()});
    if (summary.samples == 0) break;  // a strategy that draws nothing would never end
  }
  run.samples = ledger.cumulative().samples;
  run.samples_to_target = samples_to_target(run.curve, config.target_pass_rate);
  run.steps_to_target = steps_to_target(run.curve, config.target_pass_rate);
  return run;
}

std::optional<uint64_t> samples_to_target(std::span<const sim_curve_point> curve,
                                          double target) {
  for (const auto& p : curve)
    if (p.train_pass_rate >= target) return p.samples;
  return std::nullopt;
}

std::optional<double> median_of(std::vector<std::optional<uint64_t>> values) {
  if (values.empty()) return std::nullopt;
  // nullopt sorts last: it stands for "never", i.e. +infinity.
  std::sort(values.begin(), values.end(),
            [](const auto& a, const auto& b) { return a && (!b || *a < *b); });
  const size_t n = values.size();
  const auto& hi = values[n / 2];
  const auto& lo = values[(n - 1) / 2];
  if (!hi || !lo) return std::nullopt;
  return (static_cast<double>(*lo) + static_cast<double>(*hi)) / 2.0;
}

std::optional<double> median_ratio(std::span<const std::optional<uint64_t>> baseline,
                                   std::span<const std::optional<uint64_t>> strategy) {
  if (baseline.empty() || baseline.size() != strategy.size()) return std::nullopt;
  std::vector<double> ratios;
  for (size_t i = 0; i < baseline.size(); ++i) {
    if (!baseline[i] || !strategy[i] || *strategy[i] == 0) return std::nullopt;
    ratios.push_back(static_cast<double>(*baseline[i]) /
                     static_cast<double>(*strategy[i]));
  }
  std::sort(ratios.begin(), ratios.end());
  const size_t n = ratios.size();
  return (ratios[(n - 1) / 2] + ratios[n / 2]) / 2.0;
}

std::optional<uint64_t> steps_to_target(std::span<const sim_curve_point> curve,
                                        double target) {
  for (size_t i = 0; i < curve.size(); ++i)
    if (curve[i].train_pass_rate >= target) return i + 1;
  return std::nullopt;
}

void summarize(strategy_result& r, const strategy_result& baseline) {
  std::vector<std::optional<uint64_t>> mine, base, steps;
  for (const auto& run : r.runs) mine.push_back(run.samples_to_target);
  for (const auto& run : r.runs) steps.push_back(run.steps_to_target);
  r.median_steps = median_of(steps);
  for (const auto& run : baseline.runs) base.push_back(run.samples_to_target);
  r.reached = static_cast<uint32_t>(std::count_if(
      mine.begin(), mine.end(), [](const auto& v) { return v.has_value(); }));
  r.median_samples = median_of(mine);
  r.min_samples.reset();
  r.max_samples.reset();
  if (r.reached > 0) {
    for (const auto& v : mine)
      if (v) r.min_samples = std::min(r.min_samples.value_or(*v), *v);
    if (r.reached == mine.size())
      for (const auto& v : mine) r.max_samples = std::max(r.max_samples.value_or(0), *v);
  }
  r.ratio = median_ratio(base, mine);

  double train = 0, held = 0, zero = 0;
  uint64_t samples = 0, groups = 0, wasted = 0;
  for (const auto& run : r.runs) {
    if (!run.curve.empty()) {
      train += run.curve.back().train_pass_rate;
      held += run.curve.back().held_out_pass_rate;
      double z = 0;
      for (const auto& p : run.curve) z += p.zero_gradient_fraction;
      zero += z / static_cast<double>(run.curve.size());
    }
    samples += run.samples;
    groups += run.groups;
    wasted += run.wasted_samples;
  }
  const auto seeds = static_cast<double>(std::max<size_t>(r.runs.size(), 1));
  r.final_train = train / seeds;
  r.final_held_out = held / seeds;
  r.zero_gradient_fraction = zero / seeds;
  r.samples_per_prompt = groups ? static_cast<double>(samples) / groups : 0.0;
  r.wasted_fraction = samples ? static_cast<double>(wasted) / samples : 0.0;
}

std::vector<strategy_result> run_simulation(const simulate_config& config,
                                            unsigned threads) {
  const size_t seeds = config.seeds.size();
  std::vector<strategy_result> rows(config.strategies.size());
  for (size_t s = 0; s < rows.size(); ++s) {
    rows[s].name = config.strategies[s].name;
    rows[s].runs.resize(seeds);
  }
  // Each (strategy, seed) run is independent and writes only its own slot. Online Est
  // re-plans after every result and costs ~50x the others: start its runs first so
  // that the threads finish together.
  std::vector<std::pair<size_t, size_t>> jobs;
  for (size_t s = 0; s < rows.size(); ++s)
    for (size_t k = 0; k < seeds; ++k) jobs.emplace_back(s, k);
  std::stable_partition(jobs.begin(), jobs.end(), [&](const auto& j) {
    return config.strategies[j.first].config.kind == strategy_kind::ada_est_online;
  });
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t j; (j = next.fetch_add(1)) < jobs.size();) {
      const auto [s, k] = jobs[j];
      rows[s].runs[k] = run_seed(config, config.strategies[s].config, config.seeds[k]);
    }
  };
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  threads = static_cast<unsigned>(std::min<size_t>(threads, jobs.size()));
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();

  const auto base = std::find_if(
      rows.begin(), rows.end(), [&](const auto& r) { return r.name == config.baseline; });
  for (auto& r : rows) summarize(r, base == rows.end() ? r : *base);
  return rows;
}

}  // namespace adarl
