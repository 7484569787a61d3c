#include "experiments/simulate.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "algorithms/convergence.hpp"
#include "experiments/simulate_config.hpp"
#include "experiments/simulate_output.hpp"

namespace adarl {
namespace {

const char* const tiny_yaml = R"(
simulate:
  seeds: [1, 2]
  prompts: 64
  held_out: 16
  batch_prompts: 8
  total_samples: 3000
  target_pass_rate: 0.35
  baseline: g4
  model: {mean_logit: -1.0, sd_logit: 1.5, adam_shared_lr: 0.004, adam_prompt_lr: 0.02,
          shared_lr: 0.05, prompt_lr: 0.3}
strategies:
  - {name: g4, kind: grpo, group_size: 4}
  - {name: dapo4, kind: dapo, group_size: 4}
  - {name: seq-pos, kind: ada-seq, exit: pos}
  - {name: est-online, kind: ada-est-online}
)";

simulate_config tiny() {
  auto c = read_simulate_config(YAML::Load(tiny_yaml), "tiny.yaml");
  EXPECT_TRUE(c.ok()) << (c.ok() ? "" : c.err().message);
  return c.ok() ? *c : simulate_config{};
}

std::string read_text(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

sim_curve_point at(uint64_t samples, double train) {
  sim_curve_point p;
  p.samples = samples;
  p.train_pass_rate = train;
  return p;
}

TEST(SimulateTest, TinyConfigPrintsARowPerStrategy) {
  const auto config = tiny();
  ASSERT_EQ(config.strategies.size(), 4u);
  const auto rows = run_simulation(config);
  ASSERT_EQ(rows.size(), 4u);
  std::ostringstream out;
  print_simulate_table(out, config, rows);
  const std::string text = out.str();
  EXPECT_NE(text.find("64 prompts"), std::string::npos) << text;
  EXPECT_NE(text.find("budget 3000 samples"), std::string::npos) << text;
  for (const auto& r : rows) {
    EXPECT_EQ(r.runs.size(), 2u);
    EXPECT_NE(text.find("\n" + r.name + " "), std::string::npos) << r.name << "\n"
                                                                 << text;
  }
  // The baseline's own ratio is 1 when it reached the target on every seed.
  ASSERT_EQ(rows[0].reached, 2u) << text;
  EXPECT_DOUBLE_EQ(*rows[0].ratio, 1.0);
  // DAPO trains on no all-equal group; every other strategy samples at least n.
  EXPECT_EQ(rows[1].zero_gradient_fraction, 0.0);
  EXPECT_GE(rows[2].samples_per_prompt, 8.0);  // Seq draws whole rounds of M = 8
}

TEST(SimulateTest, EveryRunSpendsTheBudgetAndStopsRightAfterIt) {
  const auto config = tiny();
  for (const auto& s : config.strategies) {
    const auto run = run_seed(config, s.config, /*seed=*/3);
    ASSERT_GE(run.curve.size(), 2u) << s.name;
    EXPECT_EQ(run.samples, run.curve.back().samples) << s.name;
    EXPECT_GE(run.samples, config.total_samples) << s.name;
    EXPECT_LT(run.curve[run.curve.size() - 2].samples, config.total_samples) << s.name;
    for (size_t i = 1; i < run.curve.size(); ++i)
      EXPECT_GT(run.curve[i].samples, run.curve[i - 1].samples) << s.name;
  }
}

TEST(SimulateTest, TheOptimizerChoiceReachesTheRunAndTheHeader) {
  auto config = tiny();  // Adam, the default
  ASSERT_EQ(config.model.optimizer, sim_optimizer::adam);
  const auto& g4 = config.strategies[0].config;
  const auto adam_run = run_seed(config, g4, /*seed=*/1);
  std::ostringstream adam_text;
  print_simulate_table(adam_text, config, {});
  EXPECT_NE(
      adam_text.str().find("optimizer adam adam_shared_lr 0.004 adam_prompt_lr 0.02"),
      std::string::npos)
      << adam_text.str();
  config.model.optimizer = sim_optimizer::sgd;
  const auto sgd_run = run_seed(config, g4, /*seed=*/1);
  std::ostringstream sgd_text;
  print_simulate_table(sgd_text, config, {});
  EXPECT_NE(sgd_text.str().find("optimizer sgd shared_lr 0.05 prompt_lr 0.3"),
            std::string::npos)
      << sgd_text.str();
  ASSERT_EQ(adam_run.curve.size(), sgd_run.curve.size());
  EXPECT_NE(adam_run.curve.back().train_pass_rate, sgd_run.curve.back().train_pass_rate);
  // Both learn.
  EXPECT_GT(adam_run.curve.back().train_pass_rate,
            adam_run.curve.front().train_pass_rate);
  EXPECT_GT(sgd_run.curve.back().train_pass_rate, sgd_run.curve.front().train_pass_rate);
}

TEST(SimulateTest, SamplesToTargetIsTheFirstStepAtOrAboveIt) {
  const std::vector<sim_curve_point> curve{at(100, 0.30), at(200, 0.49), at(300, 0.50),
                                           at(400, 0.45), at(500, 0.60)};
  EXPECT_EQ(samples_to_target(curve, 0.5), 300u);
  EXPECT_EQ(samples_to_target(curve, 0.3), 100u);
  EXPECT_EQ(samples_to_target(curve, 0.55), 500u);
  EXPECT_FALSE(samples_to_target(curve, 0.61).has_value());
  EXPECT_FALSE(samples_to_target({}, 0.1).has_value());
  // Steps are 1-based positions in the curve, whatever the sample counts.
  EXPECT_EQ(steps_to_target(curve, 0.5), 3u);
  EXPECT_EQ(steps_to_target(curve, 0.3), 1u);
  EXPECT_FALSE(steps_to_target(curve, 0.61).has_value());
}

// simulate's curve and compare's convergence curve in one translation unit: this compiles
// only while their point types have different names (one name was an ODR violation that
// ASan caught as a heap overflow in run_seed), and both find the same first reach.
TEST(SimulateTest, SamplesToTargetAgreesWithConvergenceFirstReach) {
  const std::vector<sim_curve_point> curve{at(100, 0.30), at(200, 0.49), at(300, 0.50),
                                           at(400, 0.45), at(500, 0.60)};
  std::vector<curve_point> xy;
  for (const auto& p : curve)
    xy.push_back({static_cast<double>(p.samples), p.train_pass_rate});
  for (double target : {0.3, 0.5, 0.55, 0.61}) {
    const auto a = samples_to_target(curve, target);
    const auto b = first_reach(xy, target);
    ASSERT_EQ(a.has_value(), b.has_value()) << target;
    if (a) {
      EXPECT_DOUBLE_EQ(static_cast<double>(*a), *b) << target;
    }
  }
}

TEST(SimulateTest, MedianReadsNeverAsInfinity) {
  EXPECT_DOUBLE_EQ(*median_of({300, 100, 200}), 200.0);
  EXPECT_DOUBLE_EQ(*median_of({400, 100, 200, 300}), 250.0);
  EXPECT_DOUBLE_EQ(*median_of({std::nullopt, 100, 200}), 200.0);
  EXPECT_FALSE(median_of({std::nullopt, std::nullopt, 200}).has_value());
  EXPECT_FALSE(median_of({std::nullopt, 100}).has_value());
  EXPECT_FALSE(median_of({}).has_value());
}

TEST(SimulateTest, RatioIsTheMedianOfPerSeedRatios) {
  using v = std::vector<std::optional<uint64_t>>;
  // Per seed: 2.0, 0.5, 1.5 -> median 1.5 (not the ratio of medians, 200/200).
  const v base{100, 200, 300}, mine{50, 400, 200};
  EXPECT_DOUBLE_EQ(*median_ratio(base, mine), 1.5);
  EXPECT_DOUBLE_EQ(*median_ratio(v{100, 300}, v{100, 100}), 2.0);
  EXPECT_FALSE(median_ratio(v{100, std::nullopt}, v{100, 100}).has_value());
  EXPECT_FALSE(median_ratio(v{100, 100}, v{std::nullopt, 100}).has_value());
  EXPECT_FALSE(median_ratio(v{100}, v{100, 100}).has_value());
  EXPECT_FALSE(median_ratio(v{}, v{}).has_value());
}

TEST(SimulateTest, SummaryCountsReachedSeedsAndRange) {
  strategy_result base, r;
  for (uint64_t s : {100u, 200u, 300u}) {
    seed_run run;
    run.samples_to_target = s;
    base.runs.push_back(run);
  }
  r.runs = base.runs;
  r.runs[0].samples_to_target = 50;
  r.runs[2].samples_to_target.reset();
  summarize(r, base);
  EXPECT_EQ(r.reached, 2u);
  EXPECT_DOUBLE_EQ(*r.median_samples, 200.0);
  EXPECT_EQ(*r.min_samples, 50u);
  EXPECT_FALSE(r.max_samples.has_value());
  EXPECT_FALSE(r.ratio.has_value());
  summarize(base, base);
  EXPECT_EQ(*base.max_samples, 300u);
  EXPECT_DOUBLE_EQ(*base.ratio, 1.0);
}

TEST(SimulateTest, SameSeedGivesIdenticalResultsWhateverTheThreads) {
  const auto config = tiny();
  const auto& online = config.strategies[3].config;
  const auto a = run_seed(config, online, 5), b = run_seed(config, online, 5);
  ASSERT_EQ(a.curve.size(), b.curve.size());
  for (size_t i = 0; i < a.curve.size(); ++i) {
    EXPECT_EQ(a.curve[i].samples, b.curve[i].samples);
    EXPECT_EQ(a.curve[i].train_pass_rate, b.curve[i].train_pass_rate);
    EXPECT_EQ(a.curve[i].held_out_pass_rate, b.curve[i].held_out_pass_rate);
  }
  EXPECT_EQ(a.wasted_samples, b.wasted_samples);
  // Another seed is another run.
  EXPECT_NE(run_seed(config, online, 6).curve.back().train_pass_rate,
            a.curve.back().train_pass_rate);
  const auto one = simulate_json(config, run_simulation(config, /*threads=*/1));
  const auto three = simulate_json(config, run_simulation(config, /*threads=*/3));
  EXPECT_EQ(one, three);
}

TEST(SimulateConfigTest, BadConfigNamesFileLineAndKey) {
  const char* text =
      "simulate:\n"                 // 1
      "  prompts: 64\n"             // 2
      "  bogus: 3\n"                // 3
      "  model: {shared_lr: -1}\n"  // 4
      "strategies:\n"               // 5
      "  - name: a\n"               // 6
      "    kind: grpo\n"            // 7
      "    round_size: 8\n"         // 8
      "  - name: b\n"               // 9
      "    kind: ada-seq\n"         // 10
      "    max_rounds: four\n"      // 11
      "  - kind: dapo\n";           // 12
  auto c = read_simulate_config(YAML::Load(text), "bad.yaml");
  ASSERT_FALSE(c.ok());
  const auto& m = c.err().message;
  EXPECT_NE(m.find("bad.yaml:3: simulate.bogus: unknown key"), std::string::npos) << m;
  EXPECT_NE(m.find("bad.yaml:4: simulate.model.shared_lr: expected a number >= 0"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("bad.yaml:8: strategies[0].round_size: unknown key"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("bad.yaml:11: strategies[1].max_rounds:"), std::string::npos) << m;
  EXPECT_NE(m.find("\"four\""), std::string::npos) << m;
  EXPECT_NE(m.find("bad.yaml:12: strategies[2].name: expected a non-empty"),
            std::string::npos)
      << m;
}

TEST(SimulateConfigTest, RejectsAnUnknownBaselineAndAMissingKind) {
  const std::string head = "simulate: {prompts: 16, batch_prompts: 4}\nstrategies:\n";
  auto c =
      read_simulate_config(YAML::Load(head + "  - {name: x, kind: grpo}\n"), "f.yaml");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.err().message.find("simulate.baseline: expected the name of a listed "
                                 "strategy, got \"grpo-n4\""),
            std::string::npos)
      << c.err().message;
  c = read_simulate_config(YAML::Load(head + "  - {name: grpo-n4}\n"), "f.yaml");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.err().message.find("strategies[0].kind: expected a strategy kind"),
            std::string::npos)
      << c.err().message;
  c = read_simulate_config(YAML::Load("simulate: {prompts: 4, batch_prompts: 8}\n"
                                      "strategies: [{name: grpo-n4, kind: grpo}]\n"),
                           "f.yaml");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.err().message.find("simulate.batch_prompts: expected batch_prompts <= "
                                 "prompts (4)"),
            std::string::npos)
      << c.err().message;
}

TEST(SimulateConfigTest, ReadsTheOptimizerAndRejectsAnUnknownOne) {
  const std::string tail = "strategies: [{name: grpo-n4, kind: grpo}]\n";
  auto c = read_simulate_config(
      YAML::Load(
          "simulate:\n"
          "  model: {optimizer: sgd, adam_shared_lr: 0.5, adam_prompt_lr: 0.25}\n" +
          tail),
      "f.yaml");
  ASSERT_TRUE(c.ok()) << c.err().message;
  EXPECT_EQ(c->model.optimizer, sim_optimizer::sgd);
  EXPECT_DOUBLE_EQ(c->model.adam_shared_lr, 0.5);
  EXPECT_DOUBLE_EQ(c->model.adam_prompt_lr, 0.25);
  c = read_simulate_config(YAML::Load("simulate: {}\n" + tail), "f.yaml");
  ASSERT_TRUE(c.ok()) << c.err().message;
  EXPECT_EQ(c->model.optimizer, sim_optimizer::adam);

  const char* text =
      "simulate:\n"                 // 1
      "  model:\n"                  // 2
      "    optimizer: adamw\n"      // 3
      "    adam_prompt_lr: -0.1\n"  // 4
      "strategies: [{name: grpo-n4, kind: grpo}]\n";
  c = read_simulate_config(YAML::Load(text), "bad.yaml");
  ASSERT_FALSE(c.ok());
  const auto& m = c.err().message;
  EXPECT_NE(m.find("bad.yaml:3: simulate.model.optimizer: expected adam or sgd, got "
                   "\"adamw\""),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("bad.yaml:4: simulate.model.adam_prompt_lr: expected a number >= 0"),
            std::string::npos)
      << m;
  // Not a string: one error, of the wrong type.
  c = read_simulate_config(YAML::Load("simulate: {model: {optimizer: [adam]}}\n" + tail),
                           "list.yaml");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.err().message.find("list.yaml:1: simulate.model.optimizer: expected a "
                                 "string, got a list"),
            std::string::npos)
      << c.err().message;
  EXPECT_EQ(c.err().message.find('\n'), std::string::npos) << c.err().message;
  auto o = load_simulate_config("", {"simulate.model.optimizer=SGD"});
  ASSERT_FALSE(o.ok());
  EXPECT_NE(o.err().message.find("simulate.model.optimizer: expected adam or sgd, got "
                                 "\"SGD\""),
            std::string::npos)
      << o.err().message;
}

TEST(SimulateConfigTest, EmbeddedDefaultEqualsConfigFile) {
  const auto file = read_text(std::string(ADARL_SOURCE_DIR) + "/configs/simulate.yaml");
  ASSERT_FALSE(file.empty());
  EXPECT_EQ(std::string(default_simulate_yaml()), file);
}

TEST(SimulateConfigTest, DefaultConfigReadsWithOverrides) {
  auto c = load_simulate_config("", {});
  ASSERT_TRUE(c.ok()) << c.err().message;
  EXPECT_EQ(c->strategies.size(), 8u);
  EXPECT_EQ(c->baseline, "grpo-n4");
  EXPECT_EQ(c->strategies[0].name, "grpo-n4");
  EXPECT_EQ(c->strategies[5].config.seq.exit, exit_rule::balance);
  EXPECT_EQ(c->strategies[4].config.seq.exit, exit_rule::pos);
  // Adam is the default, as in the real learner (AdamW).
  EXPECT_EQ(c->model.optimizer, sim_optimizer::adam);
  EXPECT_EQ(c->model.adam_shared_lr, sim_model_config{}.adam_shared_lr);
  EXPECT_EQ(c->model.adam_prompt_lr, sim_model_config{}.adam_prompt_lr);

  c = load_simulate_config(
      "", {"simulate.total_samples=1234", "simulate.model.prompt_lr=0.7"});
  ASSERT_TRUE(c.ok()) << c.err().message;
  EXPECT_EQ(c->total_samples, 1234u);
  EXPECT_DOUBLE_EQ(c->model.prompt_lr, 0.7);

  c = load_simulate_config("", {"simulate.total_samples=lots"});
  ASSERT_FALSE(c.ok());
  EXPECT_NE(
      c.err().message.find("simulate.total_samples: expected a positive integer, got "
                           "\"lots\""),
      std::string::npos)
      << c.err().message;
  EXPECT_FALSE(load_simulate_config("", {"no-equals-sign"}).ok());
}

TEST(SimulateConfigTest, LoadsAFileAndNamesItInErrors) {
  const auto file = testing::TempDir() + "/simulate_bad.yaml";
  std::ofstream(file)
      << "simulate:\n  prompts: 0\nstrategies: [{name: grpo-n4, kind: grpo}]\n";
  auto c = load_simulate_config(file, {});
  ASSERT_FALSE(c.ok());
  EXPECT_NE(
      c.err().message.find(file + ":2: simulate.prompts: expected a positive integer"),
      std::string::npos)
      << c.err().message;
  EXPECT_FALSE(load_simulate_config(file + ".missing", {}).ok());
}

TEST(SimulateConfigTest, SeedCountKeepsTheFirstSeedsOrExtends) {
  simulate_config c;
  c.seeds = {7, 3, 9};
  set_seed_count(c, 2);
  EXPECT_EQ(c.seeds, (std::vector<uint64_t>{7, 3}));
  set_seed_count(c, 4);
  EXPECT_EQ(c.seeds, (std::vector<uint64_t>{7, 3, 8, 9}));
}

TEST(SimulateOutputTest, JsonHoldsTheTableAndEveryCurve) {
  const auto config = tiny();
  const auto rows = run_simulation(config);
  const auto file = testing::TempDir() + "/simulate_out.json";
  ASSERT_TRUE(write_simulate_json(file, config, rows).ok());
  EXPECT_FALSE(std::filesystem::exists(file + ".tmp"));
  const auto doc = nlohmann::json::parse(read_text(file));
  ASSERT_EQ(doc["table"].size(), 4u);
  EXPECT_EQ(doc["table"][0]["name"], "g4");
  EXPECT_EQ(doc["runs"].size(), 8u);
  const auto& curve = doc["runs"][0]["curve"];
  EXPECT_EQ(curve["samples"].size(), rows[0].runs[0].curve.size());
  EXPECT_EQ(curve["train"].back().get<double>(),
            rows[0].runs[0].curve.back().train_pass_rate);
  EXPECT_FALSE(write_simulate_json("/nonexistent-dir/x.json", config, rows).ok());
}

// docs/results/simulate-budget.json (docs/algorithm.md "Budget-first Reinforce-Ada")
// is the output of docs/results/simulate-budget.yaml: the same strategies in order, seeds
// and budget, and the budget-first arms at grpo-n4's samples per prompt.
TEST(SimulateTest, TheCommittedBudgetFirstResultsComeFromTheirConfig) {
  const std::string dir = std::string(ADARL_SOURCE_DIR) + "/docs/results/";
  auto config = load_simulate_config(dir + "simulate-budget.yaml", {});
  ASSERT_TRUE(config) << config.err().message;
  std::ifstream in(dir + "simulate-budget.json");
  ASSERT_TRUE(in);
  const auto j = nlohmann::json::parse(in);
  const auto& table = j.at("table");
  ASSERT_EQ(table.size(), config->strategies.size());
  for (size_t i = 0; i < table.size(); ++i) {
    const auto& row = table[i];
    const auto& arm = config->strategies[i];
    EXPECT_EQ(row.at("name").get<std::string>(), arm.name);
    EXPECT_EQ(row.at("seeds").get<size_t>(), config->seeds.size()) << arm.name;
    if (arm.config.kind == strategy_kind::ada_budget) {
      // At most grpo-n4's 4 (skips and unspent reserves draw less).
      EXPECT_LE(row.at("samples_per_prompt").get<double>(), 4.0) << arm.name;
      EXPECT_GT(row.at("samples_per_prompt").get<double>(), 3.9) << arm.name;
    }
  }
  EXPECT_EQ(j.at("runs").size(), config->strategies.size() * config->seeds.size());
  EXPECT_EQ(j.at("config").at("total_samples").get<uint64_t>(), config->total_samples);
}

}  // namespace
}  // namespace adarl
