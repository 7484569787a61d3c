// Strategy configuration: names, parsing, effective exit counts and validate().
#include "algorithms/strategy_config.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace adarl {
namespace {

using keys_t = std::vector<std::string>;

keys_t keys(const strategy_config& c) {
  keys_t out;
  for (const auto& issue : validate(c)) {
    EXPECT_FALSE(issue.message.empty()) << issue.key;
    out.push_back(issue.key);
  }
  return out;
}

strategy_config of(strategy_kind k) {
  strategy_config c;
  c.kind = k;
  return c;
}

constexpr strategy_kind all_kinds[] = {
    strategy_kind::grpo,    strategy_kind::dr_grpo, strategy_kind::dapo,
    strategy_kind::ada_seq, strategy_kind::ada_est, strategy_kind::ada_est_online,
    strategy_kind::ada_budget};

TEST(StrategyConfigTest, StrategyNamesRoundTrip) {
  EXPECT_EQ(strategy_name(strategy_kind::grpo), "grpo");
  EXPECT_EQ(strategy_name(strategy_kind::dr_grpo), "dr-grpo");
  EXPECT_EQ(strategy_name(strategy_kind::dapo), "dapo");
  EXPECT_EQ(strategy_name(strategy_kind::ada_seq), "ada-seq");
  EXPECT_EQ(strategy_name(strategy_kind::ada_est), "ada-est");
  EXPECT_EQ(strategy_name(strategy_kind::ada_est_online), "ada-est-online");
  for (auto k : all_kinds) {
    const auto parsed = parse_strategy_kind(strategy_name(k));
    ASSERT_TRUE(parsed.ok()) << strategy_name(k);
    EXPECT_EQ(*parsed, k);
  }
}

TEST(StrategyConfigTest, UnknownStrategyNameIsAnErrorListingTheKnownOnes) {
  for (const char* bad : {"dr_grpo", "", "ada-seq ", "GRPO"}) {
    const auto r = parse_strategy_kind(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.err().message.find("\"" + std::string(bad) + "\""), std::string::npos);
    EXPECT_NE(r.err().message.find("ada-est-online"), std::string::npos);
  }
}

TEST(StrategyConfigTest, ExitRuleNamesRoundTrip) {
  EXPECT_EQ(exit_rule_name(exit_rule::pos), "pos");
  EXPECT_EQ(exit_rule_name(exit_rule::balance), "balance");
  EXPECT_EQ(*parse_exit_rule("pos"), exit_rule::pos);
  EXPECT_EQ(*parse_exit_rule("balance"), exit_rule::balance);
  const auto bad = parse_exit_rule("balanced");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.err().message.find("\"balanced\""), std::string::npos);
  EXPECT_NE(bad.err().message.find("pos, balance"), std::string::npos);
}

TEST(StrategyConfigTest, DefaultsAreThePapers) {
  const strategy_config c;
  EXPECT_EQ(c.kind, strategy_kind::ada_seq);
  EXPECT_EQ(c.seq.group_size, 4u);
  EXPECT_EQ(c.seq.round_size, 8u);
  EXPECT_EQ(c.seq.max_rounds, 4u);
  EXPECT_EQ(c.seq.exit, exit_rule::balance);
  EXPECT_FLOAT_EQ(c.seq.threshold, 0.7f);
  EXPECT_FALSE(c.seq.std_norm);
  EXPECT_FALSE(c.seq.explicit_weight);
  EXPECT_DOUBLE_EQ(c.est.samples_per_prompt, 8.0);
  EXPECT_DOUBLE_EQ(c.est.sample_share, 0.5);
  EXPECT_EQ(c.est.weight_objective.kind, objective_kind::log);
}

TEST(StrategyConfigTest, EffectiveExitCounts) {
  seq_config s;
  s.exit = exit_rule::balance;
  EXPECT_EQ(s.effective_k_pos(), 2u);
  EXPECT_EQ(s.effective_k_neg(), 2u);
  s.group_size = 5;
  EXPECT_EQ(s.effective_k_pos(), 2u);  // n/2
  EXPECT_EQ(s.effective_k_neg(), 3u);  // n - n/2
  s.k_pos = 1;
  s.k_neg = 4;
  EXPECT_EQ(s.effective_k_pos(), 1u);
  EXPECT_EQ(s.effective_k_neg(), 4u);
  s.exit = exit_rule::pos;
  EXPECT_EQ(s.effective_k_pos(), 1u);
  EXPECT_EQ(s.effective_k_neg(), 0u);  // k_neg is ignored by the pos exit
  s.k_pos = 0;
  EXPECT_EQ(s.effective_k_pos(), 1u);
}

TEST(StrategyConfigTest, DefaultConfigsAreValidForEveryKind) {
  for (auto k : all_kinds) EXPECT_EQ(keys(of(k)), keys_t{}) << strategy_name(k);
}

TEST(StrategyConfigTest, SeqBadValuesAreReportedUnderTheirKeys) {
  auto c = of(strategy_kind::ada_seq);
  c.seq.round_size = 3;  // < n = 4
  EXPECT_EQ(keys(c), keys_t{"round_size"});

  c = of(strategy_kind::ada_seq);
  c.seq.group_size = 1;  // and K_pos = n/2 = 0
  EXPECT_EQ(keys(c), (keys_t{"group_size", "k_pos"}));

  c = of(strategy_kind::ada_seq);
  c.seq.max_rounds = 0;  // and then no sample can satisfy the exit
  EXPECT_EQ(keys(c), (keys_t{"max_rounds", "k_pos"}));

  c = of(strategy_kind::ada_seq);
  c.seq.k_pos = 5;
  EXPECT_EQ(keys(c), keys_t{"k_pos"});

  c = of(strategy_kind::ada_seq);
  c.seq.round_size = 4;
  c.seq.max_rounds = 1;
  c.seq.k_neg = 3;  // 2 + 3 > 4 samples
  EXPECT_EQ(keys(c), keys_t{"k_pos"});
  c.seq.exit = exit_rule::pos;  // k_neg unused: fine
  EXPECT_EQ(keys(c), keys_t{});

  c = of(strategy_kind::ada_seq);
  c.seq.threshold = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(keys(c), keys_t{"threshold"});

  c = of(strategy_kind::ada_seq);
  c.seq.weight_objective = {objective_kind::power, 1.0};
  EXPECT_EQ(keys(c), keys_t{"objective_alpha"});
  c.seq.weight_objective.alpha = 0.0;
  EXPECT_EQ(keys(c), keys_t{"objective_alpha"});
  c.seq.weight_objective.alpha = 0.3;
  EXPECT_EQ(keys(c), keys_t{});
  c.seq.weight_objective = {objective_kind::log, 7.0};  // alpha ignored
  EXPECT_EQ(keys(c), keys_t{});
}

TEST(StrategyConfigTest, EstBadValuesAreReportedUnderTheirKeys) {
  for (auto kind : {strategy_kind::ada_est, strategy_kind::ada_est_online}) {
    SCOPED_TRACE(std::string(strategy_name(kind)));
    auto c = of(kind);
    c.est.n_min = 0;
    EXPECT_EQ(keys(c), keys_t{"n_min"});

    c = of(kind);
    c.est.n_min = 10;
    c.est.n_max = 5;
    c.est.budget = 100;  // samples_per_prompt unused
    EXPECT_EQ(keys(c), keys_t{"n_max"});

    c = of(kind);
    c.est.samples_per_prompt = 40;  // > n_max = 32
    EXPECT_EQ(keys(c), keys_t{"samples_per_prompt"});
    c.est.samples_per_prompt = 1.5;  // < n_min = 2
    EXPECT_EQ(keys(c), keys_t{"samples_per_prompt"});
    c.est.budget = 64;
    EXPECT_EQ(keys(c), keys_t{});

    c = of(kind);
    c.est.eps = 0;
    EXPECT_EQ(keys(c), keys_t{"eps"});
    c.est.eps = std::numeric_limits<double>::infinity();
    EXPECT_EQ(keys(c), keys_t{"eps"});

    c = of(kind);
    c.est.sample_share = 1.5;
    EXPECT_EQ(keys(c), keys_t{"sample_share"});
    c.est.sample_share = -0.1;
    EXPECT_EQ(keys(c), keys_t{"sample_share"});

    c = of(kind);
    c.est.wave = 0;
    EXPECT_EQ(keys(c), keys_t{"wave"});

    c = of(kind);
    c.est.threshold = std::numeric_limits<float>::infinity();
    c.est.weight_objective = {objective_kind::power, 1.5};
    EXPECT_EQ(keys(c), (keys_t{"threshold", "objective_alpha"}));
  }
}

TEST(StrategyConfigTest, UniformBadValuesAreReportedUnderTheirKeys) {
  for (auto kind : {strategy_kind::grpo, strategy_kind::dr_grpo, strategy_kind::dapo}) {
    SCOPED_TRACE(std::string(strategy_name(kind)));
    auto c = of(kind);
    c.uniform.group_size = 1;
    EXPECT_EQ(keys(c), keys_t{"group_size"});
    c = of(kind);
    c.uniform.std_eps = 0;
    EXPECT_EQ(keys(c), keys_t{"std_eps"});
    c = of(kind);
    c.uniform.dapo_extra_factor = -1;
    EXPECT_EQ(keys(c), keys_t{"extra_factor"});
    c = of(kind);
    c.uniform.threshold = std::numeric_limits<float>::quiet_NaN();
    EXPECT_EQ(keys(c), keys_t{"threshold"});
  }
}

TEST(StrategyConfigTest, OnlyTheChosenStrategyIsChecked) {
  auto c = of(strategy_kind::ada_seq);
  c.est.n_min = 0;
  c.uniform.group_size = 0;
  EXPECT_EQ(keys(c), keys_t{});
  c.kind = strategy_kind::ada_est;
  EXPECT_EQ(keys(c), keys_t{"n_min"});
  c.kind = strategy_kind::grpo;
  EXPECT_EQ(keys(c), keys_t{"group_size"});
}

TEST(StrategyConfigTest, EveryProblemIsReportedAtOnce) {
  auto c = of(strategy_kind::ada_est_online);
  c.est.n_min = 0;
  c.est.eps = -1;
  c.est.wave = 0;
  EXPECT_EQ(keys(c), (keys_t{"n_min", "eps", "wave"}));
}

}  // namespace
}  // namespace adarl
