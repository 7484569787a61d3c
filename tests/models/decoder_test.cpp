#include <gtest/gtest.h>

#include <random>
#include <stdexcept>

#include "base/random_keys.hpp"
#include "models/decode/decoder.hpp"
#include "models/weights/snapshot.hpp"
#include "models/torch_engines.hpp"
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
  c.max_len = 40;
  return c;
}

// Weights far from the default init, so that a wrong position, mask or cache slot
// changes the draws visibly.
void sharpen(transformer& m) {
  torch::NoGradGuard g;
  for (auto& p : m->parameters())
    if (p.dim() >= 2) p.normal_(0.0, 0.3);
}

transformer tiny_model(uint64_t seed) {
  torch::manual_seed(seed);
  transformer m(tiny_config());
  sharpen(m);
  return m;
}

std::vector<int32_t> random_prompt(std::mt19937& rng, int len) {
  std::uniform_int_distribution<int32_t> tok(tokenizer::num_special, 23);
  std::vector<int32_t> p{tokenizer::bos};
  for (int i = 1; i < len; ++i) p.push_back(tok(rng));
  return p;
}

// Makes the end token overwhelmingly likely after any prefix.
void force_end_token(transformer& m) {
  torch::NoGradGuard g;
  auto params = m->named_parameters();
  params["ln_f.weight"].zero_();
  params["ln_f.bias"].copy_(params["tok.weight"][tokenizer::eos] * 50);
}

TEST(DecoderTest, StaggeredAdmissionsGiveTheSameTokensAsAlone) {
  auto m = tiny_model(5);
  std::mt19937 rng(11);
  std::vector<sample_job> jobs;
  for (int i = 0; i < 9; ++i) jobs.push_back({random_prompt(rng, 2 + 3 * i), mix_keys(3, i)});
  sampling_params p;
  p.temperature = 0.9f;
  p.max_new_tokens = 10;
  // 3 slots: rows join one per step while slots are free, others wait for a slot.
  decoder dec(m, 3, p);
  std::vector<decoded_row> done;
  std::vector<int> job_of(3, -1);
  std::vector<decoded_row> got(jobs.size());
  size_t next = 0, returned = 0, steps = 0;
  while (returned < jobs.size()) {
    if (next < jobs.size() && dec.active() < dec.capacity()) {
      job_of[dec.admit(jobs[next].prompt, jobs[next].stream, false)] = int(next);
      ++next;
    }
    done.clear();
    dec.step(done);
    for (auto& r : done) got[job_of[r.slot]] = r;
    returned += done.size();
    ASSERT_LT(++steps, 200u);
  }
  std::vector<std::vector<int32_t>> prompts, completions;
  for (size_t i = 0; i < jobs.size(); ++i) {
    auto alone = sample_batch(m, {jobs[i]}, p)[0];
    EXPECT_EQ(got[i].tokens, alone.tokens) << "job " << i;
    ASSERT_EQ(got[i].logprobs.size(), alone.logprobs.size());
    for (size_t j = 0; j < alone.logprobs.size(); ++j)
      EXPECT_NEAR(got[i].logprobs[j], alone.logprobs[j], 1e-5);
    ASSERT_FALSE(got[i].tokens.empty());
    prompts.push_back(jobs[i].prompt);
    completions.push_back(got[i].tokens);
  }
  // The slot cache agrees with a plain forward pass over prompt + completion.
  torch::Tensor mask;
  torch::NoGradGuard g;
  auto re = completion_logprobs(*m, prompts, completions, p.temperature, mask);
  for (size_t i = 0; i < got.size(); ++i)
    for (size_t j = 0; j < got[i].tokens.size(); ++j)
      EXPECT_NEAR(got[i].logprobs[j], re[i][j].item<double>(), 1e-4);
}

TEST(DecoderTest, TwoTorchThreadsDrawTheSameTokens) {
  auto m = tiny_model(9);
  std::mt19937 rng(12);
  std::vector<sample_job> jobs;
  for (int i = 0; i < 40; ++i) jobs.push_back({random_prompt(rng, 2 + i % 11), mix_keys(4, i)});
  sampling_params p;
  p.top_p = 0.9f;
  p.max_new_tokens = 12;
  const int threads = at::get_num_threads();
  at::set_num_threads(1);
  auto one = sample_batch(m, jobs, p);
  // Rows are drawn and attended in parallel: the split must not change any row.
  at::set_num_threads(2);
  auto two = sample_batch(m, jobs, p);
  at::set_num_threads(threads);
  for (size_t i = 0; i < jobs.size(); ++i) {
    EXPECT_EQ(one[i].tokens, two[i].tokens) << "job " << i;
    ASSERT_EQ(one[i].logprobs.size(), two[i].logprobs.size());
    for (size_t j = 0; j < one[i].logprobs.size(); ++j)
      EXPECT_NEAR(one[i].logprobs[j], two[i].logprobs[j], 1e-5);
  }
}

TEST(DecoderTest, FreedSlotsAreReusedAndAFullDecoderRefuses) {
  auto m = tiny_model(6);
  std::mt19937 rng(2);
  sampling_params p;
  p.max_new_tokens = 3;
  decoder dec(m, 2, p);
  EXPECT_EQ(dec.admit(random_prompt(rng, 4), 1, false), 0u);
  EXPECT_EQ(dec.admit(random_prompt(rng, 5), 2, false), 1u);
  EXPECT_EQ(dec.active(), 2u);
  EXPECT_THROW(dec.admit(random_prompt(rng, 4), 3, false), std::logic_error);
  std::vector<decoded_row> done;
  for (int i = 0; i < 3 && dec.active() > 0; ++i) dec.step(done);
  EXPECT_EQ(dec.active(), 0u);
  ASSERT_EQ(done.size(), 2u);
  for (const auto& r : done)
    if (!r.ended) EXPECT_EQ(r.tokens.size(), 3u);
  // Both slots are free again; the lowest one is taken first.
  EXPECT_EQ(dec.admit(random_prompt(rng, 6), 4, false), 0u);
  EXPECT_EQ(dec.admit(random_prompt(rng, 3), 5, false), 1u);
}

TEST(DecoderTest, StopsAtEndTokenAndAtMaxNewTokens) {
  auto m = tiny_model(7);
  std::mt19937 rng(3);
  sampling_params p;
  p.max_new_tokens = 4;
  p.greedy = true;
  decoder capped(m, 2, p);
  capped.admit(random_prompt(rng, 5), 1, /*greedy=*/false);
  std::vector<decoded_row> done;
  for (int i = 0; i < 4; ++i) {
    EXPECT_TRUE(done.empty() || done[0].ended) << "finished early at step " << i;
    capped.step(done);
  }
  ASSERT_EQ(done.size(), 1u);
  if (!done[0].ended) {
    EXPECT_EQ(done[0].tokens.size(), 4u);
  }
  force_end_token(m);
  decoder ending(m, 2, p);
  ending.admit(random_prompt(rng, 5), 1, /*greedy=*/true);
  ending.admit(random_prompt(rng, 8), 2, /*greedy=*/false);
  done.clear();
  ending.step(done);
  ASSERT_EQ(done.size(), 2u);
  for (const auto& r : done) {
    EXPECT_TRUE(r.ended);
    EXPECT_EQ(r.tokens, std::vector<int32_t>{tokenizer::eos});
  }
  EXPECT_EQ(ending.active(), 0u);
}

TEST(DecoderTest, PromptWithoutRoomFinishesWithNoTokensAndRowsNearTheCapStop) {
  auto m = tiny_model(8);
  std::mt19937 rng(4);
  sampling_params p;
  p.max_new_tokens = 10;
  decoder dec(m, 3, p);
  const auto full = dec.admit(random_prompt(rng, 40), 1, false);   // == max_len
  const auto over = dec.admit(random_prompt(rng, 45), 2, false);   // > max_len
  const auto near = dec.admit(random_prompt(rng, 38), 3, false);   // room for 2
  std::vector<decoded_row> done;
  dec.step(done);
  // The rows without room finish at the first step, with no tokens.
  int empty = 0;
  for (const auto& r : done)
    if (r.slot == full || r.slot == over) {
      EXPECT_TRUE(r.tokens.empty());
      EXPECT_FALSE(r.ended);
      ++empty;
    }
  EXPECT_EQ(empty, 2);
  for (int i = 0; i < 5 && dec.active() > 0; ++i) dec.step(done);
  EXPECT_EQ(dec.active(), 0u);
  ASSERT_EQ(done.size(), 3u);
  EXPECT_EQ(done.back().slot, near);
  // Two positions were left under max_len: two tokens unless the first was the end.
  if (!done.back().ended) EXPECT_EQ(done.back().tokens.size(), 2u);
  EXPECT_LE(done.back().tokens.size(), 2u);
}

TEST(TokenDrawerTest, SameTokenAsDrawTokenIncludingTies) {
  std::mt19937 rng(9);
  std::uniform_real_distribution<float> unit(0.f, 1.f);
  token_drawer drawer;
  for (int trial = 0; trial < 300; ++trial) {
    const int v = 1 + trial % 40;
    std::vector<float> logits(v);
    // Few distinct values, so that ties are common.
    for (auto& x : logits) x = float(int(unit(rng) * 4)) * 0.7f;
    auto probs = torch::softmax(torch::tensor(logits), 0);
    auto logp = torch::log(probs).contiguous();
    std::vector<float> p(v);
    for (int k = 0; k < v; ++k) p[k] = std::exp(logp[k].item<float>());
    const float top_p = trial % 3 == 0 ? 1.f : 0.3f + 0.2f * float(trial % 4);
    const double u = unit(rng);
    EXPECT_EQ(drawer.draw(logp.data_ptr<float>(), v, top_p, u), draw_token(p, top_p, u))
        << "trial " << trial;
  }
}

torch_generator_config generator_config() {
  torch_generator_config c;
  c.policy.model = tiny_config();
  c.capacity = 4;
  c.sampling.max_new_tokens = 6;
  return c;
}

std::vector<generation_result> run_to_end(generation_engine& e) {
  std::vector<generation_result> out;
  for (int i = 0; i < 100 && e.active() > 0; ++i) e.step(out);
  return out;
}

TEST(TorchGeneratorTest, LoadChangesVersionAndOutputAndWrongShapeIsRefused) {
  auto made = make_torch_generator(generator_config());
  ASSERT_TRUE(made.ok()) << made.err().message;
  auto& e = **made;
  EXPECT_EQ(e.capacity(), 4u);
  std::mt19937 rng(5);
  const generation_job job{/*ticket=*/7, /*prompt_id=*/1, random_prompt(rng, 6), 99, false};
  e.admit(job);
  auto before = run_to_end(e);
  ASSERT_EQ(before.size(), 1u);
  EXPECT_EQ(before[0].ticket, 7u);
  EXPECT_EQ(before[0].version, 0u);

  auto other = tiny_model(21);
  ASSERT_TRUE(e.load(take_snapshot(other, 3)).ok());
  EXPECT_EQ(e.version(), 3u);
  e.admit(job);
  auto after = run_to_end(e);
  ASSERT_EQ(after.size(), 1u);
  EXPECT_EQ(after[0].version, 3u);
  EXPECT_TRUE(after[0].tokens != before[0].tokens || after[0].logprobs != before[0].logprobs);
  // The same draws as sampling the loaded model directly.
  sampling_params p = generator_config().sampling;
  auto direct = sample_batch(other, {{job.prompt, job.stream}}, p)[0];
  EXPECT_EQ(after[0].tokens, direct.tokens);

  auto c = tiny_config();
  c.d_model = 16;
  torch::manual_seed(1);
  transformer wrong(c);
  auto refused = e.load(take_snapshot(wrong, 9));
  EXPECT_FALSE(refused.ok());
  EXPECT_EQ(e.version(), 3u);
  EXPECT_FALSE(e.load(std::make_shared<policy_weights>()).ok());
  e.admit(job);
  auto again = run_to_end(e);
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].tokens, after[0].tokens);
}

TEST(TorchGeneratorTest, ResultCarriesTheVersionAtAdmission) {
  auto made = make_torch_generator(generator_config());
  ASSERT_TRUE(made.ok()) << made.err().message;
  auto& e = **made;
  std::mt19937 rng(6);
  e.admit({1, 1, random_prompt(rng, 4), 5, false});
  std::vector<generation_result> out;
  e.step(out);
  auto other = tiny_model(22);
  ASSERT_TRUE(e.load(take_snapshot(other, 4)).ok());
  auto rest = run_to_end(e);
  out.insert(out.end(), rest.begin(), rest.end());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].version, 0u);
  EXPECT_EQ(e.version(), 4u);
}

TEST(TorchGeneratorTest, BadConfigIsAnError) {
  auto c = generator_config();
  c.policy.device = "tpu";
  EXPECT_FALSE(make_torch_generator(c).ok());
  c = generator_config();
  c.capacity = 0;
  EXPECT_FALSE(make_torch_generator(c).ok());
  c = generator_config();
  c.policy.init_checkpoint = "/nonexistent/checkpoint";
  EXPECT_FALSE(make_torch_generator(c).ok());
}

// Deterministic runs: with batch_invariant, a row's tokens and log-probs are
// bit-identical whether it decodes alone or shares its steps with other rows admitted
// at other times (BLAS GEMM rounds a row differently with the batch it is in: without
// the flag the same comparison differs in the last bits).
TEST(DecoderTest, BatchInvariantRowsAreBitIdenticalAloneAndInABatch) {
  auto m = tiny_model(21);
  std::mt19937 rng(23);
  std::vector<sample_job> jobs;
  for (int i = 0; i < 12; ++i) jobs.push_back({random_prompt(rng, 2 + i % 7), mix_keys(8, i)});
  sampling_params p;
  p.temperature = 1.3f;
  p.max_new_tokens = 16;
  p.batch_invariant = true;
  auto decode_all = [&](uint32_t capacity, size_t per_step) {
    decoder dec(m, capacity, p);
    std::vector<decoded_row> got(jobs.size()), done;
    std::vector<int> job_of(capacity, -1);
    size_t next = 0, returned = 0;
    while (returned < jobs.size()) {
      for (size_t k = 0; k < per_step && next < jobs.size() && dec.active() < dec.capacity();
           ++k, ++next)
        job_of[dec.admit(jobs[next].prompt, jobs[next].stream, false)] = int(next);
      done.clear();
      dec.step(done);
      for (auto& r : done) got[job_of[r.slot]] = r;
      returned += done.size();
    }
    return got;
  };
  const auto alone = decode_all(/*capacity=*/1, 1);
  const auto packed = decode_all(/*capacity=*/12, 12);
  const auto staggered = decode_all(/*capacity=*/5, 2);
  for (size_t i = 0; i < jobs.size(); ++i) {
    ASSERT_FALSE(alone[i].tokens.empty());
    EXPECT_EQ(alone[i].tokens, packed[i].tokens) << "job " << i;
    EXPECT_EQ(alone[i].tokens, staggered[i].tokens) << "job " << i;
    EXPECT_EQ(alone[i].logprobs, packed[i].logprobs) << "job " << i;  // bitwise
    EXPECT_EQ(alone[i].logprobs, staggered[i].logprobs) << "job " << i;
  }
}

}  // namespace
}  // namespace adarl
