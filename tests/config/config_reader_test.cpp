// config_reader (typed, path-aware YAML reading) and strategy_reader (the strategy
// section).
#include "config/config_reader.hpp"

#include <gtest/gtest.h>

#include "config/strategy_reader.hpp"

namespace adarl {
namespace {

/// A parsed document and the errors of reading it, as "x.yaml".
struct doc {
  explicit doc(const std::string& yaml)
      : root(YAML::Load(yaml)), errors(std::make_shared<config_errors>()) {
    errors->file = "x.yaml";
  }
  config_map top() { return config_map(root, "", errors); }

  YAML::Node root;
  std::shared_ptr<config_errors> errors;
};

TEST(ConfigReaderTest, ReadsTypedValuesAndLeavesAbsentKeysAlone) {
  doc d(
      "tracker:\n  rounds: 6\n  ratio: 0.25\n  name: fast\n  on: true\n  ids: [3, 5]\n");
  auto top = d.top();
  auto t = top.child("tracker");
  uint32_t rounds = 1, missing = 42;
  double ratio = 0;
  std::string name;
  bool on = false;
  std::vector<uint64_t> ids;
  t.get("rounds", rounds, 1);
  t.get("missing", missing);
  t.get("ratio", ratio);
  t.get("name", name);
  t.get("on", on);
  t.get("ids", ids);
  t.finish();
  top.finish();
  EXPECT_TRUE(d.errors->empty()) << d.errors->joined();
  EXPECT_EQ(rounds, 6u);
  EXPECT_EQ(missing, 42u);
  EXPECT_DOUBLE_EQ(ratio, 0.25);
  EXPECT_EQ(name, "fast");
  EXPECT_TRUE(on);
  EXPECT_EQ(ids, (std::vector<uint64_t>{3, 5}));
}

TEST(ConfigReaderTest, WrongTypeNamesFileLineKeyAndValue) {
  doc d("model: small\ntracker:\n  rounds: four\n");
  auto top = d.top();
  top.allow("model");
  auto t = top.child("tracker");
  uint32_t rounds = 3;
  t.get("rounds", rounds, /*min=*/1);
  ASSERT_EQ(d.errors->messages.size(), 1u);
  EXPECT_EQ(d.errors->messages[0],
            "x.yaml:3: tracker.rounds: expected a positive integer, got \"four\"");
  EXPECT_EQ(rounds, 3u);  // unchanged on error
}

TEST(ConfigReaderTest, RangeAndSignErrorsAreReported) {
  doc d("a: 0\nb: -2\nc: 4294967296\nd: [1, x]\ne: nan-ish\nf: [1]\n");
  auto m = d.top();
  uint32_t a = 9, b = 9, c = 9;
  std::vector<uint64_t> list;
  double e = 0;
  std::string f;
  m.get("a", a, /*min=*/2);
  m.get("b", b);
  m.get("c", c);
  m.get("d", list);
  m.get("e", e);
  m.get("f", f);
  const std::vector<std::string> expected = {
      "x.yaml:1: a: expected an integer >= 2, got \"0\"",
      "x.yaml:2: b: expected a non-negative integer, got \"-2\"",
      "x.yaml:3: c: expected an integer below 2^32, got \"4294967296\"",
      "x.yaml:4: d[1]: expected a non-negative integer, got \"x\"",
      "x.yaml:5: e: expected a number, got \"nan-ish\"",
      "x.yaml:6: f: expected a string, got a list",
  };
  EXPECT_EQ(d.errors->messages, expected);
  EXPECT_EQ(a, 9u);
}

TEST(ConfigReaderTest, UnknownKeysAreReportedWithTheirPathAndLine) {
  doc d("tracker:\n  rounds: 2\n  roundz: 3\nextra: 1\n");
  auto top = d.top();
  auto t = top.child("tracker");
  uint32_t rounds = 0;
  t.get("rounds", rounds);
  t.finish();
  top.finish();
  const std::vector<std::string> expected = {"x.yaml:3: tracker.roundz: unknown key",
                                             "x.yaml:4: extra: unknown key"};
  EXPECT_EQ(d.errors->messages, expected);
  EXPECT_EQ(d.errors->joined(), expected[0] + "\n" + expected[1] + "\n");
}

TEST(ConfigReaderTest, ChildAndListCheckTheirShape) {
  doc d("tracker: 3\nworkers:\n  - {name: a}\n  - 7\n");
  auto top = d.top();
  auto t = top.child("tracker");
  auto workers = top.list("workers");
  EXPECT_EQ(workers.size(), 1u);
  const std::vector<std::string> expected = {
      "x.yaml:1: tracker: expected a mapping, got \"3\"",
      "x.yaml:4: workers[1]: expected a mapping, got \"7\""};
  EXPECT_EQ(d.errors->messages, expected);
  EXPECT_FALSE(t.has("anything"));
  EXPECT_EQ(workers[0].path_of("name"), "workers[0].name");
}

TEST(ConfigReaderTest, LoadYamlFileNamesTheFile) {
  auto missing = load_yaml_file("/nonexistent/cfg.yaml");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.err().message,
            "/nonexistent/cfg.yaml: cannot open the file (No such file or directory)");
  auto loaded = load_yaml_file(std::string(ADARL_TEST_DATA) + "/replay_seq_pos.yaml");
  ASSERT_TRUE(loaded.ok()) << loaded.err().message;
  EXPECT_EQ((*loaded)["strategy"]["round_size"].as<int>(), 4);
}

TEST(ApplyOverrideTest, CreatesNestedMapsAndKeepsYamlTypes) {
  YAML::Node root(YAML::NodeType::Map);
  ASSERT_TRUE(apply_override(root, "strategy.seq.max_rounds=6").ok());
  ASSERT_TRUE(apply_override(root, "strategy.std_norm=true").ok());
  ASSERT_TRUE(apply_override(root, "strategy.ids=[1, 2]").ok());
  ASSERT_TRUE(apply_override(root, "strategy.kind=ada-seq").ok());
  ASSERT_TRUE(apply_override(root, "strategy.threshold=0.5").ok());
  EXPECT_EQ(root["strategy"]["seq"]["max_rounds"].as<int>(), 6);
  EXPECT_TRUE(root["strategy"]["std_norm"].as<bool>());
  ASSERT_TRUE(root["strategy"]["ids"].IsSequence());
  EXPECT_EQ(root["strategy"]["ids"].size(), 2u);
  EXPECT_EQ(root["strategy"]["kind"].as<std::string>(), "ada-seq");
  EXPECT_DOUBLE_EQ(root["strategy"]["threshold"].as<double>(), 0.5);
  // The earlier values are still there: setting a sibling rewrites nothing else.
  EXPECT_EQ(root["strategy"]["seq"]["max_rounds"].as<int>(), 6);
}

TEST(ApplyOverrideTest, ReplacesAnExistingValueAndReadsBackTyped) {
  YAML::Node root = YAML::Load("strategy:\n  kind: ada-seq\n  group_size: 4\n");
  ASSERT_TRUE(apply_override(root, "strategy.group_size=8").ok());
  auto errors = std::make_shared<config_errors>();
  config_map top(root, "", errors);
  auto s = top.child("strategy");
  const auto c = read_strategy(s);
  EXPECT_TRUE(errors->empty()) << errors->joined();
  EXPECT_EQ(c.seq.group_size, 8u);
}

TEST(ApplyOverrideTest, MalformedOverridesAreErrorsQuotingThem) {
  YAML::Node root = YAML::Load("strategy: grpo\n");
  auto no_eq = apply_override(root, "strategy.kind");
  ASSERT_FALSE(no_eq.ok());
  EXPECT_EQ(no_eq.err().message, "override \"strategy.kind\": expected KEY.PATH=VALUE");
  auto no_key = apply_override(root, "=3");
  ASSERT_FALSE(no_key.ok());
  EXPECT_EQ(no_key.err().message, "override \"=3\": expected KEY.PATH=VALUE");
  auto empty_part = apply_override(root, "a..b=1");
  ASSERT_FALSE(empty_part.ok());
  EXPECT_EQ(empty_part.err().message, "override \"a..b=1\": empty key in the path");
  auto through_scalar = apply_override(root, "strategy.kind=grpo");
  ASSERT_FALSE(through_scalar.ok());
  EXPECT_EQ(through_scalar.err().message,
            "override \"strategy.kind=grpo\": strategy is not a mapping");
  EXPECT_EQ(root["strategy"].as<std::string>(), "grpo");  // untouched
}

// Found with tests/fuzz/fuzz_overrides: YAML aliases make a value that contains itself or
// doubles at each level, and a key path of 65,000 keys recursed as deep; copying such a
// value (pipeline_reader's without_marks) or setting such a path overflowed the stack.
TEST(ApplyOverrideTest, SelfReferringHugeOrTooDeepOverridesAreErrors) {
  YAML::Node root = YAML::Load("eval: {samples: 0}\n");
  const std::string limits =
      "a value deeper than 32 levels or larger than 10000 nodes "
      "(with aliases expanded; does one refer to itself?)";
  for (const std::string o : {"eval=&a [*a]", "eval=&a {x: *a}"}) {
    auto r = apply_override(root, o);
    ASSERT_FALSE(r.ok()) << o;
    EXPECT_EQ(r.err().message, "override \"" + o + "\": " + limits);
  }
  std::string laughs = "eval=[&l0 [1, 1]";  // 2^20 nodes once expanded
  for (int i = 1; i <= 20; ++i)
    laughs += ", &l" + std::to_string(i) + " [*l" + std::to_string(i - 1) + ", *l" +
              std::to_string(i - 1) + "]";
  laughs += "]";
  EXPECT_FALSE(apply_override(root, laughs).ok());
  std::string path = "a";
  for (int i = 0; i < 65000; ++i) path += ".a";
  auto long_path = apply_override(root, path + "=1");
  ASSERT_FALSE(long_path.ok());
  EXPECT_NE(long_path.err().message.find("a key path of more than 32 keys"),
            std::string::npos);
  EXPECT_EQ(root["eval"]["samples"].as<int>(), 0);  // untouched
  // At the limits: a value of 32 levels, a path of 32 keys, an alias used twice.
  const auto nested = [](int n) { return std::string(n, '[') + std::string(n, ']'); };
  ASSERT_TRUE(apply_override(root, "eval.samples=" + nested(32)).ok());
  EXPECT_FALSE(apply_override(root, "eval.samples=" + nested(33)).ok());
  ASSERT_TRUE(apply_override(root, "eval.x=[&b [1], *b]").ok());
  EXPECT_EQ(root["eval"]["x"][1][0].as<int>(), 1);
  std::string deep = "k";
  for (int i = 1; i < 32; ++i) deep += ".k";
  EXPECT_TRUE(apply_override(root, deep + "=1").ok());
}

/// Reads `yaml`'s strategy section; returns the config and the error messages.
std::pair<strategy_config, std::vector<std::string>> read(const std::string& yaml) {
  doc d(yaml);
  auto top = d.top();
  auto s = top.child("strategy");
  auto c = read_strategy(s);
  s.finish();
  return {c, d.errors->messages};
}

TEST(StrategyReaderTest, ReadsTheChosenKindsKeys) {
  auto [c, errors] = read(
      "strategy:\n  kind: ada-seq\n  group_size: 6\n  round_size: 12\n  exit: pos\n"
      "  std_norm: true\n  objective: power\n  objective_alpha: 0.3\n");
  EXPECT_TRUE(errors.empty());
  EXPECT_EQ(c.kind, strategy_kind::ada_seq);
  EXPECT_EQ(c.seq.group_size, 6u);
  EXPECT_EQ(c.seq.round_size, 12u);
  EXPECT_EQ(c.seq.exit, exit_rule::pos);
  EXPECT_TRUE(c.seq.std_norm);
  EXPECT_EQ(c.seq.weight_objective.kind, objective_kind::power);
  EXPECT_DOUBLE_EQ(c.seq.weight_objective.alpha, 0.3);

  auto [e, e_errors] =
      read("strategy:\n  kind: ada-est-online\n  budget: 64\n  wave: 2\n");
  EXPECT_TRUE(e_errors.empty());
  EXPECT_EQ(e.est.budget, 64u);
  EXPECT_EQ(e.est.wave, 2u);
}

TEST(StrategyReaderTest, KeysOfOtherKindsAreUnknown) {
  EXPECT_EQ(read("strategy:\n  kind: grpo\n  round_size: 8\n").second,
            std::vector<std::string>{"x.yaml:3: strategy.round_size: unknown key"});
  EXPECT_EQ(read("strategy:\n  kind: ada-est\n  wave: 2\n").second,
            std::vector<std::string>{"x.yaml:3: strategy.wave: unknown key"});
  EXPECT_EQ(read("strategy:\n  kind: dr-grpo\n  std_eps: 0.1\n").second,
            std::vector<std::string>{"x.yaml:3: strategy.std_eps: unknown key"});
  EXPECT_TRUE(read("strategy:\n  kind: dapo\n  extra_factor: 1.5\n").second.empty());
}

TEST(StrategyReaderTest, ValidationErrorsPointAtTheirKey) {
  EXPECT_EQ(
      read("strategy:\n  kind: ada-seq\n  group_size: 4\n  round_size: 2\n").second,
      std::vector<std::string>{
          "x.yaml:4: strategy.round_size: expected round_size >= group_size (M >= n)"});
  // Every issue is reported; one about an absent key points at the section.
  EXPECT_EQ(
      read("strategy:\n  kind: ada-est\n  n_min: 4\n  n_max: 3\n").second,
      (std::vector<std::string>{"x.yaml:4: strategy.n_max: expected n_max >= n_min",
                                "x.yaml:2: strategy.samples_per_prompt: expected n_min "
                                "<= samples_per_prompt <= n_max"}));
  EXPECT_EQ(read("strategy:\n  kind: ada-seq\n  objective: power\n  objective_alpha: 2\n")
                .second,
            std::vector<std::string>{
                "x.yaml:4: strategy.objective_alpha: expected 0 < alpha < 1 "
                "for the power objective"});
  EXPECT_EQ(read("strategy:\n  kind: grpo\n  group_size: 1\n").second,
            std::vector<std::string>{
                "x.yaml:3: strategy.group_size: expected an integer in [2, 65536]"});
  EXPECT_EQ(read("strategy:\n  kind: ppo\n").second,
            std::vector<std::string>{
                "x.yaml:2: strategy.kind: unknown strategy \"ppo\" (known: "
                "grpo, dr-grpo, dapo, ada-seq, ada-est, ada-est-online, ada-budget)"});
  EXPECT_EQ(
      read("strategy:\n  kind: ada-seq\n  exit: first\n").second,
      std::vector<std::string>{
          "x.yaml:3: strategy.exit: unknown exit rule \"first\" (known: pos, balance)"});
}

TEST(StrategyReaderTest, StartsFromTheGivenDefaults) {
  strategy_config defaults;
  defaults.seq.max_rounds = 7;
  doc d("strategy:\n  kind: ada-seq\n  round_size: 16\n");
  auto top = d.top();
  auto s = top.child("strategy");
  const auto c = read_strategy(s, defaults);
  EXPECT_TRUE(d.errors->empty());
  EXPECT_EQ(c.seq.max_rounds, 7u);
  EXPECT_EQ(c.seq.round_size, 16u);
}

}  // namespace
}  // namespace adarl
