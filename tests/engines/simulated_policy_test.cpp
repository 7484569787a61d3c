#include "engines/sim/simulated_policy.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace adarl {
namespace {

sim_model_config model(double shared_lr = 0.1, double prompt_lr = 0.5) {
  sim_model_config c;
  c.mean_logit = -1.0;
  c.sd_logit = 1.5;
  c.optimizer = sim_optimizer::sgd;
  c.shared_lr = shared_lr;
  c.prompt_lr = prompt_lr;
  return c;
}

sim_model_config adam(double shared_lr = 0.01, double prompt_lr = 0.03) {
  auto c = model();
  c.optimizer = sim_optimizer::adam;
  c.adam_shared_lr = shared_lr;
  c.adam_prompt_lr = prompt_lr;
  return c;
}

simulated_policy make_policy(sim_model_config c = model(), uint32_t prompts = 8,
                             uint64_t seed = 7) {
  std::mt19937_64 rng(seed);
  return simulated_policy(c, prompts, /*held_out=*/4, rng, /*sample_seed=*/seed);
}

finished_group group(uint64_t prompt, std::vector<float> rewards,
                     std::vector<float> advantages, float weight = 1.f) {
  finished_group g;
  g.prompt_id = prompt;
  for (uint32_t i = 0; i < rewards.size(); ++i) g.kept.push_back(i);
  g.rewards = std::move(rewards);
  g.advantages = std::move(advantages);
  g.weight = weight;
  g.samples_used = static_cast<uint32_t>(g.kept.size());
  return g;
}

TEST(SimulatedPolicyTest, PassRateIsSigmoidOfSkillAdjustmentAndDifficulty) {
  auto policy = make_policy();
  for (uint64_t x = 0; x < policy.prompts(); ++x)
    EXPECT_DOUBLE_EQ(policy.pass_rate(x), 1.0 / (1.0 + std::exp(-policy.difficulty(x))));
  std::vector<finished_group> groups{group(3, {1.f}, {1.f})};
  policy.update(groups);
  ASSERT_NE(policy.skill(), 0.0);
  ASSERT_NE(policy.adjustment(3), 0.0);
  for (uint64_t x = 0; x < policy.prompts(); ++x) {
    const double z = policy.skill() + policy.adjustment(x) + policy.difficulty(x);
    EXPECT_NEAR(policy.pass_rate(x), 1.0 / (1.0 + std::exp(-z)), 1e-12);
  }
  // Held-out prompts move with the skill only.
  EXPECT_GT(policy.held_out_mean(), 0.0);
  double sum = 0;
  for (uint32_t i = 0; i < policy.held_out(); ++i) sum += policy.held_out_pass_rate(i);
  EXPECT_DOUBLE_EQ(policy.held_out_mean(), sum / policy.held_out());
}

TEST(SimulatedPolicyTest, DifficultiesFollowTheConfiguredNormal) {
  auto policy = make_policy(model(), /*prompts=*/20000);
  double sum = 0, sq = 0;
  for (uint64_t x = 0; x < policy.prompts(); ++x) sum += policy.difficulty(x);
  const double mean = sum / policy.prompts();
  for (uint64_t x = 0; x < policy.prompts(); ++x)
    sq += (policy.difficulty(x) - mean) * (policy.difficulty(x) - mean);
  EXPECT_NEAR(mean, -1.0, 0.05);
  EXPECT_NEAR(std::sqrt(sq / (policy.prompts() - 1)), 1.5, 0.05);
  // The same generator seed gives the same prompts.
  auto again = make_policy(model(), /*prompts=*/20000);
  EXPECT_EQ(again.difficulty(12345), policy.difficulty(12345));
}

TEST(SimulatedPolicyTest, DrawsDependOnTheKeysNotOnCallOrder) {
  const auto a = make_policy();
  const auto b = make_policy();
  std::vector<float> forward, backward;
  for (uint32_t i = 0; i < 64; ++i)
    forward.push_back(a.draw(/*step=*/3, /*prompt=*/5, i));
  for (uint32_t i = 64; i-- > 0;) backward.push_back(b.draw(3, 5, i));
  std::reverse(backward.begin(), backward.end());
  EXPECT_EQ(forward, backward);
  // Drawing other samples in between changes nothing either.
  for (uint32_t i = 0; i < 64; ++i) {
    (void)a.draw(4, 1, i);
    EXPECT_EQ(a.draw(3, 5, i), forward[i]);
  }
  // Each key matters.
  EXPECT_NE(keyed_uniform(1, 2, 3, 4), keyed_uniform(1, 2, 3, 5));
  EXPECT_NE(keyed_uniform(1, 2, 3, 4), keyed_uniform(1, 2, 4, 4));
  EXPECT_NE(keyed_uniform(1, 2, 3, 4), keyed_uniform(1, 3, 3, 4));
  EXPECT_NE(keyed_uniform(1, 2, 3, 4), keyed_uniform(2, 2, 3, 4));
  EXPECT_NE(keyed_uniform(1, 2, 3, 4), keyed_uniform(1, 3, 2, 4));
}

TEST(SimulatedPolicyTest, SuccessFrequencyMatchesThePassRate) {
  const auto policy = make_policy();
  const double p = policy.pass_rate(2);
  ASSERT_GT(p, 0.02);
  ASSERT_LT(p, 0.98);
  const int n = 40000;
  int hits = 0;
  for (int i = 0; i < n; ++i)
    hits += policy.draw(i % 97, 2, static_cast<uint32_t>(i)) > 0;
  EXPECT_NEAR(static_cast<double>(hits) / n, p, 4 * std::sqrt(p * (1 - p) / n));
}

TEST(SimulatedPolicyTest, PositiveAdvantageSuccessRaisesPassRateAndSkill) {
  auto policy = make_policy(model(/*shared_lr=*/0.1, /*prompt_lr=*/0.5));
  const double p = policy.pass_rate(3), other = policy.pass_rate(4);
  std::vector<finished_group> groups{group(3, {1.f}, {2.f})};
  const auto stats = policy.update(groups);
  // g = A * w * (1 - p); K = 1 and G = 1.
  EXPECT_EQ(stats.kept_samples, 1u);
  EXPECT_NEAR(policy.skill(), 0.1 * 2 * (1 - p), 1e-12);
  EXPECT_NEAR(policy.adjustment(3), 0.5 * 2 * (1 - p), 1e-12);
  EXPECT_EQ(policy.adjustment(4), 0.0);
  EXPECT_GT(policy.pass_rate(3), p);
  EXPECT_GT(policy.pass_rate(4), other);  // through the shared skill only
}

TEST(SimulatedPolicyTest, NegativeAdvantageFailureAlsoRaisesThePassRate) {
  auto policy = make_policy();
  const double p = policy.pass_rate(1);
  std::vector<finished_group> groups{group(1, {0.f}, {-1.f})};
  policy.update(groups);
  // g = -1 * (0 - p) = p > 0: pushing a failure down raises the success probability.
  EXPECT_NEAR(policy.skill(), 0.1 * p, 1e-12);
  EXPECT_GT(policy.pass_rate(1), p);
  // And a positive advantage on a failure lowers it.
  auto other = make_policy();
  std::vector<finished_group> wrong{group(1, {0.f}, {1.f})};
  other.update(wrong);
  EXPECT_LT(other.pass_rate(1), p);
}

TEST(SimulatedPolicyTest, ZeroAdvantagesChangeNothing) {
  auto policy = make_policy();
  const double before = policy.train_mean();
  std::vector<finished_group> groups{group(0, {1.f, 1.f, 1.f, 1.f}, {0.f, 0.f, 0.f, 0.f}),
                                     group(5, {0.f, 0.f}, {0.f, 0.f})};
  const auto stats = policy.update(groups);
  EXPECT_EQ(stats.groups, 2u);
  EXPECT_EQ(policy.skill(), 0.0);
  EXPECT_EQ(policy.adjustment(0), 0.0);
  EXPECT_EQ(policy.train_mean(), before);
}

TEST(SimulatedPolicyTest, DroppedGroupsAreSkippedAndNotCountedInTheTokenMean) {
  auto with_dropped = make_policy();
  auto alone = make_policy();
  auto dropped = group(2, {1.f, 1.f}, {5.f, 5.f});
  dropped.exit = exit_kind::dropped;
  const auto kept = group(6, {1.f, 0.f}, {0.5f, -0.5f});
  std::vector<finished_group> both{dropped, kept}, one{kept};
  const auto stats = with_dropped.update(both);
  alone.update(one);
  EXPECT_EQ(stats.groups, 1u);
  EXPECT_EQ(stats.kept_samples, 2u);
  EXPECT_EQ(with_dropped.adjustment(2), 0.0);
  EXPECT_EQ(with_dropped.skill(), alone.skill());
  EXPECT_EQ(with_dropped.adjustment(6), alone.adjustment(6));
}

TEST(SimulatedPolicyTest, TokenMeanScalingAndGroupWeight) {
  auto policy = make_policy(model(/*shared_lr=*/0.2, /*prompt_lr=*/0.4));
  const double p0 = policy.pass_rate(0), p1 = policy.pass_rate(1);
  // Prompt 0: 3 kept samples with weight 2; prompt 1: 1 kept sample. K = 4, G = 2.
  std::vector<finished_group> groups{
      group(0, {1.f, 0.f, 0.f}, {0.6f, -0.4f, -0.4f}, /*weight=*/2.f),
      group(1, {1.f}, {0.5f})};
  policy.update(groups);
  const double g0 = 2 * (0.6 * (1 - p0) + 2 * (-0.4) * (0 - p0));
  const double g1 = 0.5 * (1 - p1);
  EXPECT_NEAR(policy.skill(), 0.2 * (g0 + g1) / 4, 1e-6);
  EXPECT_NEAR(policy.adjustment(0), 0.4 * g0 / 4 * 2, 1e-6);
  EXPECT_NEAR(policy.adjustment(1), 0.4 * g1 / 4 * 2, 1e-6);
}

// The steps of a few groups, scaled: every advantage times `scale`.
std::vector<finished_group> scaled(std::vector<finished_group> groups, float scale) {
  for (auto& g : groups)
    for (auto& a : g.advantages) a *= scale;
  return groups;
}

std::vector<finished_group> first_step() {
  // Prompt 3: a success with A > 0 (gradient > 0); prompt 1: a success with A < 0
  // (gradient < 0); prompt 6: two groups of one step whose gradients add up.
  return {group(3, {1.f, 0.f}, {1.f, -1.f}), group(1, {1.f, 0.f}, {-0.5f, 0.5f}),
          group(6, {1.f}, {0.375f}), group(6, {0.f}, {-0.25f})};
}

std::vector<finished_group> second_step() {
  return {group(2, {1.f, 1.f, 0.f}, {0.375f, 0.375f, -0.75f}, /*weight=*/1.5f),
          group(1, {1.f, 0.f}, {0.5f, -0.5f})};
}

TEST(SimulatedPolicyTest, AdamFirstStepMovesEachParameterByLrInTheGradientSign) {
  auto policy = make_policy(adam(/*shared_lr=*/0.01, /*prompt_lr=*/0.03));
  const double p3 = policy.pass_rate(3), p1 = policy.pass_rate(1),
               p6 = policy.pass_rate(6);
  const auto groups = first_step();
  // Token-mean gradient of s: the sum of every g_i over K = 6 kept samples.
  const double g3 = 1 * (1 - p3) + (-1) * (0 - p3);         // 1 > 0
  const double g1 = -0.5 * (1 - p1) + 0.5 * (0 - p1);       // -0.5 < 0
  const double g6 = 0.375 * (1 - p6) + (-0.25) * (0 - p6);  // > 0
  const double shared = (g3 + g1 + g6) / 6;
  ASSERT_NE(shared, 0.0);
  const auto stats = policy.update(groups);
  EXPECT_EQ(stats.kept_samples, 6u);
  // The bias-corrected first step is lr * g / (|g| + eps): lr times the sign of g, up
  // to eps / |g| (~1e-7 here) relatively.
  EXPECT_NEAR(policy.skill(), 0.01 * (shared > 0 ? 1 : -1), 1e-8);
  EXPECT_NEAR(stats.skill_delta, policy.skill(), 1e-15);
  EXPECT_NEAR(policy.adjustment(3), 0.03, 3e-8);
  EXPECT_NEAR(policy.adjustment(1), -0.03, 3e-8);
  EXPECT_NEAR(policy.adjustment(6), 0.03, 3e-8);
  // Prompts outside the step have a zero gradient and no momentum yet.
  EXPECT_EQ(policy.adjustment(0), 0.0);
  EXPECT_EQ(policy.adjustment(5), 0.0);
}

TEST(SimulatedPolicyTest, AdamIsInvariantToTheAdvantageScaleAndSgdIsNot) {
  auto one = make_policy(adam()), ten = make_policy(adam());
  one.update(first_step());
  ten.update(scaled(first_step(), 10.f));
  one.update(second_step());
  ten.update(scaled(second_step(), 10.f));
  // Equal up to eps (1e-8 against gradients of ~0.1): a few 1e-7 of the step.
  ASSERT_NE(one.skill(), 0.0);
  EXPECT_NEAR(ten.skill(), one.skill(), 1e-7);
  for (uint64_t x = 0; x < one.prompts(); ++x)
    EXPECT_NEAR(ten.adjustment(x), one.adjustment(x), 1e-7) << x;

  // SGD's step is proportional to the advantages (exactly: the advantages are dyadic,
  // so scaling them by 10 rounds no float).
  auto sgd_one = make_policy(model()), sgd_ten = make_policy(model());
  sgd_one.update(first_step());
  sgd_ten.update(scaled(first_step(), 10.f));
  ASSERT_NE(sgd_one.skill(), 0.0);
  EXPECT_NEAR(sgd_ten.skill(), 10 * sgd_one.skill(), 1e-9);
  for (uint64_t x : {1u, 3u, 6u})
    EXPECT_NEAR(sgd_ten.adjustment(x), 10 * sgd_one.adjustment(x), 1e-9) << x;
}

TEST(SimulatedPolicyTest, AdamKeepsMovingWithMomentumOnAZeroGradient) {
  const double lr_s = 0.01, lr_u = 0.03;
  auto policy = make_policy(adam(lr_s, lr_u));
  std::vector<finished_group> first{group(3, {1.f}, {1.f})};
  policy.update(first);
  const double s1 = policy.skill(), u1 = policy.adjustment(3);
  ASSERT_NEAR(s1, lr_s, 1e-9);
  // Second step: kept samples, but every advantage is 0 and prompt 3 is absent.
  std::vector<finished_group> zero{group(0, {1.f, 0.f}, {0.f, 0.f})};
  policy.update(zero);
  // After steps g, 0: m = 0.9 * 0.1 g, v = 0.999 * 0.001 g^2, t = 2, so the step is
  // lr * (0.09 / (1 - 0.81)) / sqrt(0.000999 / (1 - 0.998001)) (eps aside).
  const double ratio = (0.09 / (1 - 0.81)) / std::sqrt(0.000999 / (1 - 0.998001));
  // (eps moves these by a few 1e-9.)
  EXPECT_NEAR(policy.skill() - s1, lr_s * ratio, 1e-7);
  EXPECT_NEAR(policy.adjustment(3) - u1, lr_u * ratio, 1e-7);
  EXPECT_EQ(policy.adjustment(0), 0.0);  // never had a gradient

  // A step with no kept sample at all (only dropped groups) is no step.
  auto dropped = group(3, {1.f, 1.f}, {1.f, 1.f});
  dropped.exit = exit_kind::dropped;
  std::vector<finished_group> none{dropped};
  const double s2 = policy.skill();
  policy.update(none);
  EXPECT_EQ(policy.skill(), s2);
}

TEST(SimulatedPolicyTest, OptimizerNamesParse) {
  EXPECT_EQ(parse_sim_optimizer("adam"), sim_optimizer::adam);
  EXPECT_EQ(parse_sim_optimizer("sgd"), sim_optimizer::sgd);
  EXPECT_FALSE(parse_sim_optimizer("adamw").has_value());
  EXPECT_FALSE(parse_sim_optimizer("").has_value());
  EXPECT_EQ(sim_optimizer_name(sim_optimizer::adam), "adam");
  EXPECT_EQ(sim_optimizer_name(sim_optimizer::sgd), "sgd");
  EXPECT_EQ(sim_model_config{}.optimizer, sim_optimizer::adam);
}

TEST(SimulatedPolicyTest, SigmoidIsStableAtTheExtremes) {
  EXPECT_DOUBLE_EQ(sigmoid(0), 0.5);
  EXPECT_EQ(sigmoid(-1000), 0.0);
  EXPECT_EQ(sigmoid(1000), 1.0);
  EXPECT_NEAR(sigmoid(2) + sigmoid(-2), 1.0, 1e-15);
}

}  // namespace
}  // namespace adarl
