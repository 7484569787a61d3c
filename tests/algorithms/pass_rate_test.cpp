// Ada-EMA pass-rate statistics (docs/algorithm.md "Reinforce-Ada-Est"): the update, the estimate, and the
// save/restore round trip.
#include "algorithms/pass_rate.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace adarl {
namespace {

TEST(PassRateTest, UpdateDiscountsThenAdds) {
  const beta_ema_params p{/*lambda=*/0.5, /*alpha=*/1, /*beta=*/1};
  // N_tot = 0.5 * 4 + 8 = 10, N_pos = 0.5 * 1 + 2 = 2.5.
  const auto c = update({4.f, 1.f}, p, /*n=*/8, /*k=*/2);
  EXPECT_FLOAT_EQ(c.n_tot, 10.f);
  EXPECT_FLOAT_EQ(c.n_pos, 2.5f);
  // lambda = 1 keeps everything.
  const auto d = update({4.f, 1.f}, {1.0, 1, 1}, 8, 2);
  EXPECT_FLOAT_EQ(d.n_tot, 12.f);
  EXPECT_FLOAT_EQ(d.n_pos, 3.f);
}

TEST(PassRateTest, PosteriorMeanIsTheSmoothedRate) {
  const beta_ema_params p{0.9, /*alpha=*/1, /*beta=*/1};
  const auto post = posterior({10.f, 2.5f}, p);
  EXPECT_DOUBLE_EQ(post.a, 3.5);
  EXPECT_DOUBLE_EQ(post.b, 8.5);
  // (N_pos + alpha) / (N_tot + alpha + beta) = 3.5 / 12.
  EXPECT_DOUBLE_EQ(post.mean(), 3.5 / 12.0);
  const beta_ema_params q{0.9, /*alpha=*/2, /*beta=*/3};
  EXPECT_DOUBLE_EQ(posterior({10.f, 2.5f}, q).mean(), 4.5 / 15.0);
  EXPECT_DOUBLE_EQ(posterior({}, q).mean(), 0.4);
}

TEST(PassRateTest, TableFollowsTheFormulaAcrossSteps) {
  pass_rate_table t;                     // lambda 0.9, alpha = beta = 1
  EXPECT_DOUBLE_EQ(t.estimate(7), 0.5);  // unseen: the prior alone
  EXPECT_EQ(t.size(), 0u);
  t.update(7, /*n=*/8, /*k=*/2);
  // N_tot = 8, N_pos = 2: (2 + 1) / (8 + 2) = 0.3.
  EXPECT_NEAR(t.estimate(7), 0.3, 1e-6);
  t.update(7, /*n=*/4, /*k=*/4);
  // N_tot = 7.2 + 4 = 11.2, N_pos = 1.8 + 4 = 5.8: 6.8 / 13.2.
  EXPECT_NEAR(t.estimate(7), 6.8 / 13.2, 1e-6);
  EXPECT_DOUBLE_EQ(t.estimate(8), 0.5);  // other prompts untouched
  EXPECT_EQ(t.size(), 1u);
  const auto post = t.posterior_of(7);
  EXPECT_NEAR(post.a, 6.8, 1e-5);
  EXPECT_NEAR(post.b, 6.4, 1e-5);
}

TEST(PassRateTest, EstimateStaysStrictlyInsideZeroOne) {
  pass_rate_table t;
  for (int i = 0; i < 50; ++i) {
    t.update(1, 32, 0);
    t.update(2, 32, 32);
  }
  EXPECT_GT(t.estimate(1), 0.0);
  EXPECT_LT(t.estimate(1), 0.01);
  EXPECT_LT(t.estimate(2), 1.0);
  EXPECT_GT(t.estimate(2), 0.99);
}

TEST(PassRateTest, BetaPosteriorHelpers) {
  const beta_posterior b{2, 6};
  EXPECT_DOUBLE_EQ(b.mean(), 0.25);
  const auto c = b.with(/*n=*/4, /*k=*/3);
  EXPECT_DOUBLE_EQ(c.a, 5);
  EXPECT_DOUBLE_EQ(c.b, 7);
  const auto m = beta_posterior::from_mean(0.2, 10);
  EXPECT_DOUBLE_EQ(m.a, 2);
  EXPECT_DOUBLE_EQ(m.b, 8);
  const auto zero = beta_posterior::from_mean(0.0, 10);
  EXPECT_GT(zero.a, 0);
  EXPECT_NEAR(zero.mean(), 1e-6, 1e-12);
  EXPECT_LT(beta_posterior::from_mean(1.0, 10).mean(), 1.0);
}

TEST(PassRateTest, SaveIsSortedAndRestoreRoundTrips) {
  pass_rate_table t({0.8, 1, 2});
  t.update(30, 8, 1);
  t.update(10, 4, 4);
  t.update(20, 16, 3);
  t.update(10, 8, 0);
  const auto rows = t.save();
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].prompt, 10u);
  EXPECT_EQ(rows[1].prompt, 20u);
  EXPECT_EQ(rows[2].prompt, 30u);
  EXPECT_FLOAT_EQ(rows[0].counts.n_tot, 0.8f * 4 + 8);
  EXPECT_FLOAT_EQ(rows[0].counts.n_pos, 0.8f * 4);

  pass_rate_table u({0.8, 1, 2});
  u.update(99, 5, 5);  // replaced by the restore
  const auto ok = u.restore(rows);
  ASSERT_TRUE(ok.ok()) << ok.err().message;
  EXPECT_EQ(u.size(), 3u);
  EXPECT_DOUBLE_EQ(u.estimate(99), 1.0 / 3.0);  // prior only: 1 / (1 + 2)
  for (uint64_t id : {10u, 20u, 30u}) EXPECT_DOUBLE_EQ(u.estimate(id), t.estimate(id));
  const auto again = u.save();
  ASSERT_EQ(again.size(), rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(again[i].prompt, rows[i].prompt);
    EXPECT_EQ(again[i].counts.n_tot, rows[i].counts.n_tot);
    EXPECT_EQ(again[i].counts.n_pos, rows[i].counts.n_pos);
  }
}

TEST(PassRateTest, RestoreRejectsBadRowsAndLeavesTheTableUnchanged) {
  pass_rate_table t;
  t.update(5, 8, 2);
  const double before = t.estimate(5);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  struct bad_case {
    std::vector<pass_rate_row> rows;
    std::string expect;
  };
  const std::vector<bad_case> cases = {
      {{{1, {4, 1}}, {2, {2, 3}}}, "row 1 (prompt 2)"},  // n_pos > n_tot
      {{{1, {4, -1}}}, "row 0 (prompt 1)"},              // negative n_pos
      {{{1, {4, 1}}, {2, {nan, 1}}}, "row 1"},           // not finite
      {{{1, {inf, 1}}}, "row 0"},                        // not finite
      {{{1, {4, 1}}, {6, {3, 1}}, {1, {2, 0}}}, "duplicate prompt 1"},
  };
  for (const auto& c : cases) {
    const auto r = t.restore(c.rows);
    ASSERT_FALSE(r.ok()) << c.expect;
    EXPECT_NE(r.err().message.find(c.expect), std::string::npos) << r.err().message;
    EXPECT_EQ(t.size(), 1u);
    EXPECT_DOUBLE_EQ(t.estimate(5), before);
    EXPECT_DOUBLE_EQ(t.estimate(1), 0.5);
  }
  // Empty rows are a valid (empty) state.
  ASSERT_TRUE(t.restore({}).ok());
  EXPECT_EQ(t.size(), 0u);
}

}  // namespace
}  // namespace adarl
