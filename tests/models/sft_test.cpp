#include <gtest/gtest.h>

#include "models/decode/sampler.hpp"
#include "models/train/sft.hpp"
#include "tokenizers/tokenizer.hpp"

namespace adarl {
namespace {

// "a+b=" -> a + b for digits 0..4: a 25-entry table a tiny model memorises in seconds.
std::vector<sft_example> addition_examples(const tokenizer& tok) {
  std::vector<sft_example> out;
  for (int a = 0; a < 5; ++a)
    for (int b = 0; b < 5; ++b) {
      auto p = *tok.encode(std::to_string(a) + "+" + std::to_string(b) + "=", "test");
      p.insert(p.begin(), tokenizer::bos);
      p.push_back(tokenizer::sep);
      auto c = *tok.encode(std::to_string(a + b), "test");
      c.push_back(tokenizer::eos);
      out.push_back({p, c});
    }
  return out;
}

TEST(SftTest, TrainingReducesLossAndTeachesGreedyAnswers) {
  torch::manual_seed(1);
  auto tok = *tokenizer::from_charset("0123456789+=");
  model_config c;
  c.vocab_size = tok.size();
  c.d_model = 48;
  c.n_layers = 2;
  c.n_heads = 4;
  c.d_ff = 96;
  c.max_len = 16;
  transformer m(c);
  optimizer_config oc;
  oc.lr = 3e-3;
  oc.warmup_steps = 10;
  policy_optimizer opt(m, oc);
  const auto data = addition_examples(tok);
  const double before = sft_loss(m, data);
  sft_config sc;
  sc.steps = 250;
  sc.batch_size = 25;
  int reports = 0;
  auto losses = run_sft(m, opt, data, sc, [&](const sft_progress& p) {
    ++reports;
    EXPECT_GT(p.tokens_per_s, 0);
  });
  const double after = sft_loss(m, data);
  EXPECT_EQ(losses.size(), 250u);
  EXPECT_EQ(reports, 10);
  // Uniform over 14 tokens is log 14 = 2.64; the answer digit plus the end token.
  EXPECT_GT(before, 2.0);
  EXPECT_LT(after, 0.5 * before);
  // The model now answers most sums correctly with greedy decoding.
  std::vector<sample_job> jobs;
  for (size_t i = 0; i < data.size(); ++i) jobs.push_back({data[i].prompt, i});
  sampling_params sp;
  sp.greedy = true;
  sp.max_new_tokens = 3;
  auto out = sample_batch(m, jobs, sp);
  int right = 0;
  for (size_t i = 0; i < data.size(); ++i) right += out[i].tokens == data[i].completion;
  EXPECT_GE(right, 20) << "greedy answers right: " << right << " of 25, loss " << after;
}

TEST(SftTest, AStopEndsTrainingBeforeTheNextStep) {
  torch::manual_seed(1);
  auto tok = *tokenizer::from_charset("0123456789+=");
  model_config c;
  c.vocab_size = tok.size();
  c.d_model = 16;
  c.n_layers = 1;
  c.n_heads = 2;
  c.d_ff = 32;
  c.max_len = 16;
  transformer m(c);
  policy_optimizer opt(m, optimizer_config{});
  sft_config sc;
  sc.steps = 100000;  // far more than the test may take
  sc.batch_size = 4;
  sc.log_every = 1;
  std::atomic<bool> stop{false};
  auto losses = run_sft(m, opt, addition_examples(tok), sc,
                        [&](const sft_progress& p) { if (p.step == 3) stop = true; }, &stop);
  EXPECT_EQ(losses.size(), 3u);
  // Already set: no step at all.
  EXPECT_TRUE(run_sft(m, opt, addition_examples(tok), sc, {}, &stop).empty());
}

}  // namespace
}  // namespace adarl
