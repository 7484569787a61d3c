// `adarl replay` on bad input: exit status 2, one clear message, nothing written.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "experiments/replay.hpp"
#include "experiments/replay_log.hpp"
#include "tests/experiments/replay_fixtures.hpp"

namespace adarl {
namespace {

using testing::data;
using testing::with_strategy;

/// Runs the command as the CLI would; stdin is `stdin_text`.
struct command_run {
  int status = -1;
  std::string out, err;
};
command_run run(const replay_options& o, const std::string& input,
                const std::string& stdin_text = "", const std::string& output = "") {
  std::istringstream in(stdin_text);
  std::ostringstream out, err;
  command_run r;
  r.status = run_replay_command(o, input, output, in, out, err);
  r.out = out.str();
  r.err = err.str();
  return r;
}

/// Expects exit status 2, no output at all, and exactly `message` on stderr.
void expect_bad_input(const command_run& r, const std::string& message) {
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "adarl replay: " + message + "\n");
}

TEST(ReplayErrorsTest, MalformedLineNamesItsLineCountingEmptyLines) {
  const auto f = data("replay_bad_json.jsonl");
  auto r = run(with_strategy("ada-seq"), f);
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err.rfind("adarl replay: " + f + ":3: not valid JSON (", 0), 0u) << r.err;
}

TEST(ReplayErrorsTest, MissingRewardsNamesLineAndPrompt) {
  const auto f = data("replay_bad_missing.jsonl");
  expect_bad_input(run(with_strategy("ada-seq"), f),
                   f + ":2: prompt \"p2\": missing \"rewards\"");
}

TEST(ReplayErrorsTest, StreamShorterThanTheStrategyNeedsNamesLinePromptAndCounts) {
  const auto f = data("replay_bad_short.jsonl");
  // p17 has no positive in its 8 rewards: Seq asks for a second round of 8.
  expect_bad_input(
      run(with_strategy("ada-seq"), f),
      f + ":2: prompt \"p17\": the strategy needs at least 16 rewards, the line has 8");
  // The same log is long enough for GRPO's 4 samples.
  EXPECT_EQ(run(with_strategy("grpo"), f).status, 0);
}

TEST(ReplayErrorsTest, DuplicateIdNamesBothLines) {
  const auto f = data("replay_bad_duplicate.jsonl");
  expect_bad_input(run(with_strategy("grpo"), f),
                   f + ":3: prompt \"p1\": duplicate id (first on line 1)");
}

TEST(ReplayErrorsTest, NonNumericRewardNamesItsPosition) {
  const auto f = data("replay_bad_reward.jsonl");
  expect_bad_input(
      run(with_strategy("grpo"), f),
      f + ":2: prompt \"p2\": rewards[1]: expected a number in [0, 1], got \"1\"");
}

TEST(ReplayErrorsTest, EveryBadLineFromStdinIsReportedWithItsLine) {
  const std::string ok = R"({"id": "a", "rewards": [0, 1, 0, 0]})";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"[0, 1]", "<stdin>:2: expected a JSON object, got array"},
      {R"({"rewards": [0, 1]})", "<stdin>:2: missing \"id\""},
      {R"({"id": "", "rewards": [0, 1]})",
       "<stdin>:2: \"id\": expected a non-empty string, got \"\""},
      {R"({"id": 17, "rewards": [0, 1]})",
       "<stdin>:2: \"id\": expected a non-empty string, got 17"},
      {R"({"id": "b", "rewards": 1})",
       "<stdin>:2: prompt \"b\": \"rewards\": expected a list of numbers, got 1"},
      {R"({"id": "b", "rewards": [1, true]})",
       "<stdin>:2: prompt \"b\": rewards[1]: expected a number in [0, 1], got true"},
      {R"({"id": "b", "rewards": [1, 1e39]})",
       "<stdin>:2: prompt \"b\": rewards[1]: expected a number in [0, 1], got 1e+39"},
      // Outside [0, 1]: [5, -3] once gave GRPO an advantage of 4.5.
      {R"({"id": "b", "rewards": [5, -3, 0, 1]})",
       "<stdin>:2: prompt \"b\": rewards[0]: expected a number in [0, 1], got 5"},
      {R"({"id": "b", "rewards": [1, -0.5, 0, 1]})",
       "<stdin>:2: prompt \"b\": rewards[1]: expected a number in [0, 1], got -0.5"},
      {R"({"id": "b", "rewards": [0, 1, 0, 0], "p_hat": 1.5})",
       "<stdin>:2: prompt \"b\": \"p_hat\": expected a number in [0, 1], got 1.5"},
      {R"({"id": "b", "rewards": [0, 1], "tokens": [3]})",
       "<stdin>:2: prompt \"b\": \"tokens\": expected a list of 2 token counts (one per "
       "reward), got [3]"},
      {R"({"id": "b", "rewards": [0, 1], "tokens": [3, -1]})",
       "<stdin>:2: prompt \"b\": tokens[1]: expected a non-negative integer below 2^32, "
       "got -1"},
      {R"({"id": "b", "rewards": [0, 1, 0]})",
       "<stdin>:2: prompt \"b\": the strategy needs at least 4 rewards, the line has 3"},
  };
  for (const auto& [line, message] : cases) {
    SCOPED_TRACE(line);
    expect_bad_input(run(with_strategy("grpo"), "-", ok + "\n" + line + "\n"), message);
  }
}

TEST(ReplayErrorsTest, NumberOutOfRangeIsAMalformedLine) {
  auto r = run(with_strategy("grpo"), "-", R"({"id": "b", "rewards": [1, 1e400]})");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err.rfind("adarl replay: <stdin>:1: not valid JSON (", 0), 0u) << r.err;
}

// Found with tests/fuzz/fuzz_replay_log: nlohmann parses any nesting, but printing the
// value for a message recursed once per level and overflowed the stack.
TEST(ReplayErrorsTest, LineNestedDeeperThanTheLimitIsAMalformedLine) {
  const std::string deep(100000, '[');
  auto r = run(with_strategy("grpo"), "-", R"({"id": "a", "rewards": )" + deep + "}");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err,
            "adarl replay: <stdin>:1: not valid JSON (nested deeper than 100 levels)\n");
  // 100 levels (the line's object and 99 arrays) are still read, brackets in strings
  // do not count.
  std::istringstream at_limit(R"({"id": "[[[", "rewards": [1], "x": )" +
                              std::string(99, '[') + std::string(99, ']') + "}");
  auto log = read_replay_log(at_limit, "log");
  ASSERT_TRUE(log.ok()) << log.err().message;
  EXPECT_EQ(log->front().id, "[[[");
}

TEST(ReplayErrorsTest, EmptyLogAndMissingFileAreErrors) {
  expect_bad_input(run(with_strategy("grpo"), "-", "\n  \n"),
                   "<stdin>: no prompts (every line is empty)");
  expect_bad_input(run(with_strategy("grpo"), data("no_such.jsonl")),
                   data("no_such.jsonl") + ": cannot open the file");
}

TEST(ReplayErrorsTest, OptionErrorsNameTheFlagOrKey) {
  const auto f = data("replay_small.jsonl");
  auto o = with_strategy("grpo");
  o.flags.round_size = 8;
  expect_bad_input(run(o, f), "--round-size: not a parameter of grpo");

  o = with_strategy("ada-est");
  o.flags.wave = 2;
  expect_bad_input(run(o, f), "--wave: not a parameter of ada-est");

  o = with_strategy("ada-seq");
  o.flags.group_size = 4;
  o.flags.round_size = 2;
  expect_bad_input(run(o, f), "--round-size: expected round_size >= group_size (M >= n)");

  o = with_strategy("ada-seq");
  o.flags.group_size = 16;  // the default round_size 8 is now too small
  expect_bad_input(run(o, f),
                   "round_size (strategy.round_size or --round-size): expected "
                   "round_size >= group_size (M >= n)");

  o = with_strategy("ada-seq");
  o.flags.exit = "first";
  expect_bad_input(run(o, f),
                   "--exit: unknown exit rule \"first\" (known: pos, balance)");

  expect_bad_input(
      run(with_strategy("ppo"), f),
      "--strategy: unknown strategy \"ppo\" (known: grpo, dr-grpo, dapo, ada-seq, "
      "ada-est, ada-est-online, ada-budget)");
  expect_bad_input(run(replay_options{}, f),
                   "no strategy: give --strategy or strategy.kind in the --config file");

  o = with_strategy("ada-est");
  o.flags.budget = 4096;
  expect_bad_input(run(o, f),
                   "budget 4096: 6 prompts with n_min 2 and n_max 32 take between "
                   "12 and 192 samples");

  o = with_strategy("grpo");
  o.batch_size = 2;
  expect_bad_input(run(o, f),
                   "--batch-size: only dapo draws prompts beyond the batch; grpo "
                   "uses every line as the batch");
  o = with_strategy("dapo");
  o.batch_size = 7;
  expect_bad_input(run(o, f),
                   "--batch-size 7: expected between 1 and the 6 prompts of the input");
}

TEST(ReplayErrorsTest, ConfigErrorsNameFileLineAndKey) {
  replay_options o;
  o.config_file = data("replay_bad_config.yaml");
  const auto& c = o.config_file;
  expect_bad_input(
      run(o, data("replay_small.jsonl")),
      c + ":4: strategy.group_size: expected a non-negative integer, got \"four\"\n" + c +
          ":3: strategy.rounds: unknown key");
  o.config_file = data("no_such.yaml");
  expect_bad_input(run(o, data("replay_small.jsonl")),
                   o.config_file + ": cannot open the file (No such file or directory)");
}

TEST(ReplayErrorsTest, OutputFileAppearsOnlyWhenTheRunSucceeds) {
  const auto dir = std::filesystem::temp_directory_path() / "adarl_replay_errors_test";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const auto out = (dir / "out.jsonl").string();

  auto bad = run(with_strategy("ada-seq"), data("replay_bad_short.jsonl"), "", out);
  EXPECT_EQ(bad.status, 2);
  EXPECT_FALSE(std::filesystem::exists(out));
  EXPECT_FALSE(std::filesystem::exists(out + ".tmp"));

  auto good = run(with_strategy("ada-seq"), data("replay_small.jsonl"), "", out);
  EXPECT_EQ(good.status, 0) << good.err;
  EXPECT_EQ(good.out, "");  // written to the file, not to stdout
  EXPECT_FALSE(std::filesystem::exists(out + ".tmp"));
  std::ifstream f(out);
  std::string line, last;
  int lines = 0;
  while (std::getline(f, line)) ++lines, last = line;
  EXPECT_EQ(lines, 7);
  EXPECT_EQ(last.rfind(R"({"summary":)", 0), 0u);

  // An output path that cannot be written is a failure (1), not bad input.
  auto unwritable = run(with_strategy("ada-seq"), data("replay_small.jsonl"), "",
                        (dir / "missing" / "out.jsonl").string());
  EXPECT_EQ(unwritable.status, 1);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace adarl
