#include <gtest/gtest.h>

#include <random>

#include "base/random_keys.hpp"
#include "models/arch/padded_rows.hpp"
#include "models/decode/sampler.hpp"
#include "tokenizers/tokenizer.hpp"

namespace adarl {
namespace {

model_config tiny_config() {
  model_config c;
  c.vocab_size = 24;
  c.d_model = 32;
  c.n_layers = 2;
  c.n_heads = 4;
  c.d_ff = 64;
  c.max_len = 48;
  return c;
}

transformer tiny_model(uint64_t seed) {
  torch::manual_seed(seed);
  transformer m(tiny_config());
  // Larger weights than the default init, so that distributions are far from uniform
  // and a wrong position or mask would change the log-probs visibly.
  torch::NoGradGuard g;
  for (auto& p : m->parameters())
    if (p.dim() >= 2) p.normal_(0.0, 0.3);
  return m;
}

std::vector<int32_t> random_prompt(std::mt19937& rng, int len) {
  std::uniform_int_distribution<int32_t> tok(tokenizer::num_special, 23);
  std::vector<int32_t> p{tokenizer::bos};
  for (int i = 1; i < len; ++i) p.push_back(tok(rng));
  return p;
}

TEST(SamplerTest, SampledLogprobsAgreeWithRecomputedOnes) {
  auto m = tiny_model(1);
  std::mt19937 rng(7);
  std::vector<sample_job> jobs;
  for (int i = 0; i < 8; ++i) jobs.push_back({random_prompt(rng, 3 + 2 * i), mix_keys(1, i)});
  sampling_params p;
  p.temperature = 0.8f;
  p.max_new_tokens = 12;
  auto out = sample_batch(m, jobs, p);
  std::vector<std::vector<int32_t>> prompts, completions;
  for (size_t i = 0; i < jobs.size(); ++i) {
    prompts.push_back(jobs[i].prompt);
    completions.push_back(out[i].tokens);
  }
  torch::Tensor mask;
  torch::NoGradGuard g;
  auto re = completion_logprobs(*m, prompts, completions, p.temperature, mask);
  double max_diff = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    ASSERT_FALSE(out[i].tokens.empty());
    for (size_t j = 0; j < out[i].tokens.size(); ++j) {
      EXPECT_TRUE(mask[i][j].item<bool>());
      max_diff = std::max(max_diff, std::abs(double(out[i].logprobs[j]) -
                                             re[i][j].item<double>()));
    }
  }
  EXPECT_LT(max_diff, 1e-4);
}

TEST(SamplerTest, SampleIsTheSameAloneOrInsideABatchOf64) {
  auto m = tiny_model(2);
  std::mt19937 rng(3);
  sample_job probe{random_prompt(rng, 9), mix_keys(42, 5)};
  sampling_params p;
  p.max_new_tokens = 16;
  auto alone = sample_batch(m, {probe}, p)[0];
  std::vector<sample_job> batch;
  for (int i = 0; i < 63; ++i) batch.push_back({random_prompt(rng, 2 + i % 20), mix_keys(9, i)});
  batch.insert(batch.begin() + 17, probe);
  auto inside = sample_batch(m, batch, p)[17];
  EXPECT_EQ(alone.tokens, inside.tokens);
  ASSERT_EQ(alone.logprobs.size(), inside.logprobs.size());
  for (size_t j = 0; j < alone.logprobs.size(); ++j)
    EXPECT_NEAR(alone.logprobs[j], inside.logprobs[j], 1e-5);
}

TEST(SamplerTest, StopsAtEndTokenAndRespectsLengthCap) {
  auto m = tiny_model(3);
  std::mt19937 rng(1);
  sampling_params p;
  p.max_new_tokens = 5;
  auto capped = sample_batch(m, {{random_prompt(rng, 4), 1}, {random_prompt(rng, 6), 2}}, p);
  for (const auto& o : capped) {
    EXPECT_LE(o.tokens.size(), 5u);
    EXPECT_EQ(o.ended, !o.tokens.empty() && o.tokens.back() == tokenizer::eos);
    if (!o.ended) {
      EXPECT_EQ(o.tokens.size(), 5u);
    }
  }
  // Make the end token overwhelmingly likely: every row ends after one token.
  {
    torch::NoGradGuard g;
    auto params = m->named_parameters();
    params["ln_f.weight"].zero_();
    params["ln_f.bias"].copy_(params["tok.weight"][tokenizer::eos] * 50);
  }
  p.greedy = true;
  auto ended = sample_batch(m, {{random_prompt(rng, 4), 1}, {random_prompt(rng, 7), 2}}, p);
  for (const auto& o : ended) {
    EXPECT_TRUE(o.ended);
    EXPECT_EQ(o.tokens, std::vector<int32_t>{tokenizer::eos});
  }
}

TEST(SamplerTest, PromptAtMaxLengthGetsNoTokens) {
  auto m = tiny_model(4);
  std::mt19937 rng(2);
  auto out = sample_batch(m, {{random_prompt(rng, 48), 1}}, {});
  EXPECT_TRUE(out[0].tokens.empty());
  EXPECT_FALSE(out[0].ended);
}

TEST(DrawTokenTest, InverseCdfAndTopP) {
  const std::vector<float> probs{0.1f, 0.5f, 0.3f, 0.1f};
  // Sorted: 1 (0.5), 2 (0.3), 0 (0.1), 3 (0.1); cumulative 0.5, 0.8, 0.9, 1.0.
  EXPECT_EQ(draw_token(probs, 1.f, 0.0), 1);
  EXPECT_EQ(draw_token(probs, 1.f, 0.49), 1);
  EXPECT_EQ(draw_token(probs, 1.f, 0.55), 2);
  EXPECT_EQ(draw_token(probs, 1.f, 0.85), 0);
  EXPECT_EQ(draw_token(probs, 1.f, 0.95), 3);
  // top_p 0.7 keeps {1, 2} (mass 0.8): u scales into that set.
  EXPECT_EQ(draw_token(probs, 0.7f, 0.6), 1);   // 0.6 * 0.8 = 0.48 < 0.5
  EXPECT_EQ(draw_token(probs, 0.7f, 0.99), 2);
  // top_p small keeps the argmax alone.
  EXPECT_EQ(draw_token(probs, 0.01f, 0.99), 1);
}

TEST(TransformerTest, PositionsCountRealTokensOfLeftPaddedRows) {
  auto mask = torch::tensor({0, 0, 1, 1, 1, 1, 1, 1, 1, 1}, torch::kBool).view({2, 5});
  auto pos = positions_of(mask);
  EXPECT_TRUE(torch::equal(pos, torch::tensor({0, 0, 0, 1, 2, 0, 1, 2, 3, 4}, torch::kLong)
                                    .view({2, 5})));
}

TEST(TransformerTest, ConfigProblemsAndParameterCount) {
  auto c = tiny_config();
  EXPECT_TRUE(c.problems().empty());
  transformer m(c);
  int64_t n = 0;
  for (const auto& p : m->parameters()) n += p.numel();
  EXPECT_EQ(n, c.parameter_count());
  c.n_heads = 5;
  ASSERT_EQ(c.problems().size(), 1u);
  EXPECT_EQ(c.problems()[0], "n_heads: expected a positive divisor of d_model");
}

}  // namespace
}  // namespace adarl
