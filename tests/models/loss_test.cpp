#include <gtest/gtest.h>

#include "models/train/loss.hpp"
#include "models/decode/sampler.hpp"

namespace adarl {
namespace {

loss_batch one_token_batch(double logp, double old_logp, double adv) {
  return {torch::tensor({{logp}}, torch::kDouble), torch::tensor({{old_logp}}, torch::kDouble),
          torch::tensor({adv}, torch::kDouble), torch::ones({1, 1}, torch::kBool)};
}

TEST(LossTest, ClipHigherAndDualClipByHand) {
  loss_config c;
  // ratio e^0.5 = 1.6487; A = 1: max(-1.6487, -1.28) = -1.28 (clipped above at 1.28).
  auto up = clipped_surrogate(one_token_batch(0.5, 0.0, 1.0), c);
  EXPECT_NEAR(up.loss.item<double>(), -1.28, 1e-12);
  EXPECT_DOUBLE_EQ(up.clip_fraction, 1.0);
  // ratio e^-0.5 = 0.6065; A = 1: max(-0.6065, -0.8) = -0.6065 (no clip below for A > 0).
  auto down = clipped_surrogate(one_token_batch(-0.5, 0.0, 1.0), c);
  EXPECT_NEAR(down.loss.item<double>(), -std::exp(-0.5), 1e-12);
  EXPECT_DOUBLE_EQ(down.clip_fraction, 0.0);
  // A = -1, ratio e^3 = 20.09: max(20.09, 1.28) = 20.09, dual clip min(., 10) = 10.
  auto dual = clipped_surrogate(one_token_batch(3.0, 0.0, -1.0), c);
  EXPECT_NEAR(dual.loss.item<double>(), 10.0, 1e-12);
  // Log-ratio clamp: 50 -> 20, A = 1: clipped branch -1.28 wins anyway; A = -1 -> 10.
  auto huge = clipped_surrogate(one_token_batch(50.0, 0.0, -1.0), c);
  EXPECT_TRUE(std::isfinite(huge.loss.item<double>()));
  EXPECT_NEAR(huge.loss.item<double>(), 10.0, 1e-12);
}

TEST(LossTest, TokenMeanOverTheWholeBatchIgnoresMaskedTokens) {
  // Two samples: 3 real tokens and 1 real token; ratio 1 so loss = -mean(A per token).
  loss_batch b{torch::zeros({2, 3}, torch::kDouble), torch::zeros({2, 3}, torch::kDouble),
               torch::tensor({1.0, -2.0}, torch::kDouble),
               torch::tensor({1, 1, 1, 1, 0, 0}, torch::kBool).view({2, 3})};
  // (-1 * 3 + 2 * 1) / 4 tokens = -0.25 (not the sample mean of means, -(1 - 2)/2 = 0.5).
  EXPECT_NEAR(clipped_surrogate(b, {}).loss.item<double>(), -0.25, 1e-12);
}

TEST(LossTest, RatioOneGivesReinforceGradient) {
  auto logp = torch::tensor({{-1.0, -2.0}, {-0.5, -3.0}}, torch::kDouble).requires_grad_();
  loss_batch b{logp, logp.detach(), torch::tensor({0.7, -0.4}, torch::kDouble),
               torch::ones({2, 2}, torch::kBool)};
  clipped_surrogate(b, {}).loss.backward();
  // d/dlogp of -A * logp / 4 tokens.
  auto expected = torch::tensor({{-0.7, -0.7}, {0.4, 0.4}}, torch::kDouble) / 4.0;
  EXPECT_TRUE(torch::allclose(logp.grad(), expected, 1e-12, 1e-12));
}

TEST(LossTest, GradientThroughTinyModelMatchesFiniteDifferences) {
  torch::manual_seed(5);
  model_config c;
  c.vocab_size = 12;
  c.d_model = 8;
  c.n_layers = 1;
  c.n_heads = 2;
  c.d_ff = 16;
  c.max_len = 16;
  transformer m(c);
  m->to(torch::kDouble);
  const std::vector<std::vector<int32_t>> prompts{{1, 5, 6}, {1, 7}};
  const std::vector<std::vector<int32_t>> completions{{8, 9, 2}, {10, 2}};
  torch::Tensor mask;
  torch::Tensor old;
  {
    torch::NoGradGuard g;
    old = completion_logprobs(*m, prompts, completions, 1.f, mask) + 0.05;  // ratio != 1
  }
  auto loss_of = [&] {
    torch::Tensor mk;
    auto lp = completion_logprobs(*m, prompts, completions, 1.f, mk);
    return clipped_surrogate({lp, old, torch::tensor({0.9, -0.6}, torch::kDouble), mk}, {})
        .loss;
  };
  m->zero_grad();
  loss_of().backward();
  auto w = m->named_parameters()["block0.fc1.weight"];
  const double h = 1e-6;
  double worst = 0;
  for (int64_t i = 0; i < 6; ++i) {
    const double analytic = w.grad().view({-1})[i].item<double>();
    torch::NoGradGuard g;
    auto flat = w.view({-1});
    const double orig = flat[i].item<double>();
    flat[i] = orig + h;
    const double up = loss_of().item<double>();
    flat[i] = orig - h;
    const double down = loss_of().item<double>();
    flat[i] = orig;
    worst = std::max(worst, std::abs(analytic - (up - down) / (2 * h)));
  }
  EXPECT_LT(worst, 1e-7);
}

TEST(LossTest, EntropyOfUniformAndPeakedDistributions) {
  auto logits = torch::zeros({1, 2, 4});
  logits[0][1][2] = 100.0;
  auto mask = torch::ones({1, 2}, torch::kBool);
  EXPECT_NEAR(mean_entropy(logits, mask), std::log(4.0) / 2, 1e-9);
  mask[0][1] = false;
  EXPECT_NEAR(mean_entropy(logits, mask), std::log(4.0), 1e-9);
}

}  // namespace
}  // namespace adarl
