// The learned pass-rate predictor (algorithms/pass_rate_predictor.hpp, docs/algorithm.md "The learned estimator").
#include "algorithms/pass_rate_predictor.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace adarl {
namespace {

// Prompts whose first feature is their difficulty logit plus noise, the second noise
// alone; pass rates sigmoid(logit).
struct prompt_set {
  std::vector<std::vector<float>> features;
  std::vector<double> p;
};

prompt_set make_prompts(size_t n, double noise, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> z(0.0, 1.5), e(0.0, 1.0);
  prompt_set s;
  for (size_t i = 0; i < n; ++i) {
    const double logit = z(rng) - 1.0;
    s.p.push_back(1.0 / (1.0 + std::exp(-logit)));
    s.features.push_back({float(logit + noise * e(rng)), float(e(rng))});
  }
  return s;
}

TEST(PassRatePredictorTest, UntrainedPredictsOneHalfAndThePriorAddsTheCounts) {
  pass_rate_predictor p({/*learning_rate=*/0.05, /*l2=*/0, /*steps_per_group=*/1,
                         /*prior_strength=*/4});
  EXPECT_DOUBLE_EQ(p.predict(0), 0.5);  // no features yet
  ASSERT_TRUE(p.set_features({{1.f, 2.f}, {3.f, 2.f}}));
  EXPECT_DOUBLE_EQ(p.predict(1), 0.5);
  const beta_ema_counts c{6.f, 2.f};
  const auto b = p.prior(1, &c);
  EXPECT_DOUBLE_EQ(b.a, 2.0 + 2.0);  // s p + N_pos
  EXPECT_DOUBLE_EQ(b.b, 2.0 + 4.0);  // s (1 - p) + N_tot - N_pos
  EXPECT_DOUBLE_EQ(p.prior(0, nullptr).mean(), 0.5);
}

TEST(PassRatePredictorTest, LearnsTheOrderOfDifficultiesFromOutcomes) {
  const auto train = make_prompts(300, /*noise=*/0.5, 1);
  pass_rate_predictor p;
  ASSERT_TRUE(p.set_features(train.features));
  std::mt19937 rng(2);
  for (int epoch = 0; epoch < 8; ++epoch)
    for (size_t i = 0; i < train.p.size(); ++i) {
      std::binomial_distribution<uint32_t> draw(8, train.p[i]);
      p.fit(i, 8, draw(rng));
    }
  // Brier score of the predictions against the true pass rates' outcomes, against the
  // uniform prior's 0.5.
  double learned = 0, uniform = 0;
  for (size_t i = 0; i < train.p.size(); ++i) {
    const double q = p.predict(i), t = train.p[i];
    learned += t * (1 - q) * (1 - q) + (1 - t) * q * q;
    uniform += 0.25;
  }
  EXPECT_LT(learned, 0.8 * uniform) << learned / train.p.size();
  // The hardest prompt is predicted below the easiest.
  size_t hard = 0, easy = 0;
  for (size_t i = 0; i < train.p.size(); ++i) {
    if (train.p[i] < train.p[hard]) hard = i;
    if (train.p[i] > train.p[easy]) easy = i;
  }
  EXPECT_LT(p.predict(hard) + 0.3, p.predict(easy));
}

TEST(PassRatePredictorTest, StateRoundTripsAndBadInputChangesNothing) {
  const auto s = make_prompts(20, 0.5, 3);
  pass_rate_predictor p;
  ASSERT_TRUE(p.set_features(s.features));
  for (size_t i = 0; i < 20; ++i) p.fit(i, 4, i % 3 == 0 ? 3 : 0);
  pass_rate_predictor q;
  ASSERT_TRUE(q.set_features(s.features));
  ASSERT_TRUE(q.restore(p.save()));
  for (size_t i = 0; i < 20; ++i) EXPECT_DOUBLE_EQ(q.predict(i), p.predict(i));
  p.fit(0, 4, 4);
  q.fit(0, 4, 4);
  EXPECT_DOUBLE_EQ(q.predict(0), p.predict(0));  // Adam's moments came along
  EXPECT_FALSE(q.restore(predictor_state{{1.0}, {0.0}, {0.0}, 1}));  // wrong size
  EXPECT_DOUBLE_EQ(q.predict(0), p.predict(0));
  EXPECT_FALSE(q.set_features({{1.f, 2.f}, {1.f}}));  // ragged
  EXPECT_FALSE(q.set_features({{1.f, NAN}}));
  EXPECT_DOUBLE_EQ(q.predict(0), p.predict(0));
}

}  // namespace
}  // namespace adarl
