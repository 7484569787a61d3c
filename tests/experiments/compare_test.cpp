// adarl compare: reading the compare document, the numbers of compare.json from run
// directories (targets never reached included), and a tiny comparison end to end on
// the simulated policy.
#include "experiments/compare_results.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <tuple>
#include <fstream>
#include <regex>

#include <nlohmann/json.hpp>

#include "experiments/run_tasks.hpp"
#include "report/report.hpp"

namespace adarl {
namespace {

using json = nlohmann::json;

const std::string configs_dir = std::string(ADARL_SOURCE_DIR) + "/configs";

std::string fresh_dir(const std::string& name) {
  const std::string dir = testing::TempDir() + "adarl_compare_" + name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

std::string write_file(const std::string& file, const std::string& text) {
  std::ofstream(file) << text;
  return file;
}

// A small simulated pipeline plus a compare section of two strategies.
std::string tiny_document(const std::string& out) {
  return R"(model:
  kind: simulated
tasks:
  suite: math
  train: 64
  held_out: 16
strategy:
  kind: grpo
tracker:
  prompts_per_step: 8
  steps: 1
actors:
  generators: 2
  generator_capacity: 16
eval:
  every_samples: 64
  samples: 2
progress: false
compare:
  out: )" + out + R"(
  seeds: [1, 2]
  sample_budget: 200
  baseline: grpo-n4
  target_heldout: 0.0
  target_reward: 2.0
  strategies:
    - {name: grpo-n4, strategy: {kind: grpo, group_size: 4}}
    - name: ada-seq-balance
      strategy: {kind: ada-seq, exit: balance}
      set: ["learner.lr=0.003"]
)";
}

// The shipped experiment is the paper's protocol at this scale (issue 16): eight
// strategies, at least five seeds, selected prompts, at least 512 held-out prompts, an
// equal-steps reading and a sample budget.
TEST(CompareConfigTest, TheShippedExperimentIsThePapersProtocol) {
  auto plan = load_compare_config(configs_dir + "/compare.yaml", {});
  ASSERT_TRUE(plan) << plan.err().message;
  EXPECT_EQ(plan->strategies,
            (std::vector<std::string>{"grpo-n4", "grpo-n8", "grpo-n16", "dapo", "ada-seq-pos",
                                      "ada-seq-balance", "ada-seq-balance-r2", "ada-est"}));
  const size_t seeds = plan->settings.seeds.size();
  EXPECT_GE(seeds, 5u);
  ASSERT_EQ(plan->runs.size(), 8 * seeds);
  EXPECT_EQ(plan->settings.baseline, "grpo-n4");
  EXPECT_GT(plan->settings.sample_budget, 0u);
  EXPECT_GE(plan->settings.equal_steps, 250u);
  EXPECT_GE(plan->base.tasks.held_out, 512u);
  const auto& sel = plan->settings.select;
  EXPECT_TRUE(sel.enabled);
  EXPECT_EQ(sel.k, 16u);
  EXPECT_EQ(sel.min_correct, 1u);
  EXPECT_EQ(sel.max_correct, 5u);
  // Strategy entries replace the strategy; everything else is the shared document.
  const auto& first = plan->runs[0];
  EXPECT_EQ(first.strategy, "grpo-n4");
  EXPECT_EQ(first.config.tracker.strategy.kind, strategy_kind::grpo);
  EXPECT_EQ(first.config.tracker.strategy.uniform.group_size, 4u);
  EXPECT_EQ(plan->runs[seeds].config.tracker.strategy.uniform.group_size, 8u);
  EXPECT_EQ(plan->runs[2 * seeds].config.tracker.strategy.uniform.group_size, 16u);
  const auto& seq = plan->runs[5 * seeds];
  EXPECT_EQ(seq.strategy, "ada-seq-balance");
  EXPECT_EQ(seq.config.tracker.strategy.seq.exit, exit_rule::balance);
  const auto& r2 = plan->runs[6 * seeds];
  EXPECT_EQ(r2.config.tracker.strategy.seq.max_rounds, 2u);
  EXPECT_EQ(r2.config.tracker.strategy.seq.exit, exit_rule::balance);
  for (const auto& r : plan->runs) {
    EXPECT_EQ(r.config.tracker.sample_budget, plan->settings.sample_budget);
    EXPECT_EQ(r.config.tracker.seed, r.seed);
    EXPECT_EQ(r.config.out, "runs/compare/" + r.strategy + "/seed-" + std::to_string(r.seed));
    EXPECT_EQ(r.config.tasks.train, plan->base.tasks.train);
    EXPECT_EQ(r.config.tracker.prompts_per_step, plan->base.tracker.prompts_per_step);
    EXPECT_DOUBLE_EQ(r.config.learner.optimizer.lr, plan->base.learner.optimizer.lr);
  }
}

// The quickstart comparison (scripts/run.sh) is the equal-compute protocol, shrunk:
// grpo-n4 beside ada-seq-balance on the same fair pool and learner as
// equal-compute-general.yaml (so that the warm start and the selection are shared, and
// its runs are that comparison's first 5 seeds), read at step 100 and at grpo-n4's
// samples of 100 steps, every run evaluated at both readings, no fixed targets.
TEST(CompareConfigTest, TheQuickstartComparisonIsTheProtocolShrunk) {
  auto quick = load_compare_config(configs_dir + "/compare-quick.yaml", {});
  ASSERT_TRUE(quick) << quick.err().message;
  auto full = load_compare_config(configs_dir + "/equal-compute-general.yaml", {});
  ASSERT_TRUE(full) << full.err().message;
  EXPECT_EQ(quick->strategies, (std::vector<std::string>{"grpo-n4", "ada-seq-balance"}));
  EXPECT_EQ(quick->settings.baseline, "grpo-n4");
  EXPECT_EQ(quick->settings.seeds, (std::vector<uint64_t>{1, 2, 3, 4, 5}));
  EXPECT_EQ(quick->settings.equal_steps, 100u);
  EXPECT_EQ(quick->settings.sample_budget, full->settings.sample_budget);
  EXPECT_LT(quick->settings.target_heldout, 0);
  EXPECT_LT(quick->settings.target_reward, 0);
  const auto& b = quick->base;
  EXPECT_EQ(quick->settings.sample_budget, 100u * b.tracker.prompts_per_step * 4);
  EXPECT_EQ(quick->settings.sample_budget % b.eval.every_samples, 0u);
  EXPECT_EQ(quick->settings.equal_steps % b.eval.every, 0u);
  const auto& qs = quick->settings.select;
  const auto& fs = full->settings.select;
  EXPECT_TRUE(qs.enabled);
  EXPECT_EQ(std::tie(qs.k, qs.min_correct, qs.max_correct, qs.train_pool, qs.held_out_pool),
            std::tie(fs.k, fs.min_correct, fs.max_correct, fs.train_pool, fs.held_out_pool));
  EXPECT_EQ(b.tasks.suite, full->base.tasks.suite);
  EXPECT_EQ(b.tasks.train, full->base.tasks.train);
  EXPECT_EQ(b.tasks.held_out, full->base.tasks.held_out);
  EXPECT_EQ(b.tracker.prompts_per_step, full->base.tracker.prompts_per_step);
  EXPECT_EQ(b.policy.sft_steps, full->base.policy.sft_steps);
  EXPECT_EQ(b.policy.sft_count, full->base.policy.sft_count);
  EXPECT_EQ(b.policy.model.d_model, full->base.policy.model.d_model);
  EXPECT_DOUBLE_EQ(b.learner.optimizer.lr, full->base.learner.optimizer.lr);
  ASSERT_EQ(quick->runs.size(), 10u);
  for (size_t i = 0; i < quick->runs.size(); ++i) {
    const auto& q = quick->runs[i];
    // The same run as the full comparison's arm of that name and seed.
    const auto twin = std::find_if(full->runs.begin(), full->runs.end(), [&](const auto& f) {
      return f.strategy == q.strategy && f.seed == q.seed;
    });
    ASSERT_NE(twin, full->runs.end()) << q.strategy << " seed " << q.seed;
    EXPECT_EQ(q.config.learner.updates_per_step, twin->config.learner.updates_per_step);
    EXPECT_EQ(q.config.tracker.strategy.kind, twin->config.tracker.strategy.kind);
  }
  EXPECT_EQ(quick->runs[5].config.tracker.strategy.kind, strategy_kind::ada_seq);
  EXPECT_EQ(quick->runs[5].config.tracker.strategy.seq.exit, exit_rule::balance);
}

// The equal-compute comparison (issue 36): grpo-n4's samples as the budget, 4 updates
// per step for every arm, a fair selection (64 samples per candidate), the arms fixed.
TEST(CompareConfigTest, TheEqualComputeComparisonReadsAtTheBaselinesBudget) {
  auto c = load_compare_config(configs_dir + "/equal-compute-general.yaml", {});
  ASSERT_TRUE(c) << c.err().message;
  EXPECT_EQ(c->strategies,
            (std::vector<std::string>{"grpo-n4", "grpo-n8", "grpo-n16", "dapo", "greso-n4",
                                      "ada-budget", "ada-budget-knapsack", "ada-budget-weighted",
                                      "ada-seq-balance", "ada-seq-balance-all", "ada-est"}));
  const auto& b = c->base;
  EXPECT_EQ(c->settings.sample_budget, uint64_t(c->settings.equal_steps) * b.tracker.prompts_per_step * 4);
  EXPECT_EQ(c->settings.sample_budget % b.eval.every_samples, 0u);
  EXPECT_EQ(c->settings.select.k, 64u);
  EXPECT_EQ(c->settings.select.min_correct, 4u);
  EXPECT_EQ(c->settings.select.max_correct, 20u);
  for (const auto& r : c->runs) {
    EXPECT_EQ(r.config.learner.updates_per_step, 4u) << r.strategy;
    const auto& st = r.config.tracker.strategy;
    if (st.kind != strategy_kind::ada_budget) continue;
    // The budget-first arms draw at most the baseline's step.
    EXPECT_EQ(st.budget.step_budget(b.tracker.prompts_per_step), 4u * b.tracker.prompts_per_step)
        << r.strategy;
    if (r.strategy == "greso-n4") {
      EXPECT_EQ(st.budget.allocation, allocation_rule::uniform);
      EXPECT_EQ(uint64_t(st.budget.reserve * 4 * b.tracker.prompts_per_step), 0u);
    }
  }
}

// A bad selection window is reported with its key before anything runs.
TEST(CompareConfigTest, ABadSelectionWindowNamesItsKey) {
  auto plan = load_compare_config(configs_dir + "/compare.yaml",
                                  {"compare.select.max_correct=17"});
  ASSERT_FALSE(plan);
  EXPECT_NE(plan.err().message.find("compare.select.max_correct"), std::string::npos)
      << plan.err().message;
  plan = load_compare_config(configs_dir + "/compare.yaml", {"compare.select.min_correct=6"});
  ASSERT_FALSE(plan);
  EXPECT_NE(plan.err().message.find("compare.select.min_correct"), std::string::npos)
      << plan.err().message;
}

TEST(CompareConfigTest, DefaultsToTheSixStrategiesAndAppliesEntryOverrides) {
  const std::string dir = fresh_dir("config");
  auto doc = tiny_document(dir + "/out");
  auto plan = load_compare_config(write_file(dir + "/c.yaml", doc), {});
  ASSERT_TRUE(plan) << plan.err().message;
  ASSERT_EQ(plan->runs.size(), 4u);
  EXPECT_DOUBLE_EQ(plan->runs[2].config.learner.optimizer.lr, 0.003);  // set: of the entry
  EXPECT_DOUBLE_EQ(plan->runs[3].config.learner.optimizer.lr, 0.003);
  EXPECT_NE(plan->runs[0].config.learner.optimizer.lr, 0.003);
  EXPECT_NE(plan->runs[1].config.learner.optimizer.lr, 0.003);
  EXPECT_NE(plan->runs[0].document, plan->runs[1].document);  // seeds differ
  // Without a list: the six defaults.
  auto defaults = load_compare_config(dir + "/c.yaml", {"compare.strategies=null"});
  ASSERT_TRUE(defaults) << defaults.err().message;
  EXPECT_EQ(defaults->strategies.size(), 6u);
  EXPECT_EQ(defaults->strategies.back(), "ada-est");
}

TEST(CompareConfigTest, MoreSeedsOrEntriesLeaveFinishedRunsCurrent) {
  // A run's document decides whether its finished directory is kept: another seed, entry,
  // job count or target must not re-run it; its own settings and the budget must.
  const std::string dir = fresh_dir("document");
  const std::string file = write_file(dir + "/c.yaml", tiny_document(dir + "/out"));
  auto plan = load_compare_config(file, {});
  ASSERT_TRUE(plan) << plan.err().message;
  auto wider = load_compare_config(
      file, {"compare.seeds=[1, 2, 3]", "compare.jobs=2", "compare.target_heldout=0.5",
             "compare.strategies=[{name: grpo-n4, strategy: {kind: grpo, group_size: 4}}, "
             "{name: ada-seq-balance, strategy: {kind: ada-seq, exit: balance}, "
             "set: [learner.lr=0.003]}, {name: dapo, strategy: {kind: dapo}}]"});
  ASSERT_TRUE(wider) << wider.err().message;
  ASSERT_EQ(wider->runs.size(), 9u);
  EXPECT_EQ(wider->runs[0].document, plan->runs[0].document);  // grpo-n4 seed 1
  EXPECT_EQ(wider->runs[4].document, plan->runs[3].document);  // ada-seq-balance seed 2
  auto budget = load_compare_config(file, {"compare.sample_budget=400"});
  ASSERT_TRUE(budget) << budget.err().message;
  EXPECT_NE(budget->runs[0].document, plan->runs[0].document);
  auto lr = load_compare_config(file, {"learner.lr=0.001"});
  ASSERT_TRUE(lr) << lr.err().message;
  EXPECT_NE(lr->runs[0].document, plan->runs[0].document);
}

TEST(CompareConfigTest, AnEntrysStrategyOverrideStaysInThatEntry) {
  // Two entries share one strategy section through a YAML alias; the first changes it
  // with `set`. The second must see the section as written.
  const std::string dir = fresh_dir("alias");
  auto doc = tiny_document(dir + "/out");
  const std::string from = doc.substr(doc.find("  strategies:"));
  doc.replace(doc.find("  strategies:"), from.size(), R"(  strategies:
    - name: tuned
      strategy: &seq {kind: ada-seq, exit: balance, max_rounds: 4}
      set: ["strategy.max_rounds=7"]
    - {name: plain, strategy: *seq}
)");
  auto plan = load_compare_config(write_file(dir + "/c.yaml", doc), {"compare.baseline=plain"});
  ASSERT_TRUE(plan) << plan.err().message;
  ASSERT_EQ(plan->runs.size(), 4u);
  EXPECT_EQ(plan->runs[0].config.tracker.strategy.seq.max_rounds, 7u);
  EXPECT_EQ(plan->runs[1].config.tracker.strategy.seq.max_rounds, 7u);
  EXPECT_EQ(plan->runs[2].config.tracker.strategy.seq.max_rounds, 4u);
  EXPECT_EQ(plan->runs[3].config.tracker.strategy.seq.max_rounds, 4u);
}

TEST(CompareConfigTest, BadEntriesAreReportedWithTheirEntryAndKey) {
  const std::string dir = fresh_dir("bad");
  const std::string file = write_file(dir + "/c.yaml", tiny_document(dir + "/out"));
  auto bad_kind = load_compare_config(
      file, {"compare.strategies=[{name: a, strategy: {kind: nope}}, {name: grpo-n4, "
             "strategy: {kind: grpo}}]"});
  ASSERT_FALSE(bad_kind);
  EXPECT_NE(bad_kind.err().message.find("compare.strategies[0] (a)"), std::string::npos)
      << bad_kind.err().message;
  EXPECT_NE(bad_kind.err().message.find("strategy.kind"), std::string::npos);

  auto duplicate = load_compare_config(
      file, {"compare.strategies=[{name: grpo-n4, strategy: {kind: grpo}}, {name: grpo-n4, "
             "strategy: {kind: dapo}}]"});
  ASSERT_FALSE(duplicate);
  EXPECT_NE(duplicate.err().message.find("duplicate strategy name"), std::string::npos);

  auto baseline = load_compare_config(file, {"compare.baseline=grpo-n16"});
  ASSERT_FALSE(baseline);
  EXPECT_NE(baseline.err().message.find("compare.baseline"), std::string::npos);

  auto budget = load_compare_config(file, {"compare.sample_budget=0"});
  ASSERT_FALSE(budget);
  EXPECT_NE(budget.err().message.find("compare.sample_budget"), std::string::npos);

  auto name = load_compare_config(file, {"compare.strategies=[{name: ../x, strategy: {kind: grpo}}]"});
  ASSERT_FALSE(name);
  EXPECT_NE(name.err().message.find("compare.strategies[0].name"), std::string::npos);

  auto metric = load_compare_config(file, {"compare.heldout_metric=best"});
  ASSERT_FALSE(metric);
  EXPECT_NE(metric.err().message.find("compare.heldout_metric: expected greedy or sampled"),
            std::string::npos)
      << metric.err().message;

  auto unknown = load_compare_config(file, {"compare.jobz=2"});
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.err().message.find("compare.jobz: unknown key"), std::string::npos);

  auto missing = load_compare_config(file, {"compare=null"});
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.err().message.find("compare: expected a mapping"), std::string::npos);
}

// --- compare.json from hand-written run directories ---

// A run directory whose held-out accuracy follows `acc` at versions 0, 1, 2 ... and
// whose steps have `per_step` samples each and real_reward `reward`.
std::string fake_run(const std::string& dir, const std::vector<double>& acc,
                     uint64_t per_step, const std::vector<double>& reward,
                     const std::vector<std::vector<double>>& prompts) {
  std::filesystem::create_directories(dir);
  std::ofstream m(dir + "/metrics.jsonl"), e(dir + "/eval.jsonl");
  for (size_t s = 0; s < reward.size(); ++s) {
    json line{{"step", s},
              {"policy_version", s + 1},
              {"cumulative_samples", per_step * (s + 1)},
              {"cumulative_tokens", 10 * per_step * (s + 1)},
              {"real_reward", reward[s]},
              {"zero_gradient_fraction", 0.5},
              {"samples_per_prompt_mean", 4.0},
              {"samples_by_pass_rate",
               {{"prompts", {1, 0, 0, 0, 0, 0, 0, 0, 0, 1}}, {"samples", {8, 0, 0, 0, 0, 0, 0, 0, 0, 2}}}}};
    m << line.dump() << "\n";
  }
  for (size_t v = 0; v < acc.size(); ++v) {
    json line{{"version", v},
              {"greedy", acc[v]},
              {"sampled", acc[v]},
              {"prompt_greedy", prompts[std::min(v, prompts.size() - 1)]},
              {"prompt_sampled", prompts[std::min(v, prompts.size() - 1)]}};
    e << line.dump() << "\n";
  }
  return dir;
}

compare_run run_at(const std::string& name, uint64_t seed, const std::string& dir) {
  compare_run r;
  r.strategy = name;
  r.seed = seed;
  r.config.out = dir;
  return r;
}

TEST(CompareCollectTest, SamplesToTargetMediansAndRatiosIncludingRunsThatNeverReachIt) {
  const std::string d = fresh_dir("collect");
  // Base per-prompt pass rates (version 0): one prompt per bucket.
  const std::vector<double> base{0.0, 0.1, 0.4, 0.9};
  const std::vector<double> solved{1.0, 0.0, 1.0, 1.0};
  // Baseline: 100 samples a step; accuracy reaches 0.5 at version 3 (300 samples) and
  // version 2 (200) in the two seeds.
  std::vector<compare_run> runs{
      run_at("base", 1, fake_run(d + "/b1", {0.2, 0.3, 0.4, 0.5}, 100, {0.1, 0.2, 0.6}, {base, solved})),
      run_at("base", 2, fake_run(d + "/b2", {0.2, 0.4, 0.5, 0.5}, 100, {0.1, 0.1, 0.1}, {base, solved})),
      // Fast: 50 samples a step, reaches 0.5 at version 2 (100) and 3 (150).
      run_at("fast", 1, fake_run(d + "/f1", {0.2, 0.4, 0.5, 0.6}, 50, {0.7, 0.7, 0.7}, {base, solved})),
      run_at("fast", 2, fake_run(d + "/f2", {0.2, 0.3, 0.4, 0.5}, 50, {0.7, 0.7, 0.7}, {base, solved})),
      // Never reaches 0.5.
      run_at("never", 1, fake_run(d + "/n1", {0.2, 0.2, 0.3, 0.3}, 100, {0.0, 0.0, 0.0}, {base})),
      run_at("never", 2, fake_run(d + "/n2", {0.2, 0.2, 0.3, 0.4}, 100, {0.0, 0.0, 0.0}, {base})),
  };
  compare_settings s;
  s.baseline = "base";
  s.sample_budget = 300;
  s.target_heldout = 0.5;
  s.target_reward = 0.5;
  s.smooth = 1;
  auto c = collect_compare(s, {"base", "fast", "never"}, runs);
  ASSERT_TRUE(c) << c.err().message;
  const json& base_s = (*c)["strategies"][0];
  const json& fast_s = (*c)["strategies"][1];
  const json& never_s = (*c)["strategies"][2];
  EXPECT_EQ(base_s["runs"][0]["samples_to_heldout"], 300.0);
  EXPECT_EQ(base_s["runs"][1]["samples_to_heldout"], 200.0);
  EXPECT_EQ(base_s["runs"][0]["tokens_to_heldout"], 3000.0);
  EXPECT_EQ(base_s["summary"]["samples_to_heldout"]["median"], 250.0);
  EXPECT_EQ(fast_s["summary"]["samples_to_heldout"]["median"], 125.0);
  EXPECT_EQ(fast_s["summary"]["ratio_heldout_samples"], 2.0);
  EXPECT_EQ(base_s["summary"]["ratio_heldout_samples"], 1.0);
  EXPECT_TRUE(never_s["summary"]["samples_to_heldout"]["median"].is_null());
  EXPECT_EQ(never_s["summary"]["samples_to_heldout"]["reached"], 0);
  EXPECT_TRUE(never_s["summary"]["ratio_heldout_samples"].is_null());
  // real_reward: the baseline's seed 1 reaches 0.5 at its third step (300 samples); seed
  // 2 never does, so the median of two is unknown, and so is every ratio against it.
  EXPECT_EQ(base_s["runs"][0]["samples_to_reward"], 300.0);
  EXPECT_TRUE(base_s["runs"][1]["samples_to_reward"].is_null());
  EXPECT_TRUE(base_s["summary"]["samples_to_reward"]["median"].is_null());
  EXPECT_EQ(base_s["summary"]["samples_to_reward"]["min"], 300.0);
  EXPECT_EQ(fast_s["summary"]["samples_to_reward"]["median"], 50.0);
  EXPECT_TRUE(fast_s["summary"]["ratio_reward_samples"].is_null());
  // Buckets from the base pass rates, final accuracy per bucket from the last eval.
  EXPECT_EQ((*c)["buckets"]["prompts"], (std::vector<uint32_t>{1, 1, 1, 1}));
  EXPECT_EQ(fast_s["runs"][0]["bucket_accuracy"], json({1.0, 0.0, 1.0, 1.0}));
  EXPECT_EQ(never_s["runs"][0]["bucket_accuracy"], json({0.0, 0.1, 0.4, 0.9}));
  EXPECT_EQ(fast_s["summary"]["final_accuracy"]["median"], 0.55);
  // Samples by estimated pass rate summed over steps.
  EXPECT_EQ(fast_s["runs"][0]["pass_rate_bins"]["samples"][0], 24u);
  EXPECT_EQ(fast_s["runs"][0]["pass_rate_bins"]["prompts"][9], 3u);
  // The text table carries the same numbers.
  const std::string table = compare_table(*c);
  EXPECT_NE(table.find("125 [100, 150] 2/2"), std::string::npos) << table;
  EXPECT_NE(table.find("never (0/2)"), std::string::npos) << table;
  EXPECT_NE(table.find("2.00"), std::string::npos) << table;
}

// A run of 4 steps of `per_step` samples and `seconds` seconds each, evaluated at
// versions 0, 2 and 4 with `acc`; each step has `fallbacks` never-exited prompts (all of
// which drew the step's most samples per prompt, 32) and `zero` of its prompts without
// learning signal.
std::string axis_run(const std::string& dir, uint64_t per_step, double seconds,
                     const std::vector<double>& acc, int fallbacks, double zero = 0.5) {
  std::filesystem::create_directories(dir);
  std::ofstream m(dir + "/metrics.jsonl"), e(dir + "/eval.jsonl");
  for (uint64_t s = 0; s < 4; ++s)
    m << json{{"step", s},
              {"policy_version", s + 1},
              {"cumulative_samples", per_step * (s + 1)},
              {"cumulative_tokens", 10 * per_step * (s + 1)},
              {"elapsed", seconds * double(s + 1)},
              {"real_reward", 0.1 * double(s + 1)},
              {"zero_gradient_fraction", s < 2 ? zero : 1.0},
              {"samples_per_prompt_mean", 4.0},
              {"samples_per_prompt_max", 32},
              {"exits", {{"fallback_missing_positives", fallbacks},
                         {"fallback_missing_negatives", 0}}}}
                .dump()
         << "\n";
  for (size_t k = 0; k < acc.size(); ++k)
    e << json{{"version", 2 * k}, {"greedy", acc[k]}, {"prompt_greedy", {acc[k]}}}.dump() << "\n";
  return dir;
}

// Settings that read runs against "ref" at `budget` samples and `equal_steps` steps,
// without targets.
compare_settings against_ref(uint64_t budget, uint64_t equal_steps) {
  compare_settings s;
  s.baseline = "ref";
  s.sample_budget = budget;
  s.equal_steps = equal_steps;
  s.target_heldout = -1;
  s.target_reward = -1;
  s.smooth = 1;
  return s;
}

// Steps, samples, tokens and seconds to a target; held-out accuracy at equal steps and
// at equal samples; paired differences over five seeds against the baseline with the
// t-interval computed by hand; the mean under the curve; the fallback share.
TEST(CompareCollectTest, EqualStepsAndEqualSamplesArePairedBySeed) {
  const std::string d = fresh_dir("paired");
  std::vector<compare_run> runs;
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    const double up = 0.01 * double(seed);  // seq - ref at version 2: 0.01 .. 0.05
    runs.push_back(run_at("ref", seed, axis_run(d + "/r" + std::to_string(seed), 100, 1.0,
                                                 {0.2, 0.3, 0.5}, 0)));
    runs.push_back(run_at("seq", seed, axis_run(d + "/s" + std::to_string(seed), 300, 2.0,
                                                 {0.2, 0.3 + up, 0.6}, 1, 0.1)));
  }
  compare_settings s;
  s.baseline = "ref";
  s.sample_budget = 300;
  s.equal_steps = 2;
  s.target_heldout = 0.3;
  s.target_reward = -1;
  s.smooth = 1;
  auto c = collect_compare(s, {"ref", "seq"}, runs);
  ASSERT_TRUE(c) << c.err().message;
  const json& ref = (*c)["strategies"][0];
  const json& seq = (*c)["strategies"][1];
  const json& r1 = ref["runs"][0];
  EXPECT_EQ(r1["steps_to_heldout"], 2.0);
  EXPECT_EQ(r1["samples_to_heldout"], 200.0);
  EXPECT_EQ(r1["tokens_to_heldout"], 2000.0);
  EXPECT_EQ(r1["seconds_to_heldout"], 2.0);
  EXPECT_EQ(seq["runs"][0]["samples_to_heldout"], 600.0);
  EXPECT_EQ(seq["runs"][0]["seconds_to_heldout"], 4.0);
  EXPECT_EQ(seq["summary"]["ratio_heldout_steps"], 1.0);
  EXPECT_NEAR(seq["summary"]["ratio_heldout_samples"].get<double>(), 200.0 / 600.0, 1e-12);
  // Equal steps (2): version 2 for both. Equal samples (300): ref's first evaluation at
  // or after 300 samples is version 4 (400 samples), seq's version 2 (600).
  EXPECT_EQ(r1["heldout_at_steps"], 0.3);
  EXPECT_EQ(r1["heldout_at_samples"], 0.5);
  EXPECT_NEAR(seq["runs"][0]["heldout_at_samples"].get<double>(), 0.31, 1e-12);
  const json& p = seq["summary"]["paired_heldout_at_steps"];
  EXPECT_EQ(p["n"], 5);
  EXPECT_NEAR(p["mean"].get<double>(), 0.03, 1e-12);
  EXPECT_NEAR(p["low"].get<double>(), 0.03 - 0.019632, 1e-5);
  EXPECT_NEAR(p["high"].get<double>(), 0.03 + 0.019632, 1e-5);
  EXPECT_NEAR(p["differences"][4].get<double>(), 0.05, 1e-12);
  // At equal samples seq (0.31..0.35) is below ref (0.5): -0.17 on average.
  EXPECT_NEAR(seq["summary"]["paired_heldout_at_samples"]["mean"].get<double>(), -0.17, 1e-12);
  EXPECT_EQ(ref["summary"]["paired_heldout_at_steps"]["mean"], 0.0);
  // Mean held-out accuracy over steps 0..2: (0.2 + 0.3) / 2 for ref.
  EXPECT_NEAR(r1["auc_steps"].get<double>(), 0.25, 1e-12);
  // Over samples 0..300, ref: 0.2 -> 0.3 at 200, then 0.3 -> 0.5 at 400 cut at 300 (0.4).
  EXPECT_NEAR(r1["auc_samples"].get<double>(), (200 * 0.25 + 100 * 0.35) / 300.0, 1e-12);
  // One fallback prompt of 32 samples in each step of 300.
  EXPECT_NEAR(seq["runs"][0]["fallback_share"].get<double>(), 32.0 / 300.0, 1e-12);
  EXPECT_EQ(r1["fallback_share"], 0.0);
  const std::string table = compare_table(*c);
  EXPECT_NE(table.find("equal steps (2)"), std::string::npos) << table;
  EXPECT_NE(table.find("+0.030 [+0.010, +0.050]"), std::string::npos) << table;
  EXPECT_NE(table.find("equal samples (300)"), std::string::npos) << table;
  // No learning signal: the mean over the steps to the equal-steps reading (versions 1
  // and 2; the later steps' 1.0 is not counted).
  EXPECT_NEAR(seq["runs"][0]["zero_gradient_share"].get<double>(), 0.1, 1e-12);
  EXPECT_NEAR(ref["summary"]["zero_gradient_share"]["mean"].get<double>(), 0.5, 1e-12);
  // The closing sentence: the base and the baseline at step 2, then seq against it (its
  // mean, the paired interval above 0, 600 / 200 samples at step 2, the signal shares)
  // and at equal samples (below).
  EXPECT_EQ(compare_verdict(*c, "OUT/report.html"),
            "In short (5 paired seeds, 95% intervals): held-out accuracy went from 0.200 (the "
            "base model) to 0.300 with ref at step 2; seq against it: 0.330 at step 2, +0.030 "
            "[+0.010, +0.050] (above) with 3.0x the samples, no learning signal on 10% of its "
            "prompts against 50%; at 300 samples -0.170 [-0.190, -0.150] (below).\n"
            "The report: OUT/report.html\n");
  // The page draws it, with the four axes.
  const std::string html = report_html(*c);
  EXPECT_NE(html.find("<table id=\"paired\">"), std::string::npos);
  EXPECT_NE(html.find("<table id=\"targets\">"), std::string::npos);
  EXPECT_NE(html.find("id=\"x-steps\" checked>"), std::string::npos);
}

// A committed compare.json comes from its shipped config: the same strategies, seeds,
// step cap and budget, and every run reached the step cap (the equal-steps table has
// all seeds).
void expect_results_of_config(const std::string& config, const std::string& results) {
  SCOPED_TRACE(results);
  auto plan = load_compare_config(configs_dir + "/" + config, {});
  ASSERT_TRUE(plan) << plan.err().message;
  std::ifstream f(std::string(ADARL_SOURCE_DIR) + "/" + results);
  ASSERT_TRUE(f) << results << " is missing";
  const json c = json::parse(f);
  EXPECT_EQ(c["equal_steps"], plan->settings.equal_steps);
  EXPECT_EQ(c["budget_samples"], plan->settings.sample_budget);
  EXPECT_EQ(c["baseline"], plan->settings.baseline);
  const auto target = [](double t) { return t >= 0 ? json(t) : json(nullptr); };  // -1: none
  EXPECT_EQ(c["targets"]["heldout"], target(plan->settings.target_heldout));
  EXPECT_EQ(c["targets"]["real_reward"], target(plan->settings.target_reward));
  ASSERT_EQ(c["strategies"].size(), plan->strategies.size());
  for (size_t i = 0; i < plan->strategies.size(); ++i) {
    const json& st = c["strategies"][i];
    EXPECT_EQ(st["name"], plan->strategies[i]);
    ASSERT_EQ(st["runs"].size(), plan->settings.seeds.size()) << plan->strategies[i];
    EXPECT_EQ(st["summary"]["paired_heldout_at_steps"]["n"], plan->settings.seeds.size())
        << plan->strategies[i] << ": a run stopped before the step cap";
    for (const auto& r : st["runs"])
      EXPECT_GE(r["steps_trained"].get<uint64_t>(), plan->settings.equal_steps)
          << plan->strategies[i] << " seed " << r["seed"];
  }
}

// docs/results/compare.json: the README's headline tables.
TEST(CompareConfigTest, TheCommittedResultsComeFromTheShippedConfig) {
  expect_results_of_config("compare.yaml", "docs/results/compare.json");
}

// docs/results/compare-quick.json: what the README says the first command shows.
TEST(CompareConfigTest, TheCommittedQuickstartComesFromItsConfig) {
  expect_results_of_config("compare-quick.yaml", "docs/results/compare-quick.json");
}

// docs/results/ablation.json: docs/results/ablation.md and the README's ablation lines;
// docs/results/ablation-math.json: the math rows of docs/results/compare-suites.md.
TEST(CompareConfigTest, TheCommittedAblationComesFromItsConfig) {
  expect_results_of_config("ablation.yaml", "docs/results/ablation.json");
  expect_results_of_config("ablation-math.yaml", "docs/results/ablation-math.json");
}

// docs/results/compare-<suite>.json: the three suites' tables (docs/results/compare-suites.md
// and the README).
TEST(CompareConfigTest, TheCommittedSuiteResultsComeFromTheirConfigs) {
  for (const std::string suite : {"general", "math", "code"})
    expect_results_of_config("compare-" + suite + ".yaml",
                             "docs/results/compare-" + suite + ".json");
}

// docs/results/equal-compute-<suite>.json: the equal-compute tables (issue 36;
// docs/results/equal-compute.md and the README); -posthoc: arms added after them.
TEST(CompareConfigTest, TheCommittedEqualComputeResultsComeFromTheirConfigs) {
  expect_results_of_config("equal-compute-general.yaml", "docs/results/equal-compute-general.json");
  expect_results_of_config("equal-compute-math.yaml", "docs/results/equal-compute-math.json");
  expect_results_of_config("equal-compute-reasoning.yaml",
                           "docs/results/equal-compute-reasoning.json");
  expect_results_of_config("equal-compute-general-posthoc.yaml",
                           "docs/results/equal-compute-general-posthoc.json");
  expect_results_of_config("equal-compute-math-posthoc.yaml",
                           "docs/results/equal-compute-math-posthoc.json");
}

// How soon each run reaches the baseline's held-out accuracy at the step cap, seed by
// seed (issue 16's reading): the first evaluation at or before the cap at or above it.
TEST(CompareCollectTest, StepsToTheReferencesAccuracyAtTheCapArePairedBySeed) {
  const std::string d = fresh_dir("reach_ref");
  std::vector<compare_run> runs;
  // ref (100 samples, 1 s a step) is at 0.5 at step 4 in every seed.
  for (uint64_t seed = 1; seed <= 3; ++seed)
    runs.push_back(run_at("ref", seed, axis_run(d + "/r" + std::to_string(seed), 100, 1.0,
                                                 {0.2, 0.3, 0.5}, 0)));
  // seq (300 samples, 2 s a step): seed 1 passes 0.5 at step 2, seed 2 never by step 4,
  // seed 3 equals it at step 2 (equal counts), seed 4 has no reference run.
  const std::vector<std::vector<double>> seq_acc = {
      {0.2, 0.55, 0.6}, {0.2, 0.3, 0.4}, {0.2, 0.5, 0.7}, {0.9, 0.9, 0.9}};
  for (uint64_t seed = 1; seed <= 4; ++seed)
    runs.push_back(run_at("seq", seed, axis_run(d + "/s" + std::to_string(seed), 300, 2.0,
                                                 seq_acc[seed - 1], 0)));
  const compare_settings s = against_ref(300, 4);
  auto c = collect_compare(s, {"ref", "seq"}, runs);
  ASSERT_TRUE(c) << c.err().message;
  const json& ref = (*c)["strategies"][0];
  const json& seq = (*c)["strategies"][1];
  const json& s1 = seq["runs"][0]["reach_reference"];
  EXPECT_EQ(s1["goal"], 0.5);
  EXPECT_EQ(s1["step"], 2.0);
  EXPECT_EQ(s1["fraction"], 0.5);
  EXPECT_EQ(s1["samples_ratio"], 600.0 / 400.0);  // 600 samples at step 2, ref 400 at 4
  EXPECT_EQ(s1["seconds_ratio"], 1.0);            // 4 s against 4 s
  EXPECT_TRUE(seq["runs"][1]["reach_reference"]["step"].is_null());
  EXPECT_TRUE(seq["runs"][1]["reach_reference"]["fraction"].is_null());
  EXPECT_EQ(seq["runs"][2]["reach_reference"]["step"], 2.0);
  EXPECT_TRUE(seq["runs"][3]["reach_reference"].is_null());
  // The reference itself gets there at the cap (0.3 at step 2 is below 0.5).
  EXPECT_EQ(ref["runs"][0]["reach_reference"]["fraction"], 1.0);
  EXPECT_EQ(ref["summary"]["reach_reference_fraction"]["median"], 1.0);
  // Over the three paired seeds: 0.5, never, 0.5: median 0.5, max never, 2 of 3.
  const json& f = seq["summary"]["reach_reference_fraction"];
  EXPECT_EQ(f["median"], 0.5);
  EXPECT_EQ(f["min"], 0.5);
  EXPECT_TRUE(f["max"].is_null());
  EXPECT_EQ(f["reached"], 2);
  EXPECT_EQ(f["runs"], 3);
  EXPECT_EQ(seq["summary"]["reach_reference_seconds_ratio"]["median"], 1.0);
  const std::string table = compare_table(*c);
  EXPECT_NE(table.find("0.50 [0.50, never] 2/3"), std::string::npos) << table;
  const std::string html = report_html(*c);
  EXPECT_NE(html.find("seq.reach_reference_fraction.median"), std::string::npos);
}

// A run that trained fewer steps than the step cap has no value at equal steps.
// The closing sentence with several strategies (one line each) and with one seed.
TEST(CompareCollectTest, TheClosingSentenceSaysWhereEachIntervalPutsAStrategy) {
  const std::string d = fresh_dir("verdict");
  std::vector<compare_run> runs;
  for (uint64_t seed = 1; seed <= 2; ++seed) {
    const std::string k = std::to_string(seed);
    runs.push_back(run_at("ref", seed, axis_run(d + "/r" + k, 100, 1.0, {0.2, 0.3, 0.5}, 0)));
    // a: +0.02 then +0.00 at step 2 (within noise); b: -0.05 twice (below).
    runs.push_back(run_at("a", seed, axis_run(d + "/a" + k, 100, 1.0,
                                               {0.2, seed == 1 ? 0.32 : 0.3, 0.5}, 0)));
    runs.push_back(run_at("b", seed, axis_run(d + "/b" + k, 100, 1.0, {0.2, 0.25, 0.5}, 0)));
  }
  const auto verdict = [&](const std::vector<std::string>& strategies) {
    auto c = collect_compare(against_ref(300, 2), strategies, runs);
    EXPECT_TRUE(c) << c.err().message;
    return c ? compare_verdict(*c, "R") : std::string();
  };
  EXPECT_EQ(verdict({"ref", "a", "b"}),
            "In short (2 paired seeds, 95% intervals): held-out accuracy went from 0.200 (the "
            "base model) to 0.300 with ref at step 2. Against ref on the same seeds:\n"
            "  a: 0.310 at step 2, +0.010 [-0.117, +0.137] (within noise) with 1.0x the "
            "samples, no learning signal on 50% of its prompts against 50%; at 300 samples "
            "+0.000 [+0.000, +0.000] (within noise)\n"
            "  b: 0.250 at step 2, -0.050 [-0.050, -0.050] (below) with 1.0x the samples, no "
            "learning signal on 50% of its prompts against 50%; at 300 samples +0.000 "
            "[+0.000, +0.000] (within noise)\n"
            "The report: R\n");
  // One seed: the difference without an interval, said.
  runs.erase(std::remove_if(runs.begin(), runs.end(),
                            [](const compare_run& r) { return r.seed == 2 || r.strategy == "b"; }),
             runs.end());
  EXPECT_EQ(verdict({"ref", "a"}),
            "In short (1 seed): held-out accuracy went from 0.200 (the base model) to 0.300 "
            "with ref at step 2; a against it: 0.320 at step 2, +0.020 (one seed: no "
            "interval) with 1.0x the samples, no learning signal on 50% of its prompts "
            "against 50%; at 300 samples +0.000 (one seed: no interval).\n"
            "The report: R\n");
}

TEST(CompareCollectTest, ARunShorterThanTheStepCapHasNoEqualStepsValue) {
  const std::string d = fresh_dir("short");
  compare_settings s;
  s.sample_budget = 300;
  s.equal_steps = 5;  // the run has 4 steps
  auto r = collect_run(axis_run(d + "/r", 100, 1.0, {0.2, 0.3, 0.5}, 0), s);
  ASSERT_TRUE(r) << r.err().message;
  EXPECT_TRUE((*r)["heldout_at_steps"].is_null());
  EXPECT_TRUE((*r)["auc_steps"].is_null());
  EXPECT_EQ((*r)["heldout_at_samples"], 0.5);
}

// pass@k beside mean@k: the share of held-out prompts with a rewarded sample, at each
// evaluation and at each reading (issue 36); greedy evaluations have none.
TEST(CompareCollectTest, PassAtKIsTheShareOfPromptsWithARewardedSample) {
  const std::string d = fresh_dir("pass_at_k");
  const std::string dir = d + "/r";
  std::filesystem::create_directories(dir);
  {
    std::ofstream m(dir + "/metrics.jsonl"), e(dir + "/eval.jsonl");
    for (int s = 0; s < 2; ++s)
      m << json{{"step", s}, {"policy_version", s + 1}, {"cumulative_samples", 100 * (s + 1)},
                {"cumulative_tokens", 1000}, {"elapsed", 1.0}, {"real_reward", 0.5}}.dump()
        << "\n";
    // Version 0: one prompt of four with a right sample; 1: two; 2: three (mean@k 0.25).
    e << json{{"version", 0}, {"sampled", 0.0625}, {"prompt_sampled", {0.25, 0, 0, 0}}}.dump()
      << "\n";
    e << json{{"version", 1}, {"sampled", 0.125}, {"prompt_sampled", {0.25, 0.25, 0, 0}}}.dump()
      << "\n";
    e << json{{"version", 2}, {"sampled", 0.25}, {"prompt_sampled", {0.5, 0.25, 0.25, 0}}}.dump()
      << "\n";
  }
  compare_settings s;
  s.heldout_metric = "sampled";
  s.sample_budget = 100;  // version 1
  s.equal_steps = 2;      // version 2
  auto r = collect_run(dir, s);
  ASSERT_TRUE(r) << r.err().message;
  EXPECT_DOUBLE_EQ((*r)["pass_at_k_at_samples"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ((*r)["pass_at_k_at_steps"].get<double>(), 0.75);
  EXPECT_DOUBLE_EQ((*r)["pass_at_k_final"].get<double>(), 0.75);
  EXPECT_DOUBLE_EQ((*r)["evals"][0]["pass_at_k"].get<double>(), 0.25);
  // A greedy-only evaluation has no pass@k.
  const std::string g = d + "/greedy";
  std::filesystem::create_directories(g);
  std::filesystem::copy_file(dir + "/metrics.jsonl", g + "/metrics.jsonl");
  {
    std::ofstream e(g + "/eval.jsonl");
    for (int v = 0; v <= 2; ++v)
      e << json{{"version", v}, {"greedy", 0.5}, {"prompt_greedy", {1, 0}}}.dump() << "\n";
  }
  s.heldout_metric = "greedy";
  auto gr = collect_run(g, s);
  ASSERT_TRUE(gr) << gr.err().message;
  EXPECT_TRUE((*gr)["pass_at_k_final"].is_null());
  EXPECT_TRUE((*gr)["evals"][0]["pass_at_k"].is_null());
}

// What the visits spent (issue 36): the share of drawn visits whose pool was mixed, of
// visits skipped, and of samples on pools that came back all wrong or all right; null
// for runs whose lines do not record visits.
TEST(CompareCollectTest, VisitsAreSummarisedByWhatTheirPoolsReturned) {
  const std::string d = fresh_dir("visits");
  const auto run_dir = [&](const std::string& name, bool with_visits) {
    const std::string dir = d + "/" + name;
    std::filesystem::create_directories(dir);
    std::ofstream m(dir + "/metrics.jsonl"), e(dir + "/eval.jsonl");
    for (int s = 0; s < 2; ++s) {
      json line{{"step", s}, {"policy_version", s + 1}, {"cumulative_samples", 12 * (s + 1)},
                {"cumulative_tokens", 100}, {"elapsed", 1.0}, {"real_reward", 0.5}};
      // Step 0: a mixed pool of 4, an all-wrong one of 4, a skip; step 1: all right (4).
      if (with_visits)
        line["visits"] = s == 0 ? json{{"prompt", {1, 2, 3}},
                                       {"predicted", {0.5, nullptr, 0.01}},
                                       {"samples", {4, 4, 0}},
                                       {"positives", {2, 0, 0}},
                                       {"exit", {"allocated", "allocated", "skipped"}}}
                                : json{{"prompt", {4}}, {"predicted", {0.9}}, {"samples", {4}},
                                       {"positives", {4}}, {"exit", {"allocated"}}};
      m << line.dump() << "\n";
    }
    for (int v = 0; v <= 2; ++v)
      e << json{{"version", v}, {"sampled", 0.5}, {"prompt_sampled", {0.5}}}.dump() << "\n";
    return dir;
  };
  compare_settings s;
  s.heldout_metric = "sampled";
  s.sample_budget = 12;
  auto r = collect_run(run_dir("with", true), s);
  ASSERT_TRUE(r) << r.err().message;
  EXPECT_DOUBLE_EQ((*r)["visit_mixed_share"].get<double>(), 1.0 / 3);
  EXPECT_DOUBLE_EQ((*r)["visit_skipped_share"].get<double>(), 0.25);
  EXPECT_DOUBLE_EQ((*r)["samples_all_wrong_share"].get<double>(), 4.0 / 12);
  EXPECT_DOUBLE_EQ((*r)["samples_all_right_share"].get<double>(), 4.0 / 12);
  auto old = collect_run(run_dir("without", false), s);
  ASSERT_TRUE(old) << old.err().message;
  EXPECT_TRUE((*old)["visit_mixed_share"].is_null());
  EXPECT_TRUE((*old)["samples_all_wrong_share"].is_null());
}

// Each reading says how many optimizer updates it stands on (learner.updates_per_step),
// and the run keeps the means of its learner diagnostics (issue 36).
TEST(CompareCollectTest, ReadingsCountTheirOptimizerUpdatesAndDiagnosticsAreKept) {
  const std::string d = fresh_dir("updates");
  const auto run_dir = [&](const std::string& name, bool legacy) {
    const std::string dir = d + "/" + name;
    std::filesystem::create_directories(dir);
    std::ofstream m(dir + "/metrics.jsonl"), e(dir + "/eval.jsonl");
    for (int s = 0; s < 4; ++s) {
      json line{{"step", s},
                {"policy_version", s + 1},
                {"cumulative_samples", 100 * (s + 1)},
                {"cumulative_tokens", 1000 * (s + 1)},
                {"elapsed", 2.0 * (s + 1)},
                {"real_reward", 0.5},
                {"zero_gradient_fraction", 0.5},
                {"trained_samples", 100},
                {"grad_norm", double(s + 1)},
                {"clip_fraction", 0.1},
                {"lag_mean", 0.5}};
      if (!legacy) line["updates"] = 4;
      m << line.dump() << "\n";
    }
    for (int v = 0; v <= 4; ++v)
      e << json{{"version", v}, {"sampled", 0.1 * v}, {"prompt_sampled", {0.0}}}.dump() << "\n";
    return dir;
  };
  compare_settings s;
  s.heldout_metric = "sampled";
  s.baseline = "b";
  s.sample_budget = 200;  // the evaluation at version 2 (200 samples, 2 steps)
  s.equal_steps = 3;      // the evaluation at version 3
  auto r = collect_run(run_dir("new", false), s);
  ASSERT_TRUE(r) << r.err().message;
  EXPECT_EQ((*r)["updates_at_samples"], 8.0);
  EXPECT_EQ((*r)["updates_at_steps"], 12.0);
  EXPECT_DOUBLE_EQ((*r)["mean_grad_norm"].get<double>(), 2.5);
  EXPECT_DOUBLE_EQ((*r)["mean_updates"].get<double>(), 4.0);
  EXPECT_DOUBLE_EQ((*r)["seconds_per_step"].get<double>(), 2.0);
  EXPECT_TRUE((*r)["mean_entropy"].is_null());  // no line has it
  // Lines written before "updates" count one update per trained step.
  auto old = collect_run(run_dir("old", true), s);
  ASSERT_TRUE(old) << old.err().message;
  EXPECT_EQ((*old)["updates_at_samples"], 2.0);
  // The table and the closing sentence state them.
  auto c = collect_compare(s, {"a", "b"},
                           {run_at("a", 1, d + "/new"), run_at("b", 1, d + "/old")});
  ASSERT_TRUE(c) << c.err().message;
  const std::string table = compare_table(*c);
  EXPECT_NE(table.find("updates"), std::string::npos) << table;
  const std::string verdict = compare_verdict(*c, "report.html");
  EXPECT_NE(verdict.find("after 8 optimizer updates against 2"), std::string::npos) << verdict;
}

TEST(CompareCollectTest, AMissingOrMalformedRunFileIsAnErrorNamingIt) {
  const std::string d = fresh_dir("collect_bad");
  compare_settings s;
  fake_run(d + "/greedy_only", {0.1}, 10, {0.1}, {{0.0}});
  {
    std::ofstream e(d + "/greedy_only/eval.jsonl");
    e << R"({"version": 0, "greedy": 0.1, "prompt_greedy": [0.0]})" << "\n";
  }
  s.heldout_metric = "sampled";
  auto no_sampled = collect_run(d + "/greedy_only", s);
  ASSERT_FALSE(no_sampled);
  EXPECT_NE(no_sampled.err().message.find("no sampled accuracy"), std::string::npos);
  s.heldout_metric = "greedy";
  auto missing = collect_run(d + "/nothing", s);
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.err().message.find("nothing/metrics.jsonl"), std::string::npos);
  fake_run(d + "/r", {0.1}, 10, {0.1, 0.2}, {{0.0}});
  { std::ofstream(d + "/r/metrics.jsonl", std::ios::app) << "{oops\n" << R"({"step": 2})" << "\n"; }
  auto bad = collect_run(d + "/r", s);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.err().message.find("metrics.jsonl:3"), std::string::npos) << bad.err().message;
  // A torn last line (a run still writing it) is left out, not an error.
  fake_run(d + "/torn", {0.1}, 10, {0.1, 0.2}, {{0.0}});
  { std::ofstream(d + "/torn/metrics.jsonl", std::ios::app) << R"({"step": 2, "real_rew)"; }
  auto torn = collect_run(d + "/torn", s);
  ASSERT_TRUE(torn) << torn.err().message;
  auto whole = collect_run(fake_run(d + "/whole", {0.1}, 10, {0.1, 0.2}, {{0.0}}), s);
  ASSERT_TRUE(whole) << whole.err().message;
  torn->erase("dir");
  whole->erase("dir");
  EXPECT_EQ(torn->dump(), whole->dump());
}

TEST(CompareCollectTest, EvaluationsWrittenOutOfOrderAreReadByVersion) {
  // The evaluator writes an evaluation when it completes; a later version's can come first.
  const std::string d = fresh_dir("collect_order");
  compare_settings s;
  s.target_heldout = 0.25;
  const std::vector<std::vector<double>> prompts{{0.0, 1.0}, {1.0, 1.0}};
  auto in_order = collect_run(fake_run(d + "/a", {0.2, 0.3, 0.4}, 10, {0.1, 0.2}, prompts), s);
  ASSERT_TRUE(in_order) << in_order.err().message;
  const std::string shuffled = fake_run(d + "/b", {0.2, 0.3, 0.4}, 10, {0.1, 0.2}, prompts);
  std::vector<std::string> lines;
  {
    std::ifstream in(shuffled + "/eval.jsonl");
    for (std::string l; std::getline(in, l);) lines.push_back(l);
  }
  ASSERT_EQ(lines.size(), 3u);
  {
    std::ofstream out(shuffled + "/eval.jsonl");
    out << lines[2] << "\n" << lines[0] << "\n" << lines[1] << "\n";
  }
  auto out_of_order = collect_run(shuffled, s);
  ASSERT_TRUE(out_of_order) << out_of_order.err().message;
  EXPECT_EQ((*out_of_order)["samples_to_heldout"], 10.0);  // version 1, not the first line
  EXPECT_EQ((*out_of_order)["base_version"], 0.0);
  EXPECT_EQ((*out_of_order)["final_version"], 2.0);
  EXPECT_EQ((*out_of_order)["prompt_base"], json({0.0, 1.0}));
  in_order->erase("dir");
  out_of_order->erase("dir");
  EXPECT_EQ(in_order->dump(), out_of_order->dump());
}

// Issue 38: the seeds a comparison's tables stand on; 0 makes `adarl compare` exit 1
// (it printed "In short (0 paired seeds)" and exited 0).
TEST(CompareResultsTest, PairedSeedsIsTheSmallestPairCountBesideTheBaseline) {
  auto pairs = [](int steps, int samples) {
    return json{{"paired_heldout_at_steps", {{"n", steps}}},
                {"paired_heldout_at_samples", {{"n", samples}}}};
  };
  json c{{"baseline", "grpo-n4"},
         {"strategies",
          {{{"name", "grpo-n4"}, {"summary", pairs(0, 0)}},
           {{"name", "seq"}, {"summary", pairs(5, 4)}},
           {{"name", "est"}, {"summary", pairs(5, 5)}}}}};
  EXPECT_EQ(paired_seeds(c), 4u);
  c["strategies"][2]["summary"] = pairs(0, 5);
  EXPECT_EQ(paired_seeds(c), 0u);
}

// --- a tiny comparison end to end on the simulated policy ---

TEST(CompareRunTest, TinyComparisonRunsEveryRunToTheBudgetAndReportsIt) {
  const std::string dir = fresh_dir("tiny");
  const std::string file = write_file(dir + "/c.yaml", tiny_document(dir + "/out"));
  auto plan = load_compare_config(file, {});
  ASSERT_TRUE(plan) << plan.err().message;
  auto prompts = load_run_prompts(plan->base);
  ASSERT_TRUE(prompts) << prompts.err().message;
  engines_for_run engines = [&](const pipeline_config& c) -> result<engine_factories> {
    return sim_factories(c, *prompts);
  };
  std::ostringstream log;
  auto outcome = run_compare(*plan, *prompts, engines, nullptr, log);
  EXPECT_EQ(outcome.ran, 4u) << log.str();
  EXPECT_TRUE(outcome.failed.empty()) << log.str();
  auto c = collect_compare(plan->settings, plan->strategies, plan->runs);
  ASSERT_TRUE(c) << c.err().message;
  ASSERT_EQ((*c)["strategies"].size(), 2u);
  for (const auto& st : (*c)["strategies"]) {
    ASSERT_EQ(st["runs"].size(), 2u);
    for (const auto& r : st["runs"]) {
      // Every run stops at the first step at or past the budget.
      const double total = r["cumulative_samples"];
      EXPECT_GE(total, 200.0);
      const auto& steps = r["steps"];
      ASSERT_GE(steps.size(), 1u);
      if (steps.size() > 1) {
        EXPECT_LT(steps[steps.size() - 2]["cumulative_samples"].get<double>(), 200.0);
      }
      // Evaluations at version 0, every 64 samples and at the end.
      EXPECT_GE(r["evals"].size(), 3u);
      EXPECT_EQ(r["samples_to_heldout"], 0.0);  // target 0 is reached at once
      EXPECT_TRUE(r["samples_to_reward"].is_null());  // target 2 never
    }
    EXPECT_EQ(st["summary"]["samples_to_heldout"]["reached"], 2);
  }
  // Running again keeps the finished runs.
  std::ostringstream again;
  auto second = run_compare(*plan, *prompts, engines, nullptr, again);
  EXPECT_EQ(second.kept, 4u) << again.str();
  EXPECT_EQ(second.ran, 0u);
  // A torn done.json (once: the finished run's directory was deleted and run again) is
  // reported and the run's files stay.
  const std::string torn_dir = plan->runs.front().config.out;
  write_file(torn_dir + "/done.json", "{\"document\": \"strat");
  std::ostringstream torn_log;
  auto torn = run_compare(*plan, *prompts, engines, nullptr, torn_log);
  EXPECT_EQ(torn.kept, 3u) << torn_log.str();
  ASSERT_EQ(torn.failed.size(), 1u) << torn_log.str();
  EXPECT_NE(torn.failed[0].find("done.json is unreadable"), std::string::npos);
  EXPECT_TRUE(std::filesystem::exists(torn_dir + "/metrics.jsonl"));
  std::filesystem::remove_all(torn_dir);
  // A changed budget makes them stale.
  auto bigger = load_compare_config(file, {"compare.sample_budget=300"});
  ASSERT_TRUE(bigger);
  std::ostringstream third;
  EXPECT_EQ(run_compare(*bigger, *prompts, engines, nullptr, third).ran, 4u) << third.str();
  // Issue 38: other prompts under the same config (a dataset edited in place) make them
  // stale too, with a line saying why; so does a reading past where they stopped.
  auto edited = std::make_shared<prompt_table>(**prompts);
  edited->rows[3].item.answer += "0";
  const engines_for_run edited_engines = [&](const pipeline_config& c) -> result<engine_factories> {
    return sim_factories(c, edited);
  };
  std::ostringstream fourth;
  EXPECT_EQ(run_compare(*bigger, edited, edited_engines, nullptr, fourth).ran, 4u) << fourth.str();
  EXPECT_NE(fourth.str().find("finished before, but its prompts changed"), std::string::npos)
      << fourth.str();
  auto read_at_2 = load_compare_config(file, {"eval.every=2", "compare.equal_steps=2"});
  ASSERT_TRUE(read_at_2) << read_at_2.err().message;
  std::ostringstream fifth;
  EXPECT_EQ(run_compare(*read_at_2, *prompts, engines, nullptr, fifth).ran, 4u) << fifth.str();
  auto read_at_40 = load_compare_config(file, {"eval.every=2", "compare.equal_steps=40"});
  ASSERT_TRUE(read_at_40) << read_at_40.err().message;
  std::ostringstream sixth;
  EXPECT_EQ(run_compare(*read_at_40, *prompts, engines, nullptr, sixth).ran, 4u) << sixth.str();
  EXPECT_NE(sixth.str().find("before step 40 (compare.equal_steps)"), std::string::npos)
      << sixth.str();

  // The report's summary table shows compare.json's numbers.
  const std::string html = report_html(*c);
  const std::regex cell("data-key=\"grpo-n4\\.samples_to_heldout\\.median\"[^>]*>([^<]*)<");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(html, m, cell));
  EXPECT_EQ(m[1].str(), "0");
}

}  // namespace
}  // namespace adarl
