// `adarl replay` in-process: what each strategy spends and keeps on logged rewards.
#include "experiments/replay.hpp"
#include "tests/experiments/replay_fixtures.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <numeric>
#include <sstream>

namespace adarl {
namespace {

using testing::data;
using testing::with_strategy;

result<replay_report> replay_file(const std::string& file, const replay_options& o) {
  std::ifstream in(data(file));
  return run_replay(o, in, file);
}

result<replay_report> replay_text(const std::string& text, const replay_options& o) {
  std::istringstream in(text);
  return run_replay(o, in, "log.jsonl");
}

/// The replayed group of prompt `id`; fails the test when absent.
const replay_group& group_of(const replay_report& r, const std::string& id) {
  for (const auto& g : r.groups)
    if (g.id == id) return g;
  ADD_FAILURE() << "no group for " << id;
  static const replay_group none;
  return none;
}

void expect_floats(const std::vector<float>& actual,
                   const std::vector<double>& expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i)
    EXPECT_NEAR(actual[i], expected[i], 1e-6) << "at " << i;
}

using indices = std::vector<uint32_t>;

TEST(ReplayTest, SeqBalanceKeepsFirstTwoPositivesAndNegativesCentredOnThePool) {
  auto r = replay_file("replay_small.jsonl", with_strategy("ada-seq"));
  ASSERT_TRUE(r.ok()) << r.err().message;
  // p1: round 1 = 0 1 0 0 1 0 0 0 has 2 positives and 6 negatives: balance exit.
  const auto& p1 = group_of(*r, "p1").group;
  EXPECT_EQ(p1.exit, exit_kind::balance);
  EXPECT_EQ(p1.rounds, 1u);
  EXPECT_EQ(p1.samples_used, 8u);
  EXPECT_EQ(p1.kept, (indices{0, 1, 2, 4}));
  EXPECT_FLOAT_EQ(p1.baseline, 0.25f);  // 2 / 8 over the whole pool
  expect_floats(p1.advantages, {-0.25, 0.75, -0.25, 0.75});
  // p2: one positive in round 1 (index 6), a second in round 2 (index 10).
  const auto& p2 = group_of(*r, "p2").group;
  EXPECT_EQ(p2.rounds, 2u);
  EXPECT_EQ(p2.samples_used, 16u);
  EXPECT_EQ(p2.kept, (indices{0, 1, 6, 10}));
  expect_floats(p2.advantages, {-0.125, -0.125, 0.875, 0.875});
  // p5: mostly right; the second negative comes at index 10.
  const auto& p5 = group_of(*r, "p5").group;
  EXPECT_EQ(p5.kept, (indices{0, 1, 7, 10}));
  EXPECT_EQ(p5.positives, 14u);
  expect_floats(p5.advantages, {0.125, 0.125, -0.875, -0.875});
  // p6: 0.5 is a negative (threshold 0.7) but the advantage uses the raw reward.
  const auto& p6 = group_of(*r, "p6");
  EXPECT_EQ(p6.group.kept, (indices{0, 1, 2, 3}));
  EXPECT_EQ(p6.logged_rewards, (std::vector<double>{0.5, 1, 0, 1}));
  expect_floats(p6.group.advantages, {0.125, 0.625, -0.375, 0.625});
}

TEST(ReplayTest, SeqFallbackKeepsOneClassGroupsWithZeroAdvantage) {
  auto r = replay_file("replay_small.jsonl", with_strategy("ada-seq"));
  ASSERT_TRUE(r.ok()) << r.err().message;
  const auto& p3 = group_of(*r, "p3").group;  // all wrong
  EXPECT_EQ(p3.exit, exit_kind::fallback_missing_positives);
  EXPECT_EQ(p3.rounds, 4u);
  EXPECT_EQ(p3.samples_used, 32u);
  EXPECT_EQ(p3.kept, (indices{0, 1, 2, 3}));
  expect_floats(p3.advantages, {0, 0, 0, 0});
  const auto& p4 = group_of(*r, "p4").group;  // all right
  EXPECT_EQ(p4.exit, exit_kind::fallback_missing_negatives);
  EXPECT_FLOAT_EQ(p4.baseline, 1.f);
  expect_floats(p4.advantages, {0, 0, 0, 0});
}

TEST(ReplayTest, SeqSummaryCountsTheWholePools) {
  auto r = replay_file("replay_small.jsonl", with_strategy("ada-seq"));
  ASSERT_TRUE(r.ok()) << r.err().message;
  EXPECT_EQ(r->spent.samples, 8u + 16 + 32 + 32 + 16 + 8);
  EXPECT_EQ(r->summary.samples, r->spent.samples);
  EXPECT_EQ(r->summary.kept_samples, 24u);
  EXPECT_EQ(r->summary.max_samples, 32u);
  EXPECT_DOUBLE_EQ(r->summary.zero_gradient_fraction(), 2.0 / 6);
  // First-round means: 2/8, 1/8, 0, 1, 7/8, 3.4/8.
  EXPECT_NEAR(r->summary.real_reward(), (0.25 + 0.125 + 0 + 1 + 0.875 + 0.425) / 6, 1e-6);
  EXPECT_EQ(r->summary.rounds, (std::vector<uint32_t>{0, 2, 2, 0, 2}));
  EXPECT_EQ(r->summary.exits_of(exit_kind::balance), 4u);
}

TEST(ReplayTest, SeqPosExitStopsAfterTheRoundWithAPositive) {
  auto o = with_strategy("ada-seq");
  o.flags.exit = "pos";
  // Round 1 all wrong, round 2 has one right answer at index 11.
  auto r =
      replay_text(R"({"id": "a", "rewards": [0,0,0,0,0,0,0,0, 0,0,0,1,0,0,0,0]})", o);
  ASSERT_TRUE(r.ok()) << r.err().message;
  const auto& a = r->groups.at(0).group;
  EXPECT_EQ(a.exit, exit_kind::pos);
  EXPECT_EQ(a.rounds, 2u);
  EXPECT_EQ(a.samples_used, 16u);
  EXPECT_EQ(a.kept, (indices{0, 1, 2, 11}));  // the only positive, then 3 negatives
  expect_floats(a.advantages, {-1.0 / 16, -1.0 / 16, -1.0 / 16, 15.0 / 16});
}

TEST(ReplayTest, StdNormDividesByTheUnbiasedStdOfThePool) {
  auto o = with_strategy("ada-seq");
  o.flags.std_norm = true;
  auto r = replay_file("replay_small.jsonl", o);
  ASSERT_TRUE(r.ok()) << r.err().message;
  // 2 positives in a pool of 8; max(std, 1e-6) + 1e-6 as the reference.
  const double sd = std::sqrt(2.0 * 6 / (8 * 7)) + 1e-6;
  expect_floats(group_of(*r, "p1").group.advantages,
                {-0.25 / sd, 0.75 / sd, -0.25 / sd, 0.75 / sd});
}

TEST(ReplayTest, GrpoAndDrGrpoUseTheFirstGroupOfN) {
  auto grpo = replay_file("replay_small.jsonl", with_strategy("grpo"));
  ASSERT_TRUE(grpo.ok()) << grpo.err().message;
  EXPECT_EQ(grpo->spent.samples, 24u);
  // p1 = 0 1 0 0: mean 0.25, unbiased std 0.5.
  const double s = 0.5 + 1e-6;
  expect_floats(group_of(*grpo, "p1").group.advantages,
                {-0.25 / s, 0.75 / s, -0.25 / s, -0.25 / s});
  EXPECT_DOUBLE_EQ(grpo->summary.zero_gradient_fraction(), 4.0 / 6);  // p2..p5

  auto dr = replay_file("replay_small.jsonl", with_strategy("dr-grpo"));
  ASSERT_TRUE(dr.ok()) << dr.err().message;
  expect_floats(group_of(*dr, "p1").group.advantages, {-0.25, 0.75, -0.25, -0.25});
  const auto& p6 = group_of(*dr, "p6").group;  // 0.5 1 0 1: mean 0.625
  EXPECT_FLOAT_EQ(p6.baseline, 0.625f);
  expect_floats(p6.advantages, {-0.125, 0.375, -0.625, 0.375});
  EXPECT_EQ(p6.exit, exit_kind::uniform);
}

TEST(ReplayTest, EstSpendsExactlyTheBudgetOfflineAndOnline) {
  for (const char* kind : {"ada-est", "ada-est-online"}) {
    for (uint32_t budget : {12u, 13u, 37u, 48u, 101u, 192u}) {  // 6 prompts x [2, 32]
      SCOPED_TRACE(std::string(kind) + " budget " + std::to_string(budget));
      auto o = with_strategy(kind);
      o.flags.budget = budget;
      auto r = replay_file("replay_small.jsonl", o);
      ASSERT_TRUE(r.ok()) << r.err().message;
      EXPECT_EQ(r->spent.samples, budget);
      uint64_t used = 0;
      for (const auto& g : r->groups) {
        used += g.group.samples_used;
        EXPECT_GE(g.group.samples_used, 2u);
        EXPECT_LE(g.group.samples_used, 32u);
        EXPECT_EQ(g.group.kept.size(), g.group.samples_used);  // Est trains on all
      }
      EXPECT_EQ(used, budget);
    }
  }
}

TEST(ReplayTest, EstGivesMoreSamplesToLowerLoggedPHat) {
  auto r = replay_file("replay_small.jsonl", with_strategy("ada-est"));
  ASSERT_TRUE(r.ok()) << r.err().message;
  EXPECT_EQ(r->spent.samples, 48u);  // default: 8 per prompt
  // p3 (p_hat 0.02) > p2 (0.1) > p6 (0.4) > p1 (no p_hat: prior 0.5) > p4 (0.95).
  const auto n = [&](const char* id) { return group_of(*r, id).group.samples_used; };
  EXPECT_GT(n("p3"), n("p2"));
  EXPECT_GT(n("p2"), n("p6"));
  EXPECT_GE(n("p6"), n("p1"));
  EXPECT_GE(n("p1"), n("p4"));
  // Advantage r - rbar before the weight 1/sqrt(rbar + eps): p2's samples 0..9 hold
  // one 1.
  const auto& p2 = group_of(*r, "p2").group;
  ASSERT_EQ(p2.samples_used, 10u);
  EXPECT_FLOAT_EQ(p2.baseline, 0.1f);
  EXPECT_NEAR(p2.advantages[6], 0.9, 1e-6);
  EXPECT_NEAR(p2.weight, 1 / std::sqrt(0.1 + 1e-6), 1e-4);
}

TEST(ReplayTest, DapoServesReplacementsFromTheReserveInFileOrder) {
  auto o = with_strategy("dapo");
  o.batch_size = 2;
  // p1 keeps; p2 drops and p3 replaces it; p3..p5 drop too; p6 keeps.
  auto r = replay_file("replay_small.jsonl", o);
  ASSERT_TRUE(r.ok()) << r.err().message;
  ASSERT_EQ(r->groups.size(), 6u);
  EXPECT_EQ(r->groups[1].id, "p2");  // log order, not completion order
  EXPECT_EQ(group_of(*r, "p2").group.exit, exit_kind::dropped);
  EXPECT_EQ(group_of(*r, "p6").group.exit, exit_kind::uniform);
  EXPECT_EQ(r->summary.trainable, 2u);
  EXPECT_EQ(r->spent.samples, 24u);
  EXPECT_EQ(r->unused_prompts, 0u);

  o.flags.extra_factor = 0.5;  // ceil(0.5 * 2) = 1 replacement at most
  auto few = replay_file("replay_small.jsonl", o);
  ASSERT_TRUE(few.ok()) << few.err().message;
  ASSERT_EQ(few->groups.size(), 3u);  // p1, p2 (dropped), p3 (dropped, not replaced)
  EXPECT_EQ(few->groups[2].id, "p3");
  EXPECT_EQ(few->unused_prompts, 3u);
  EXPECT_EQ(few->spent.samples, 12u);
}

TEST(ReplayTest, ConfigFileSetsParametersAndFlagsOverrideThem) {
  replay_options o;
  o.config_file = data("replay_seq_pos.yaml");  // ada-seq, pos, n = 2, M = 4
  auto r = replay_file("replay_small.jsonl", o);
  ASSERT_TRUE(r.ok()) << r.err().message;
  const auto& p1 = group_of(*r, "p1").group;  // 0 1 0 0 | 1 0 0 0
  EXPECT_EQ(p1.exit, exit_kind::pos);
  EXPECT_EQ(p1.samples_used, 4u);
  EXPECT_EQ(p1.kept, (indices{0, 1}));

  o.flags.round_size = 8;  // the flag wins over the file
  r = replay_file("replay_small.jsonl", o);
  ASSERT_TRUE(r.ok()) << r.err().message;
  EXPECT_EQ(r->config.seq.round_size, 8u);
  EXPECT_EQ(r->config.seq.group_size, 2u);  // still from the file
  EXPECT_EQ(group_of(*r, "p1").group.samples_used, 8u);
}

TEST(ReplayTest, StrategyFlagReplacesTheConfigKindAndItsKeysMustFit) {
  replay_options o;
  o.config_file = data("replay_seq_pos.yaml");
  o.flags.strategy = "grpo";
  auto r = replay_file("replay_small.jsonl", o);
  ASSERT_FALSE(r.ok());
  // exit: pos is on line 6 of the file and is no grpo parameter.
  EXPECT_NE(r.err().message.find(data("replay_seq_pos.yaml") +
                                 ":6: strategy.exit: unknown key"),
            std::string::npos)
      << r.err().message;
}

TEST(ReplayTest, TokensAreChargedForEverySampleDrawn) {
  auto r = replay_text(
      R"({"id": "a", "rewards": [0, 1, 0, 0, 1], "tokens": [10, 20, 30, 40, 50]})",
      with_strategy("grpo"));
  ASSERT_TRUE(r.ok()) << r.err().message;
  EXPECT_EQ(r->spent.tokens, 100u);  // the first 4 samples only
  EXPECT_EQ(r->summary.tokens, 100u);
}

TEST(ReplayTest, WritesOneLinePerPromptThenTheSummary) {
  auto r = replay_file("replay_small.jsonl", with_strategy("ada-seq"));
  ASSERT_TRUE(r.ok()) << r.err().message;
  std::ostringstream out;
  write_replay(*r, out);
  std::istringstream lines(out.str());
  std::vector<std::string> l;
  for (std::string s; std::getline(lines, s);) l.push_back(s);
  ASSERT_EQ(l.size(), 7u);
  EXPECT_EQ(l[0],
            R"({"id":"p1","samples_used":8,"rounds":1,"exit":"balance","kept":[0,1,2,4],)"
            R"("rewards":[0,1,0,1],"advantages":[-0.25,0.75,-0.25,0.75],"baseline":0.25,)"
            R"("weight":1.0,"positives":2})");
  EXPECT_NE(l[2].find(R"("exit":"fallback","fallback_reason":"missing_positives")"),
            std::string::npos);
  EXPECT_NE(l[3].find(R"("fallback_reason":"missing_negatives")"), std::string::npos);
  EXPECT_NE(l[5].find(R"("rewards":[0.5,1,0,1])"), std::string::npos);
  EXPECT_EQ(l[6].rfind(R"({"summary":{"strategy":"ada-seq","prompts":6,"samples":112,)"
                       R"("tokens":0,"kept_samples":24,)",
                       0),
            0u)
      << l[6];
  EXPECT_NE(l[6].find(R"("exits":{"balance":4,"fallback_missing_positives":1,)"
                      R"("fallback_missing_negatives":1})"),
            std::string::npos);
  EXPECT_NE(l[6].find(R"("rounds_histogram":{"1":2,"2":2,"4":2})"), std::string::npos);
  EXPECT_EQ(l[6].find("unused_prompts"), std::string::npos);  // DAPO only
}

TEST(ReplayTest, DroppedGroupsPrintNothingKeptAndTheSummaryCountsUnusedPrompts) {
  auto o = with_strategy("dapo");
  o.batch_size = 2;
  o.flags.extra_factor = 0.5;
  auto r = replay_file("replay_small.jsonl", o);
  ASSERT_TRUE(r.ok()) << r.err().message;
  std::ostringstream out;
  write_replay(*r, out);
  const auto text = out.str();
  EXPECT_NE(
      text.find(R"({"id":"p2","samples_used":4,"rounds":1,"exit":"dropped","kept":[],)"
                R"("rewards":[],"advantages":[])"),
      std::string::npos)
      << text;
  EXPECT_NE(text.find(R"("unused_prompts":3)"), std::string::npos);
  EXPECT_EQ(text.find(R"("id":"p4")"), std::string::npos);  // never drawn, not printed
}

}  // namespace
}  // namespace adarl
