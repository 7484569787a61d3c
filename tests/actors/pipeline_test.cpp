// Pipeline smoke runs with the simulated engines: every strategy end to end, resume,
// and a stop request.
#include "pipelines/pipeline.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <mutex>
#include <fstream>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>
#include <spdlog/logger.h>
#include <spdlog/sinks/ostream_sink.h>

#include "actors/tracker.hpp"
#include "tests/actors/actor_fixtures.hpp"

namespace adarl {
namespace {

std::string fresh_dir(const std::string& name) { return test::fresh_dir("pipeline_" + name); }

pipeline_config sim_config(strategy_kind kind, const std::string& out) {
  pipeline_config c;
  c.policy.kind = policy_kind::simulated;
  c.tracker.strategy.kind = kind;
  c.tracker.prompts_per_step = 8;
  c.tracker.steps = 5;
  c.tracker.lag.max_lag = 1;
  c.actors.generators = 2;
  c.actors.generator_capacity = 16;
  c.eval.every = 2;
  c.out = out;
  c.progress = false;
  return c;
}

using test::read_lines;

class PipelineStrategyTest : public testing::TestWithParam<strategy_kind> {};

TEST_P(PipelineStrategyTest, TrainsEveryStepAndWritesMetrics) {
  const auto kind = GetParam();
  const std::string out = fresh_dir(std::string(strategy_name(kind)));
  auto c = sim_config(kind, out);
  auto table = test::math_table(64, 16);
  std::ostringstream log;
  run_options o;
  o.log = &log;
  auto r = run_pipeline(c, table, sim_factories(c, table), o);
  ASSERT_TRUE(r) << r.err().message;
  EXPECT_EQ(r->version, 5u);
  EXPECT_FALSE(r->interrupted);
  auto lines = read_lines(out + "/metrics.jsonl");
  ASSERT_EQ(lines.size(), 5u) << log.str();
  uint64_t cumulative = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    EXPECT_EQ(lines[i]["step"], i);
    EXPECT_EQ(lines[i]["policy_version"], i + 1);
    EXPECT_GT(lines[i]["samples"].get<uint64_t>(), 0u);
    cumulative += lines[i]["samples"].get<uint64_t>();
    EXPECT_EQ(lines[i]["cumulative_samples"].get<uint64_t>(), cumulative);
    EXPECT_LE(lines[i]["lag_max"].get<uint64_t>(), 1u);
    const double rr = lines[i]["real_reward"];
    EXPECT_GE(rr, 0.0);
    EXPECT_LE(rr, 1.0);
  }
  // Evaluations: before the first step, after steps 2 and 4, and after the last. The
  // file is in order of completion (evaluations of two versions can overlap on the
  // generators and finish in either order), so they are read by version.
  auto evals = read_lines(out + "/eval.jsonl");
  ASSERT_GE(evals.size(), 3u);
  std::sort(evals.begin(), evals.end(), [](const auto& a, const auto& b) {
    return a["version"].template get<uint64_t>() < b["version"].template get<uint64_t>();
  });
  EXPECT_EQ(evals.front()["version"], 0u);
  EXPECT_EQ(evals.back()["version"], 5u);
  EXPECT_EQ(evals.back()["prompts"], 16u);
  EXPECT_TRUE(std::filesystem::exists(out + "/checkpoints/step-000005/tracker.json"));
  std::ifstream latest(out + "/checkpoints/latest");
  std::string name;
  latest >> name;
  EXPECT_EQ(name, "step-000005");
  // The CSV twin has a header and one row per step.
  std::ifstream csv(out + "/metrics.csv");
  int rows = 0;
  for (std::string line; std::getline(csv, line);) ++rows;
  EXPECT_EQ(rows, 6);
}

INSTANTIATE_TEST_SUITE_P(AllStrategies, PipelineStrategyTest,
                         testing::Values(strategy_kind::grpo, strategy_kind::dr_grpo,
                                         strategy_kind::dapo, strategy_kind::ada_seq,
                                         strategy_kind::ada_est,
                                         strategy_kind::ada_est_online),
                         [](const auto& info) {
                           std::string n(strategy_name(info.param));
                           for (auto& ch : n)
                             if (ch == '-') ch = '_';
                           return n;
                         });

TEST(PipelineTest, ResumeContinuesFromTheSavedStepWithTheSamePassRates) {
  const std::string out = fresh_dir("resume");
  auto c = sim_config(strategy_kind::ada_seq, out);
  c.tracker.steps = 3;
  auto table = test::math_table(64, 16);
  auto first = run_pipeline(c, table, sim_factories(c, table), {});
  ASSERT_TRUE(first) << first.err().message;
  auto ckpt = resolve_checkpoint(out);
  ASSERT_TRUE(ckpt) << ckpt.err().message;
  EXPECT_EQ(*ckpt, out + "/checkpoints/step-000003");
  auto saved = load_tracker_state(*ckpt + "/tracker.json");
  ASSERT_TRUE(saved) << saved.err().message;
  EXPECT_EQ(saved->next_step, 3u);
  EXPECT_FALSE(saved->pass_rates.empty());

  c.tracker.steps = 6;
  run_options o;
  o.resume_from = *ckpt;
  auto second = run_pipeline(c, table, sim_factories(c, table), o);
  ASSERT_TRUE(second) << second.err().message;
  EXPECT_EQ(second->version, 6u);
  auto lines = read_lines(out + "/metrics.jsonl");
  ASSERT_EQ(lines.size(), 6u);
  EXPECT_EQ(lines[3]["step"], 3u);  // continued, not restarted
  // The resumed tracker started from the saved statistics: every prompt seen before
  // the checkpoint still has at least the evidence it had then.
  auto after = load_tracker_state(out + "/checkpoints/step-000006/tracker.json");
  ASSERT_TRUE(after);
  EXPECT_GE(after->pass_rates.size(), saved->pass_rates.size());
  EXPECT_EQ(after->next_step, 6u);
}

TEST(PipelineTest, ResumeFromAnOlderCheckpointRewritesTheLaterLinesAndKeepsTotals) {
  const std::string out = fresh_dir("resume_older");
  auto c = sim_config(strategy_kind::grpo, out);
  c.tracker.steps = 4;
  c.learner.checkpoint_every = 2;
  auto table = test::math_table(64, 16);
  auto first = run_pipeline(c, table, sim_factories(c, table), {});
  ASSERT_TRUE(first) << first.err().message;
  const auto before = read_lines(out + "/metrics.jsonl");
  ASSERT_EQ(before.size(), 4u);
  // As after a crash: continue from step 2's checkpoint; steps 2 and 3 are redone.
  run_options o;
  o.resume_from = out + "/checkpoints/step-000002";
  auto second = run_pipeline(c, table, sim_factories(c, table), o);
  ASSERT_TRUE(second) << second.err().message;
  const auto lines = read_lines(out + "/metrics.jsonl");
  ASSERT_EQ(lines.size(), 4u);  // not 6: the lines after the checkpoint were replaced
  uint64_t cumulative = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    EXPECT_EQ(lines[i]["step"], i);
    cumulative += lines[i]["samples"].get<uint64_t>();
    EXPECT_EQ(lines[i]["cumulative_samples"].get<uint64_t>(), cumulative) << i;
  }
  EXPECT_EQ(lines[1].dump(), before[1].dump());  // kept as they were
  std::ifstream csv(out + "/metrics.csv");
  int rows = 0;
  for (std::string line; std::getline(csv, line);) ++rows;
  EXPECT_EQ(rows, 5);
  // One evaluation per version: 0, 2 (every 2), then 2 again is not duplicated, 4.
  std::vector<uint64_t> versions;
  for (const auto& e : read_lines(out + "/eval.jsonl")) versions.push_back(e["version"]);
  EXPECT_EQ(versions, (std::vector<uint64_t>{0, 2, 4}));
}

TEST(PipelineTest, ResumeRefusesAMalformedMetricsFileNamingTheLine) {
  const std::string out = fresh_dir("resume_bad_metrics");
  auto c = sim_config(strategy_kind::grpo, out);
  c.tracker.steps = 2;
  auto table = test::math_table(64, 16);
  ASSERT_TRUE(run_pipeline(c, table, sim_factories(c, table), {}));
  {
    std::ofstream f(out + "/metrics.jsonl");
    f << "{\"step\": 0}\nnot json\n{\"step\": 1}\n";
  }
  run_options o;
  o.resume_from = out + "/checkpoints/step-000002";
  c.tracker.steps = 3;
  auto r = run_pipeline(c, table, sim_factories(c, table), o);
  ASSERT_FALSE(r);
  EXPECT_NE(r.err().message.find("metrics.jsonl:2"), std::string::npos) << r.err().message;
}

TEST(PipelineTest, SampleBudgetEndsTheRunAtTheStepThatReachesIt) {
  const std::string out = fresh_dir("budget");
  auto c = sim_config(strategy_kind::grpo, out);  // 8 prompts x 4 samples = 32 a step
  c.tracker.steps = 100;
  c.tracker.sample_budget = 70;
  auto table = test::math_table(64, 16);
  auto r = run_pipeline(c, table, sim_factories(c, table), {});
  ASSERT_TRUE(r) << r.err().message;
  EXPECT_EQ(r->version, 3u);  // 32, 64, 96 >= 70
  const auto lines = read_lines(out + "/metrics.jsonl");
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines.back()["cumulative_samples"], 96u);
  // The final evaluation still runs. eval.jsonl is in order of completion (version 2's
  // evaluation can finish after version 3's), so the newest version is looked up.
  uint64_t newest = 0;
  for (const auto& e : read_lines(out + "/eval.jsonl"))
    newest = std::max(newest, e["version"].get<uint64_t>());
  EXPECT_EQ(newest, 3u);
}

// compare reads every run at equal steps and at equal samples: with min_steps the run
// goes on past its sample budget until it has trained that many steps.
TEST(PipelineTest, MinStepsCarriesTheRunPastItsSampleBudget) {
  const std::string out = fresh_dir("min-steps");
  auto c = sim_config(strategy_kind::grpo, out);  // 32 samples a step
  c.tracker.steps = 100;
  c.tracker.sample_budget = 70;
  c.tracker.min_steps = 5;
  auto table = test::math_table(64, 16);
  auto r = run_pipeline(c, table, sim_factories(c, table), {});
  ASSERT_TRUE(r) << r.err().message;
  EXPECT_EQ(r->version, 5u);  // the budget was spent at step 3
  const auto lines = read_lines(out + "/metrics.jsonl");
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_EQ(lines.back()["cumulative_samples"], 160u);
}

// Issue 38: an informed Seq that skips every prompt (skip_below near 1, no exploration)
// makes steps with no group. Each is reported and trained as a no-op; the run finishes.
// Before the fix the first such step never reported and the run stalled (here: after
// stall_seconds, 30 s, with an error).
TEST(PipelineTest, StepsWhosePromptsAreAllSkippedAreReportedAndTheRunFinishes) {
  const std::string out = fresh_dir("all-skipped");
  auto c = sim_config(strategy_kind::ada_seq, out);
  c.tracker.strategy.seq.skip_below = 0.999;
  c.tracker.strategy.seq.explore = 0;
  c.stall_seconds = 30;
  auto table = test::math_table(64, 16);
  auto r = run_pipeline(c, table, sim_factories(c, table), {});
  ASSERT_TRUE(r) << r.err().message;
  EXPECT_EQ(r->version, 5u);
  const auto lines = read_lines(out + "/metrics.jsonl");
  ASSERT_EQ(lines.size(), 5u);
  for (const auto& l : lines) {
    EXPECT_EQ(l["samples"], 0u);
    EXPECT_EQ(l["trained_samples"], 0u);
    EXPECT_GT(l["exits"]["skipped"].get<uint32_t>(), 0u);
  }
}

TEST(PipelineTest, StopRequestWritesACheckpointAndEndsEarly) {
  const std::string out = fresh_dir("stop");
  auto c = sim_config(strategy_kind::grpo, out);
  c.tracker.steps = 100000;
  c.actors.sim_latency.step_seconds = 0.001;
  auto table = test::math_table(64, 16);
  std::atomic<bool> stop{false};
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    stop = true;
  });
  run_options o;
  o.stop = &stop;
  auto r = run_pipeline(c, table, sim_factories(c, table), o);
  stopper.join();
  ASSERT_TRUE(r) << r.err().message;
  EXPECT_TRUE(r->interrupted);
  EXPECT_LT(r->version, 100000u);
  auto ckpt = resolve_checkpoint(out);
  ASSERT_TRUE(ckpt) << ckpt.err().message;
  auto saved = load_tracker_state(*ckpt + "/tracker.json");
  ASSERT_TRUE(saved);
  EXPECT_EQ(saved->next_step, r->version);
}

TEST(PipelineTest, DeterministicModeRepeatsTheSameMetricsWhateverTheScheduling) {
  std::vector<std::vector<nlohmann::json>> runs;
  for (uint32_t generators : {1u, 3u}) {
    const std::string out = fresh_dir("deterministic" + std::to_string(generators));
    auto c = sim_config(strategy_kind::ada_seq, out);
    c.deterministic = true;
    c.tracker.lag.exact = true;
    c.tracker.steps = 6;
    c.actors.generators = generators;
    c.actors.generator_capacity = 8;
    c.actors.sim_latency.tail = 1.5;  // rows finish in a different order per run
    c.actors.sim_latency.min_steps = 2;
    auto table = test::math_table(64, 16);
    auto r = run_pipeline(c, table, sim_factories(c, table), {});
    ASSERT_TRUE(r) << r.err().message;
    runs.push_back(read_lines(out + "/metrics.jsonl"));
  }
  ASSERT_EQ(runs[0].size(), 6u);
  ASSERT_EQ(runs[1].size(), 6u);
  for (size_t i = 0; i < 6; ++i) {
    for (const char* key : {"real_reward", "samples", "tokens", "loss", "grad_norm",
                            "zero_gradient_fraction", "lag_max", "lag_mean"})
      EXPECT_EQ(runs[0][i][key], runs[1][i][key]) << "step " << i << " " << key;
    EXPECT_EQ(runs[0][i]["lag_max"], i == 0 ? 0u : 1u);
  }
}

/// Records what a run_observer is told (from the run's threads).
class recording_observer final : public run_observer {
 public:
  void on_step(const nlohmann::json& line) override {
    std::lock_guard lock(mutex);
    steps.push_back(line);
  }
  void on_eval(const eval_report& e) override {
    std::lock_guard lock(mutex);
    evals.push_back(e.version);
  }
  void on_tracker(const tracker_status& s) override {
    std::lock_guard lock(mutex);
    statuses.push_back(s);
  }
  std::mutex mutex;
  std::vector<nlohmann::json> steps;
  std::vector<uint64_t> evals;
  std::vector<tracker_status> statuses;
};

TEST(PipelineTest, TheObserverAndTheComponentLoggersSeeTheRun) {
  const std::string out = fresh_dir("observed");
  auto c = sim_config(strategy_kind::ada_seq, out);
  c.actors.sim_latency.step_seconds = 0.02;  // long enough for the 1 s tracker polls
  c.actors.sim_latency.min_steps = 5;
  auto table = test::math_table(64, 16);
  std::ostringstream lines;
  auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(lines);
  sink->set_pattern("[%n] %v");
  auto logger = std::make_shared<spdlog::logger>("run", sink);
  logger->set_level(spdlog::level::debug);
  run_options o;
  o.logger = logger;
  auto watcher = std::make_shared<recording_observer>();
  o.observer = watcher;
  const auto t0 = std::chrono::steady_clock::now();
  auto r = run_pipeline(c, table, sim_factories(c, table), o);
  ASSERT_TRUE(r) << r.err().message;
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  // Every step line as written, in order; every evaluation.
  const auto written = read_lines(out + "/metrics.jsonl");
  ASSERT_EQ(watcher->steps.size(), 5u);
  EXPECT_EQ(watcher->steps, written);
  EXPECT_EQ(watcher->evals.size(), read_lines(out + "/eval.jsonl").size());
  EXPECT_EQ(watcher->evals.front(), 0u);
  if (seconds > 1.5) {
    ASSERT_GE(watcher->statuses.size(), 1u) << seconds << " s";
    EXPECT_GT(watcher->statuses.back().results, 0u);
  }
  const std::string text = lines.str();
  for (const char* want : {"[tracker] step 0 generated", "[learner] step 0 trained",
                           "[generator 0] engine ready", "[metrics] step 4: real_reward",
                           "[metrics] held-out accuracy of version 0:",
                           "[learner] checkpoint "})
    EXPECT_NE(text.find(want), std::string::npos) << want << " not in:\n" << text;
}

TEST(PipelineTest, ResumeFromAMissingCheckpointIsAnError) {
  auto r = resolve_checkpoint(fresh_dir("missing"));
  ASSERT_FALSE(r);
  EXPECT_NE(r.err().message.find("checkpoints/latest"), std::string::npos);
}

}  // namespace
}  // namespace adarl
