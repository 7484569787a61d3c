// pipeline_reader: the `adarl run` document, its validation and the shipped configs.
#include "config/pipeline_reader.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "tests/formats/tiny_hf.hpp"

namespace adarl {
namespace {

const std::string configs_dir = std::string(ADARL_SOURCE_DIR) + "/configs";
const std::string quickstart = configs_dir + "/quickstart.yaml";

/// Writes `text` to a file named `name` under the test's temporary directory.
std::string write_file(const std::string& name, const std::string& text) {
  const auto file = testing::TempDir() + "/" + name;
  std::ofstream(file) << text;
  return file;
}

/// The error of loading `file` with `overrides`; fails the test when it loads.
std::string error_of(const std::string& file, const std::vector<std::string>& overrides) {
  auto c = load_pipeline_config(file, overrides);
  EXPECT_FALSE(c.ok()) << "expected an error for " << file;
  return c.ok() ? "" : c.err().message;
}

/// The lines of `text`.
std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    const auto end = text.find('\n', start);
    out.push_back(text.substr(start, end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return out;
}

struct expected_strategy {
  strategy_kind kind;
  exit_rule exit = exit_rule::balance;  // ada-seq only
};

/// A tiny HF checkpoint (1 layer, the small tokenizer) under the test temp dir, for the
/// configs whose model.path names one.
std::string small_hf_dir(const std::string& name) {
  const std::string dir = testing::TempDir() + "/" + name;
  test::tiny_hf_spec spec;
  spec.hidden = 16;
  spec.intermediate = 32;
  spec.layers = 1;
  spec.real_tokenizer = false;
  test::write_tiny_hf(dir, spec);
  return dir;
}

TEST(PipelineReaderTest, EveryShippedRunConfigLoadsWithTheStrategyItsNameSays) {
  const std::map<std::string, expected_strategy> expected = {
      {"quickstart", {strategy_kind::ada_seq, exit_rule::balance}},
      {"grpo", {strategy_kind::grpo}},
      {"dr-grpo", {strategy_kind::dr_grpo}},
      {"dapo", {strategy_kind::dapo}},
      {"ada-seq-pos", {strategy_kind::ada_seq, exit_rule::pos}},
      {"ada-seq-balance", {strategy_kind::ada_seq, exit_rule::balance}},
      {"ada-est", {strategy_kind::ada_est}},
      {"ada-est-online", {strategy_kind::ada_est_online}},
      {"ada-budget", {strategy_kind::ada_budget}},
      {"sim-smoke", {strategy_kind::ada_seq, exit_rule::pos}},
      {"hf-tiny", {strategy_kind::grpo}},
      {"server-llama", {strategy_kind::grpo}},
  };
  // hf-tiny's model.path names a checkpoint the user writes first (make_tiny_hf): point
  // it at a tiny one written here, so that the reader checks the rest of the file.
  const std::string hf_dir = small_hf_dir("shipped-hf-tiny");
  size_t loaded = 0;
  for (const auto& entry : std::filesystem::directory_iterator(configs_dir)) {
    const auto path = entry.path();
    const auto stem = path.stem().string();
    if (path.extension() != ".yaml" || stem == "sft" || stem == "simulate" || stem == "compare" ||
        stem.rfind("compare-", 0) == 0 || stem.rfind("ablation", 0) == 0 ||
        stem.rfind("equal-compute-", 0) == 0)
      continue;  // other commands' documents (compare_test.cpp reads compare.yaml)
    const bool hf = stem == "hf-tiny" || stem == "server-llama";
    auto c = load_pipeline_config(path.string(),
                                  hf ? std::vector<std::string>{"model.path=" + hf_dir}
                                     : std::vector<std::string>{});
    ASSERT_TRUE(c.ok()) << path << ": " << c.err().message;
    ++loaded;
    EXPECT_EQ(c->policy.kind == policy_kind::hf, stem == "hf-tiny") << stem;
    EXPECT_EQ(c->policy.kind == policy_kind::server, stem == "server-llama") << stem;
    EXPECT_EQ(c->name, stem);
    // The first command of the README runs again and again: a new directory per run.
    EXPECT_EQ(c->out, stem == "quickstart" ? "runs/quickstart/{time}" : "runs/" + stem);
    const auto it = expected.find(stem);
    ASSERT_NE(it, expected.end()) << path << ": add its expected strategy to this test";
    EXPECT_EQ(c->tracker.strategy.kind, it->second.kind) << stem;
    if (it->second.kind == strategy_kind::ada_seq) {
      EXPECT_EQ(c->tracker.strategy.seq.exit, it->second.exit) << stem;
    }
    EXPECT_GE(c->tracker.steps, 1u) << stem;
  }
  EXPECT_EQ(loaded, expected.size());
}

TEST(PipelineReaderTest, TheServerSectionIsReadForTheServerKindOnlyAndChecked) {
  const std::string hf_dir = small_hf_dir("server-kind-hf");
  const std::string server = configs_dir + "/server-llama.yaml";
  auto c = load_pipeline_config(server, {"model.path=" + hf_dir});
  ASSERT_TRUE(c) << c.err().message;
  EXPECT_EQ(c->server.dialect, server_dialect::llama);
  EXPECT_EQ(c->server.url, "http://127.0.0.1:18181");
  EXPECT_NE(c->server.launch.find("{model}"), std::string::npos);
  EXPECT_DOUBLE_EQ(c->learner.logprob_tolerance, 0.05);
  auto bad = [&](const std::vector<std::string>& o, const std::string& what) {
    std::vector<std::string> all{"model.path=" + hf_dir};
    all.insert(all.end(), o.begin(), o.end());
    auto r = load_pipeline_config(server, all);
    ASSERT_FALSE(r) << what;
    EXPECT_NE(r.err().message.find(what), std::string::npos) << r.err().message;
  };
  bad({"server.dialect=tgi"}, "llama, sglang, vllm or llama-openai");
  bad({"server.url=127.0.0.1:80"}, "server.url");
  bad({"server.launch=\"\""}, "server.launch");  // llama loads its model only at start
  bad({"server.launch=\"llama-server -m {weights}\""}, "unknown placeholder {weights}");
  bad({"actors.generators=2"}, "actors.generators");
  bad({"learner.logprob_tolerance=-1"}, "learner.logprob_tolerance");
  // SGLang loads versions itself: no launch needed.
  auto sglang = load_pipeline_config(server, {"model.path=" + hf_dir, "server.dialect=sglang",
                                              "server.launch=\"\""});
  EXPECT_TRUE(sglang) << sglang.err().message;
  // Another kind has no server section.
  auto other = load_pipeline_config(configs_dir + "/hf-tiny.yaml",
                                    {"model.path=" + hf_dir, "server.url=http://h:1"});
  ASSERT_FALSE(other);
  EXPECT_NE(other.err().message.find("only with model.kind server"), std::string::npos);
}

TEST(PipelineReaderTest, QuickstartHasTheDocumentedBudget) {
  auto c = load_pipeline_config(quickstart, {});
  ASSERT_TRUE(c.ok()) << c.err().message;
  EXPECT_EQ(c->policy.kind, policy_kind::transformer);
  EXPECT_EQ(c->policy.model.d_model, 128);
  EXPECT_EQ(c->policy.model.n_heads, 4);
  EXPECT_EQ(c->policy.model.vocab_size, 100);  // 95 printable + newline + 4 special
  EXPECT_EQ(c->tasks.suite, "general");
  EXPECT_EQ(c->tracker.prompts_per_step, 16u);
  EXPECT_EQ(c->tracker.steps, 150u);
  EXPECT_EQ(c->tracker.sample_budget, 0u);
  EXPECT_EQ(c->tracker.lease_ns, 60'000'000'000u);
  EXPECT_EQ(c->actors.generator_capacity, 128u);
  EXPECT_EQ(c->actors.sim_latency.capacity, 128u);
  EXPECT_DOUBLE_EQ(c->learner.optimizer.lr, 5e-4);
  EXPECT_EQ(c->learner.optimizer.warmup_steps, 5);
  EXPECT_EQ(c->learner.checkpoint_every, 50u);
  EXPECT_EQ(c->eval.every, 25u);
  EXPECT_EQ(c->eval.every_samples, 0u);
}

TEST(PipelineReaderTest, SimSmokeIsATinySimulatedRun) {
  auto c = load_pipeline_config(configs_dir + "/sim-smoke.yaml", {});
  ASSERT_TRUE(c.ok()) << c.err().message;
  EXPECT_EQ(c->policy.kind, policy_kind::simulated);
  EXPECT_EQ(c->tracker.steps, 5u);
  EXPECT_EQ(c->tracker.prompts_per_step, 8u);
  EXPECT_EQ(c->tasks.train, 64u);
  EXPECT_EQ(c->tasks.held_out, 16u);
  // The tracker takes the run's seed and determinism.
  EXPECT_EQ(c->tracker.seed, c->seed);
  EXPECT_EQ(c->tracker.lag.exact, c->deterministic);
}

TEST(PipelineReaderTest, OverridesChangeValues) {
  auto c = load_pipeline_config(
      quickstart, {"tracker.steps=7", "strategy.exit=pos", "strategy.group_size=2",
                   "model.kind=simulated", "tracker.lease_seconds=0.5", "seed=42",
                   "deterministic=true", "tasks.difficulty_mix=[0, 1, 2]"});
  ASSERT_TRUE(c.ok()) << c.err().message;
  EXPECT_EQ(c->tracker.steps, 7u);
  EXPECT_EQ(c->tracker.strategy.seq.exit, exit_rule::pos);
  EXPECT_EQ(c->tracker.strategy.seq.group_size, 2u);
  EXPECT_EQ(c->policy.kind, policy_kind::simulated);
  EXPECT_EQ(c->tracker.lease_ns, 500'000'000u);
  EXPECT_EQ(c->tracker.seed, 42u);
  EXPECT_TRUE(c->tracker.lag.exact);
  EXPECT_EQ(c->tasks.difficulty_mix, (std::vector<double>{0, 1, 2}));
  // Another kind rejects the file's keys of this one (the section is per kind).
  EXPECT_NE(error_of(quickstart, {"strategy.kind=grpo"})
                .find(": strategy.round_size: unknown key"),
            std::string::npos);
}

TEST(PipelineReaderTest, NameDefaultsToTheFileStemAndOutToRunsName) {
  const auto file = write_file("my-run.yaml", "tracker:\n  steps: 3\n");
  auto c = load_pipeline_config(file, {});
  ASSERT_TRUE(c.ok()) << c.err().message;
  EXPECT_EQ(c->name, "my-run");
  EXPECT_EQ(c->out, "runs/my-run");
  EXPECT_EQ(c->tracker.steps, 3u);
  EXPECT_EQ(c->tracker.prompts_per_step, tracker_config{}.prompts_per_step);
  c = load_pipeline_config(file, {"name=other"});
  ASSERT_TRUE(c.ok()) << c.err().message;
  EXPECT_EQ(c->out, "runs/other");
  c = load_pipeline_config(file, {"name=other", "out=/tmp/elsewhere"});
  ASSERT_TRUE(c.ok()) << c.err().message;
  EXPECT_EQ(c->out, "/tmp/elsewhere");
}

TEST(PipelineReaderTest, UnknownKeyInTheFileIsRejectedWithPathAndLine) {
  const auto file = write_file("unknown_key.yaml",
                               "tracker:\n  steps: 5\n  bogus: 1\nmodel:\n  sim:\n"
                               "    typo_lr: 2\nextra: true\n");
  const auto e = lines(error_of(file, {}));
  EXPECT_EQ(e, (std::vector<std::string>{
                   file + ":6: model.sim.typo_lr: unknown key",
                   file + ":3: tracker.bogus: unknown key",
                   file + ":7: extra: unknown key",
               }));
}

TEST(PipelineReaderTest, UnknownKeyInAnOverrideIsRejectedWithItsPath) {
  EXPECT_EQ(error_of(quickstart, {"tracker.bogus=1"}),
            quickstart + ": tracker.bogus: unknown key");
  EXPECT_EQ(error_of(quickstart, {"nosuch.key=1"}), quickstart + ": nosuch: unknown key");
  // A key of another strategy kind is unknown to this one.
  EXPECT_EQ(error_of(quickstart, {"strategy.rounds=four"}),
            quickstart + ": strategy.rounds: unknown key");
}

TEST(PipelineReaderTest, BadValuesAreAllReportedWithTheirKeys) {
  const auto e = lines(error_of(
      quickstart,
      {"strategy.max_rounds=four", "sampling.top_p=2", "tracker.steps=0",
       "model.n_heads=3", "model.device=gpu", "tasks.suite=poetry", "actors.generators=0",
       "learner.micro_batch=0", "tracker.lease_seconds=0", "sampling.temperature=0"}));
  const std::vector<std::string> want = {
      quickstart + ": model.n_heads: expected a positive divisor of d_model, got \"3\"",
      quickstart + ": model.device: expected cpu or cuda:N, got \"gpu\"",
      quickstart +
          ": tasks.suite: expected one of code, general, math, mixed, reasoning (or a "
          "dataset), got \"poetry\"",
      quickstart + ": strategy.max_rounds: expected a non-negative integer, got \"four\"",
      quickstart + ": tracker.steps: expected an integer in [1, 1000000000], got \"0\"",
      quickstart + ": tracker.lease_seconds: expected a number in [0.001, 604800], got \"0\"",
      quickstart + ": sampling.temperature: expected a number > 0, got \"0\"",
      quickstart + ": sampling.top_p: expected 0 < top_p <= 1, got \"2\"",
      quickstart + ": actors.generators: expected at least 1 without remote generators (actors.remote_generators.bind), got \"0\"",
      quickstart + ": learner.micro_batch: expected an integer in [1, 65536], got \"0\"",
  };
  EXPECT_EQ(e, want);
}

// Each of these once crashed or hung a run (an uncaught c10::Error, thread creation,
// an allocation inside an actor, a lease rounded to 0 ns): now each is refused before
// anything starts, naming its key.
TEST(PipelineReaderTest, OversizedAndDegenerateValuesAreRefusedWithTheirKey) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"model.d_ff=2000000000"}, "model.d_ff: expected an integer in [1, 131072]"},
      {{"model.d_model=16384"}, "model.d_model: the shape has "},
      {{"actors.scheduler_threads=100000"}, "actors.scheduler_threads: expected an integer in [1, 256]"},
      {{"actors.generator_capacity=4000000000"},
       "actors.generator_capacity: expected an integer in [1, 65536]"},
      {{"strategy.round_size=2000000000"},
       "strategy.round_size: expected round_size * max_rounds <= 65536"},
      {{"tasks.train=4000000000"}, "tasks.train: expected an integer in [1, 1000000]"},
      {{"tracker.lease_seconds=1e-12"}, "tracker.lease_seconds: expected a number in [0.001, 604800]"},
      {{"tracker.prompts_per_step=65536", "tasks.train=100000", "strategy.round_size=64",
        "strategy.max_rounds=16"},
       "tracker.prompts_per_step: a step of 65536 prompts"},
      {{"stall_seconds=0"}, "stall_seconds: expected a number in [1, 604800]"},
      {{"sampling.max_new_tokens=100000"}, "sampling.max_new_tokens: expected an integer in [1, 65536]"},
  };
  for (const auto& [overrides, message] : cases) {
    SCOPED_TRACE(overrides.front());
    const auto e = error_of(quickstart, overrides);
    EXPECT_NE(e.find(quickstart + ": " + message), std::string::npos) << e;
  }
}

// ada-budget's bad input exits before anything starts, naming the key (issue 36).
TEST(PipelineReaderTest, AdaBudgetRefusesASmallBudgetABadReserveAndAnUnknownRule) {
  const std::string doc = configs_dir + "/ada-budget.yaml";
  auto ok = load_pipeline_config(doc, {});
  ASSERT_TRUE(ok) << ok.err().message;
  EXPECT_EQ(ok->tracker.strategy.kind, strategy_kind::ada_budget);
  EXPECT_EQ(ok->learner.updates_per_step, 4u);
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"strategy.budget=20"},
       "tracker.prompts_per_step: strategy.budget: a step of 16 prompts needs at least 32 "
       "samples (prompts x n_min); the budget is 20"},
      {{"strategy.samples_per_prompt=2", "strategy.n_min=3"},
       "strategy.samples_per_prompt: expected n_min <= samples_per_prompt <= n_max"},
      {{"strategy.reserve=0"}, "strategy.reserve: expected a share of the budget in (0, 1)"},
      {{"strategy.reserve=-0.5"}, "strategy.reserve: expected a share of the budget in (0, 1)"},
      {{"strategy.allocation=greedy"},
       "strategy.allocation: unknown allocation rule \"greedy\" (known: uniform, sqrt, knapsack)"},
      {{"learner.updates_per_step=0"}, "learner.updates_per_step: expected an integer in [1, 1024]"},
  };
  for (const auto& [overrides, message] : cases) {
    SCOPED_TRACE(overrides.front());
    const auto e = error_of(doc, overrides);
    EXPECT_EQ(e.rfind(doc + ":", 0), 0u) << e;  // the file (and the line when it has one)
    EXPECT_NE(e.find(message), std::string::npos) << e;
  }
}

// Every key a run reads is recorded with its effective value, defaults included, so a
// checkpoint says exactly what its run was.
TEST(PipelineReaderTest, EffectiveValuesNameEveryKeyWithItsValue) {
  auto c = load_pipeline_config(quickstart, {"strategy.round_size=16"});
  ASSERT_TRUE(c) << c.err().message;
  const auto& v = c->effective;
  EXPECT_EQ(v.at("strategy.round_size"), "16");
  EXPECT_EQ(v.at("strategy.kind"), "ada-seq");
  EXPECT_EQ(v.at("seed"), "1");
  EXPECT_EQ(v.at("model.d_model"), "128");
  EXPECT_EQ(v.at("tracker.estimator.lambda"), "0.9");
  EXPECT_EQ(v.at("model.kind"), "transformer");
  EXPECT_EQ(v.at("stall_seconds"), "600");  // absent from the file: the default
}

TEST(PipelineReaderTest, RemoteVerifiersAreOffByDefaultAndTheirValuesChecked) {
  auto c = load_pipeline_config(quickstart, {});
  ASSERT_TRUE(c) << c.err().message;
  EXPECT_EQ(c->actors.remote_verifiers.bind, "");
  auto on = load_pipeline_config(quickstart, {"actors.remote_verifiers.bind=tcp://*:5557",
                                              "actors.remote_verifiers.local_after=0"});
  ASSERT_TRUE(on) << on.err().message;
  EXPECT_EQ(on->actors.remote_verifiers.bind, "tcp://*:5557");
  EXPECT_EQ(on->actors.remote_verifiers.pool.local_after, 0.0);
  EXPECT_EQ(on->actors.remote_verifiers.pool.timeout, 3.0);
  const auto e = lines(error_of(quickstart, {"actors.remote_verifiers.bind=http://x:1",
                                             "actors.remote_verifiers.heartbeat=5"}));
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(e[0], quickstart +
                      ": actors.remote_verifiers.bind: expected \"\" (off) or a ZeroMQ endpoint "
                      "(tcp://HOST:PORT, ipc://PATH), got \"http://x:1\"");
  // The timeout is the file's: its line is named.
  EXPECT_EQ(e[1].rfind(quickstart + ":", 0), 0u) << e[1];
  EXPECT_NE(e[1].find(": actors.remote_verifiers.timeout: expected more seconds than heartbeat "
                      "(5), got \"3\""),
            std::string::npos)
      << e[1];
}

TEST(PipelineReaderTest, MetricsAndLogAreReadWithTheirDefaultsAndChecked) {
  auto c = load_pipeline_config(quickstart, {});
  ASSERT_TRUE(c) << c.err().message;
  EXPECT_EQ(c->metrics.listen, "");
  EXPECT_EQ(c->log.level, log_level::info);
  EXPECT_EQ(c->log.file, "adarl.log");
  EXPECT_EQ(c->log.rotate_bytes, 10u << 20);
  EXPECT_EQ(c->log.rotate_files, 3u);
  c = load_pipeline_config(quickstart, {"metrics.listen='[::1]:0'", "log.level=debug",
                                        "log.file=''", "log.rotate_files=5"});
  ASSERT_TRUE(c) << c.err().message;
  EXPECT_EQ(c->metrics.listen, "[::1]:0");
  EXPECT_EQ(c->log.level, log_level::debug);
  EXPECT_EQ(c->log.file, "");
  EXPECT_EQ(c->log.rotate_files, 5u);
  EXPECT_EQ(c->effective.at("log.level"), "debug");
  const auto e = lines(error_of(quickstart, {"metrics.listen=9464", "log.level=verbose",
                                             "log.rotate_bytes=10"}));
  ASSERT_EQ(e.size(), 3u);
  EXPECT_EQ(e[0], quickstart +
                      ": metrics.listen: expected \"\" (off) or HOST:PORT with a port from 0 (any "
                      "free one) to 65535, e.g. 127.0.0.1:9464, got \"9464\"");
  EXPECT_EQ(e[1], quickstart +
                      ": log.level: expected trace, debug, info, warn or error, got \"verbose\"");
  EXPECT_NE(e[2].find("log.rotate_bytes"), std::string::npos) << e[2];
}

TEST(PipelineReaderTest, EveryShippedRunConfigDocumentsTheRunWideKeys) {
  // The keys every kind of run reads alike (the top level, weights:, metrics:, log:) are
  // written out in every run config, so that each file documents them.
  std::function<void(const YAML::Node&, const std::string&, std::set<std::string>&)> keys =
      [&](const YAML::Node& n, const std::string& path, std::set<std::string>& out) {
        for (const auto& kv : n) {
          const auto k = path + kv.first.as<std::string>();
          if (!kv.second.IsMap()) out.insert(k);
          else if (k == "weights" || k == "metrics" || k == "log") keys(kv.second, k + ".", out);
        }
      };
  std::set<std::string> reference;
  keys(YAML::LoadFile(quickstart), "", reference);
  for (const char* k : {"stall_seconds", "weights.path", "metrics.listen", "log.level", "log.file",
                        "log.rotate_bytes", "log.rotate_files"})
    EXPECT_TRUE(reference.count(k)) << k;
  size_t compared = 0;
  for (const auto& entry : std::filesystem::directory_iterator(configs_dir)) {
    const auto stem = entry.path().stem().string();
    if (entry.path().extension() != ".yaml" || stem == "sft" || stem == "simulate") continue;
    std::set<std::string> these;
    keys(YAML::LoadFile(entry.path().string()), "", these);
    EXPECT_EQ(these, reference) << entry.path();
    ++compared;
  }
  EXPECT_GE(compared, 10u);
}

TEST(PipelineReaderTest, BadValueInTheFileNamesItsLine) {
  const auto file = write_file("bad_value.yaml",
                               "tracker:\n  steps: 2\nsampling:\n  temperature: 0\n"
                               "model:\n  d_model: 64\n  n_heads: 5\n");
  const auto e = lines(error_of(file, {}));
  EXPECT_EQ(e, (std::vector<std::string>{
                   file + ":7: model.n_heads: expected a positive divisor of d_model, "
                          "got \"5\"",
                   file + ":4: sampling.temperature: expected a number > 0, got \"0\"",
               }));
}

TEST(PipelineReaderTest, AnErrorElsewhereDoesNotHideAStrategyRangeError) {
  const auto e = error_of(quickstart, {"model.n_heads=3", "strategy.round_size=2"});
  EXPECT_NE(e.find("model.n_heads"), std::string::npos) << e;
  EXPECT_NE(e.find("strategy.round_size"), std::string::npos) << e;
}

TEST(PipelineReaderTest, ARunMustEnd) {
  const auto file = write_file("no_steps.yaml", "tracker:\n  prompts_per_step: 4\n");
  const auto e = error_of(file, {});
  EXPECT_EQ(e, file +
                   ":2: tracker.steps: expected a positive number of training steps "
                   "(a run must end)");
}

TEST(PipelineReaderTest, PromptsPerStepMustFitTheTrainingPrompts) {
  const auto file = write_file("too_many_prompts.yaml",
                               "tasks:\n  train: 8\ntracker:\n  steps: 2\n"
                               "  prompts_per_step: 16\n");
  EXPECT_EQ(error_of(file, {}), file +
                                    ":5: tracker.prompts_per_step: expected at most "
                                    "tasks.train (8), got \"16\"");
  EXPECT_TRUE(load_pipeline_config(file, {"tracker.prompts_per_step=8"}).ok());
}

TEST(PipelineReaderTest, MissingDatasetFileIsAnErrorNamingIt) {
  const auto missing = testing::TempDir() + "/no_such_dataset.jsonl";
  const auto e = error_of(quickstart, {"tasks.dataset=" + missing});
  EXPECT_EQ(e, quickstart + ": tasks.dataset: expected an existing JSONL file, got \"" +
                   missing + "\" (not found)");
  // An existing dataset replaces the suite, whose name is then not checked.
  const auto dataset = write_file("dataset.jsonl", "{}\n");
  auto c = load_pipeline_config(quickstart,
                                {"tasks.dataset=" + dataset, "tasks.suite=poetry"});
  ASSERT_TRUE(c.ok()) << c.err().message;
  EXPECT_EQ(c->tasks.dataset, dataset);
}

TEST(PipelineReaderTest, DatasetFieldsVerifierAndTemplateAreReadAndChecked) {
  const auto dataset = write_file("published.jsonl", "{}\n");
  auto c = load_pipeline_config(
      quickstart, {"tasks.dataset=" + dataset, "tasks.fields.prompt=problem",
                   "tasks.fields.answer=solution", "tasks.verifier=math",
                   "tasks.prompt_template=\"Q: {prompt}\""});
  ASSERT_TRUE(c.ok()) << c.err().message;
  EXPECT_EQ(c->tasks.fields,
            (std::map<std::string, std::string>{{"answer", "solution"}, {"prompt", "problem"}}));
  EXPECT_EQ(c->tasks.verifier, "math");
  EXPECT_EQ(c->tasks.prompt_template, "Q: {prompt}");
  // Not given: nothing recorded, so that configs from before these keys resume equal.
  auto plain = load_pipeline_config(quickstart, {});
  ASSERT_TRUE(plain.ok());
  EXPECT_TRUE(plain->tasks.fields.empty());
  EXPECT_EQ(c->effective.at("tasks.fields.prompt"), "problem");
  for (const auto& [key, value] : plain->effective)
    EXPECT_TRUE(key.rfind("tasks.fields", 0) != 0 && key != "tasks.verifier" &&
                key != "tasks.prompt_template")
        << key;
  // Each problem names its key.
  EXPECT_NE(error_of(quickstart, {"tasks.dataset=" + dataset, "tasks.fields.promt=problem"})
                .find("tasks.fields.promt"),
            std::string::npos);
  EXPECT_NE(error_of(quickstart, {"tasks.dataset=" + dataset, "tasks.fields.prompt=x",
                                  "tasks.fields.answer=x"})
                .find("tasks.fields: answer and prompt both read column \"x\""),
            std::string::npos);
  EXPECT_NE(error_of(quickstart, {"tasks.dataset=" + dataset, "tasks.prompt_template=no slot"})
                .find("tasks.prompt_template: expected \"{prompt}\" once"),
            std::string::npos);
  EXPECT_NE(error_of(quickstart, {"tasks.fields.prompt=problem"})
                .find("tasks.fields: read a dataset's lines: set tasks.dataset too"),
            std::string::npos);
  // verl-style data: tasks.verifiers maps each data_source to a verifier (issue 37).
  auto verl = load_pipeline_config(quickstart, {"tasks.dataset=" + dataset,
                                                "tasks.verifiers.math_dapo=math",
                                                "tasks.verifiers.lighteval/MATH=math"});
  ASSERT_TRUE(verl.ok()) << verl.err().message;
  EXPECT_EQ(verl->tasks.verifiers, (std::map<std::string, std::string>{
                                       {"lighteval/MATH", "math"}, {"math_dapo", "math"}}));
  EXPECT_EQ(verl->effective.at("tasks.verifiers.math_dapo"), "math");
  EXPECT_NE(error_of(quickstart, {"tasks.dataset=" + dataset, "tasks.verifiers.s=\"\""})
                .find("tasks.verifiers: expected data_source: verifier pairs of non-empty names"),
            std::string::npos);
  EXPECT_NE(error_of(quickstart, {"tasks.verifiers.s=math"})
                .find("tasks.verifiers: read a dataset's lines: set tasks.dataset too"),
            std::string::npos);
}

TEST(PipelineReaderTest, FileAndOverrideSyntaxErrorsNameTheFile) {
  const auto missing = testing::TempDir() + "/missing.yaml";
  EXPECT_NE(error_of(missing, {}).find(missing), std::string::npos);
  EXPECT_EQ(error_of(quickstart, {"tracker.steps"}),
            quickstart + ": override \"tracker.steps\": expected KEY.PATH=VALUE");
  const auto broken = write_file("broken.yaml", "tracker: [1, 2\n");
  EXPECT_NE(error_of(broken, {}).find(broken + ":"), std::string::npos);
}

// Found with tests/fuzz/fuzz_overrides: copying a self-referring override value (a YAML
// alias inside its own anchor) to drop its line recursed without end.
TEST(PipelineReaderTest, SelfReferringOverrideIsAnErrorNotACrash) {
  for (const std::string o : {"eval=&a [*a]", "eval=&a {every: *a}"}) {
    const auto message = error_of(quickstart, {o});
    EXPECT_EQ(
        message.rfind(quickstart + ": override \"" + o + "\": a value deeper than 32", 0),
        0u)
        << message;
  }
}

// Found with tests/fuzz/fuzz_pipeline_config: a file name longer than the file system
// allows made std::filesystem throw out of the reader (and the run terminate).
TEST(PipelineReaderTest, FileNameTooLongIsAnErrorNotAnException) {
  const std::string name(300, 'd');
  const auto dataset = error_of(quickstart, {"tasks.dataset=" + name});
  EXPECT_NE(dataset.find("tasks.dataset: expected an existing JSONL file, got \"" + name +
                         "\" (File name too long)"),
            std::string::npos)
      << dataset;
  const auto checkpoint = error_of(quickstart, {"model.base_checkpoint=" + name});
  EXPECT_NE(checkpoint.find("model.base_checkpoint: expected an existing checkpoint, got \"" +
                            name + "\" (File name too long)"),
            std::string::npos)
      << checkpoint;
}

TEST(PipelineReaderTest, DeviceAcceptsCpuAndCudaN) {
  for (const std::string ok : {"cpu", "cuda:0", "cuda:12"}) {
    auto c = load_pipeline_config(quickstart, {"model.device=" + ok});
    EXPECT_TRUE(c.ok()) << ok;
  }
  for (const std::string bad : {"cuda", "cuda:", "cuda:x", "CPU", "mps"})
    EXPECT_NE(error_of(quickstart, {"model.device=" + bad}).find("model.device"),
              std::string::npos)
        << bad;
}

TEST(PipelineReaderTest, DescribeSummarisesStrategyBudgetAndActors) {
  auto c = load_pipeline_config(quickstart, {"actors.generators=2"});
  ASSERT_TRUE(c.ok()) << c.err().message;
  const auto d = describe(*c);
  EXPECT_NE(d.find("quickstart: ada-seq exit balance (n 4, round 8, rounds 4)"),
            std::string::npos)
      << d;
  EXPECT_NE(d.find("150 steps x 16 prompts"), std::string::npos) << d;
  EXPECT_NE(d.find("2 generator(s) x 128 rows"), std::string::npos) << d;
  EXPECT_NE(d.find("suite general (512 train, 128 held out)"), std::string::npos) << d;
  c = load_pipeline_config(configs_dir + "/grpo.yaml", {});
  ASSERT_TRUE(c.ok()) << c.err().message;
  EXPECT_NE(describe(*c).find("grpo: grpo (n 4)"), std::string::npos) << describe(*c);
}

TEST(PipelineReaderTest, ReplicatedLearnerKeysAreReadAndChecked) {
  auto c = load_pipeline_config(quickstart, {"learner.replicas=4", "learner.store=10.0.0.5:2951",
                                             "learner.collective_timeout=7.5",
                                             "learner.check_replicas=true",
                                             "learner.device=cuda:1"});
  ASSERT_TRUE(c.ok()) << c.err().message;
  EXPECT_EQ(c->learner.replicas.replicas, 4u);
  EXPECT_EQ(c->learner.replicas.store, "10.0.0.5:2951");
  EXPECT_EQ(c->learner.replicas.collective_timeout, 7.5);
  EXPECT_TRUE(c->learner.replicas.check_every_step);
  EXPECT_EQ(c->learner.device, "cuda:1");
  EXPECT_EQ(c->policy.device, "cpu");  // the generators' stays
  EXPECT_NE(describe(*c).find("x 4 replicas (store 10.0.0.5:2951)"), std::string::npos);
  auto d = load_pipeline_config(quickstart, {});
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->learner.replicas.replicas, 1u);
  EXPECT_TRUE(d->learner.device.empty());
  for (const std::string bad : {"localhost", ":29500", "host:0", "host:65536", "h:2x"})
    EXPECT_NE(error_of(quickstart, {"learner.store=" + bad})
                  .find("learner.store: expected HOST:PORT with a port from 1 to 65535"),
              std::string::npos)
        << bad;
  EXPECT_NE(error_of(quickstart, {"learner.replicas=0"}).find("learner.replicas"),
            std::string::npos);
  EXPECT_NE(error_of(quickstart, {"learner.device=gpu"}).find("learner.device"),
            std::string::npos);
  EXPECT_NE(error_of(configs_dir + "/sim-smoke.yaml", {"learner.replicas=2"})
                .find("learner.replicas: expected 1 with model.kind simulated"),
            std::string::npos);
  // bf16 autocast is CUDA only: asked for on a CPU learner it is refused, not ignored.
  EXPECT_FALSE(d->learner.autocast_bf16);
  EXPECT_NE(error_of(quickstart, {"learner.autocast_bf16=true"})
                .find("learner.autocast_bf16: expected false unless the learner runs on CUDA "
                      "(bf16 autocast is CUDA only; the learner's device is \"cpu\")"),
            std::string::npos)
      << error_of(quickstart, {"learner.autocast_bf16=true"});
  auto cuda = load_pipeline_config(quickstart, {"learner.autocast_bf16=true", "learner.device=cuda:0"});
  ASSERT_TRUE(cuda.ok()) << cuda.err().message;
  EXPECT_TRUE(cuda->learner.autocast_bf16);
}

// yaml-cpp keeps the first of two equal keys and drops the second without a word.
TEST(PipelineReaderTest, ARepeatedKeyIsRefusedWithBothLines) {
  const auto file = write_file("dup.yaml", "seed: 1\ntracker:\n  steps: 5\n  max_lag: 1\n"
                                           "  steps: 50\n");
  EXPECT_EQ(error_of(file, {}), file + ":5: duplicate key \"steps\" (first at line 3): a "
                                       "repeated key would be ignored; keep one");
  const auto top = write_file("dup-top.yaml", "seed: 1\nname: a\nseed: 2\n");
  EXPECT_NE(error_of(top, {}).find(top + ":3: duplicate key \"seed\" (first at line 1)"),
            std::string::npos);
}

TEST(PipelineReaderTest, ADirectoryAsTheConfigIsNamed) {
  EXPECT_EQ(error_of(testing::TempDir(), {}),
            testing::TempDir() + ": is a directory; expected a YAML file");
}

TEST(PipelineReaderTest, StringValuesAreBoundedAndNotEchoedWhole) {
  const std::string huge(100000, 'x');
  const auto long_name = error_of(quickstart, {"name=" + std::string(1000, 'x')});
  EXPECT_NE(long_name.find("name: expected a run name of 1 to 128 characters"), std::string::npos)
      << long_name.substr(0, 300);
  EXPECT_LT(long_name.size(), 1000u);  // the value is not echoed whole
  const auto long_path = error_of(quickstart, {"tasks.dataset=" + huge});
  EXPECT_NE(long_path.find("tasks.dataset: expected at most 4096 characters, got 100000"),
            std::string::npos)
      << long_path.substr(0, 300);
  EXPECT_LT(long_path.size(), 1000u);
  EXPECT_NE(error_of(quickstart, {"name=a\tb"}).find("without control characters"),
            std::string::npos);
}

}  // namespace
}  // namespace adarl

// Found with tests/fuzz/fuzz_pipeline_config: reading a mapping added every absent
// sub-mapping it looked up (tracker.estimator) to the document, so a mapping used again
// through a YAML alias (tasks: *t) read differently the second time, and a config read
// twice (a resume check, a report) could change its verdict.
TEST(PipelineReaderTest, ReadingDoesNotChangeTheDocument) {
  const std::string text =
      "{name: x, tracker: &t {steps: 3, prompts_per_step: 2}, eval: *t, tasks: *t}\n";
  const YAML::Node root = YAML::Load(text);
  const std::string before = YAML::Dump(root);
  const auto first = adarl::read_pipeline_config(root, "a.yaml", "a");
  const auto again = adarl::read_pipeline_config(root, "a.yaml", "a");
  EXPECT_EQ(YAML::Dump(root), before);
  ASSERT_FALSE(first.ok());
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(first.err().message, again.err().message);
  EXPECT_EQ(first.err().message.find("estimator"), std::string::npos)
      << first.err().message;
}
