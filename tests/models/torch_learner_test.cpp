#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <limits>

#include "models/decode/sampler.hpp"
#include "models/weights/snapshot.hpp"
#include "models/torch_engines.hpp"
#include "tokenizers/tokenizer.hpp"

namespace adarl {
namespace {

namespace fs = std::filesystem;

// Token ids of the test vocabulary: 4 specials, then 'a', 'b', 'c'.
constexpr int32_t a = tokenizer::num_special, b = a + 1, c = a + 2;

torch_learner_config tiny(int32_t d_model = 16) {
  torch_learner_config l;
  l.policy.model.vocab_size = 8;
  l.policy.model.d_model = d_model;
  l.policy.model.n_layers = 1;
  l.policy.model.n_heads = 2;
  l.policy.model.d_ff = 32;
  l.policy.model.max_len = 16;
  l.policy.charset = "abcd";
  l.policy.init_seed = 7;
  l.optimizer.lr = 1e-2;
  l.optimizer.warmup_steps = 1;
  return l;
}

std::unique_ptr<learner_engine> make(const torch_learner_config& c) {
  auto e = make_torch_learner(c);
  EXPECT_TRUE(e.ok()) << (e.ok() ? "" : e.err().message);
  return std::move(*e);
}

// Log-probs of each completion under a snapshot's weights, per token.
std::vector<std::vector<float>> logprobs_of(const weights_ptr& w, const model_config& mc,
                                            const std::vector<std::vector<int32_t>>& prompts,
                                            const std::vector<std::vector<int32_t>>& comps) {
  transformer m(mc);
  const auto& snap = dynamic_cast<const weight_snapshot&>(*w);
  EXPECT_TRUE(load_snapshot(m, snap).ok());
  torch::NoGradGuard no_grad;
  torch::Tensor mask;
  auto lp = completion_logprobs(*m, prompts, comps, 1.f, mask);
  std::vector<std::vector<float>> out(comps.size());
  for (size_t i = 0; i < comps.size(); ++i)
    for (size_t j = 0; j < comps[i].size(); ++j)
      out[i].push_back(lp[int64_t(i)][int64_t(j)].item<float>());
  return out;
}

double total(const std::vector<float>& v) {
  double s = 0;
  for (float x : v) s += x;
  return s;
}

const std::vector<int32_t> prompt{tokenizer::bos, c, tokenizer::sep};
const std::vector<int32_t> ab{a, b, tokenizer::eos}, ba{b, a, tokenizer::eos};

// "ab" with advantage +1 and "ba" with -1, behaviour log-probs from `w`.
std::vector<train_sample> ab_batch(const weights_ptr& w, const model_config& mc) {
  auto lp = logprobs_of(w, mc, {prompt, prompt}, {ab, ba});
  return {{1, prompt, ab, lp[0], 1.f, 1.f, w->version},
          {1, prompt, ba, lp[1], -1.f, 0.f, w->version}};
}

// True when both snapshots hold the same parameter names and bit-identical tensors.
bool same_weights(const weights_ptr& x, const weights_ptr& y) {
  const auto& xs = dynamic_cast<const weight_snapshot&>(*x);
  const auto& ys = dynamic_cast<const weight_snapshot&>(*y);
  if (xs.params.size() != ys.params.size()) return false;
  for (size_t i = 0; i < xs.params.size(); ++i)
    if (xs.params[i].first != ys.params[i].first ||
        !torch::equal(xs.params[i].second, ys.params[i].second))
      return false;
  return true;
}

fs::path fresh_dir(const std::string& name) {
  auto d = fs::temp_directory_path() /
           ("adarl_learner_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  return d;
}

TEST(TorchLearnerTest, PositiveAdvantageRaisesLogProbAndEveryCallIsOneStep) {
  const auto cfg = tiny();
  auto e = make(cfg);
  const auto& mc = cfg.policy.model;
  const double before = total(logprobs_of(e->snapshot(), mc, {prompt}, {ab})[0]);
  const double ba_before = total(logprobs_of(e->snapshot(), mc, {prompt}, {ba})[0]);
  for (uint64_t i = 0; i < 10; ++i) {
    auto s = e->train(ab_batch(e->snapshot(), mc));
    ASSERT_TRUE(s.ok()) << s.err().message;
    EXPECT_EQ(s->samples, 2u);
    EXPECT_EQ(s->tokens, 6u);
    EXPECT_GT(s->grad_norm, 0);
    EXPECT_GT(s->entropy, 0);
    EXPECT_EQ(e->version(), i + 1);
  }
  EXPECT_EQ(e->snapshot()->version, 10u);
  const double after = total(logprobs_of(e->snapshot(), mc, {prompt}, {ab})[0]);
  const double ba_after = total(logprobs_of(e->snapshot(), mc, {prompt}, {ba})[0]);
  EXPECT_GT(after, before + 1.0);
  EXPECT_LT(ba_after, ba_before);
}

TEST(TorchLearnerTest, MicroBatchSizeDoesNotChangeLossOrGradient) {
  // Uneven lengths, so a mean of micro-batch means would differ from the token-mean.
  auto cfg = tiny();
  auto probe = make(cfg);
  const auto w = probe->snapshot();
  std::vector<std::vector<int32_t>> comps{
      {a, tokenizer::eos}, {b, a, c, a, b, tokenizer::eos}, {c}, {a, a, a}, {b, b}};
  std::vector<std::vector<int32_t>> prompts(comps.size(), prompt);
  prompts[3] = {tokenizer::bos, a, b, c, tokenizer::sep};
  auto lp = logprobs_of(w, cfg.policy.model, prompts, comps);
  std::vector<train_sample> batch;
  const float adv[] = {1.5f, -0.5f, 2.f, -1.f, 0.25f};
  for (size_t i = 0; i < comps.size(); ++i) {
    for (auto& x : lp[i]) x -= 0.1f * float(i);  // ratios away from 1, some clipped
    batch.push_back({i, prompts[i], comps[i], lp[i], adv[i], 0.f, 0});
  }
  batch.push_back({9, prompt, {}, {}, 3.f, 0.f, 0});  // empty completion: skipped

  cfg.micro_batch = 1;
  auto one = make(cfg)->train(batch);
  cfg.micro_batch = 64;
  auto all = make(cfg)->train(batch);
  ASSERT_TRUE(one.ok() && all.ok());
  EXPECT_EQ(one->samples, 5u);
  EXPECT_EQ(one->tokens, 14u);
  EXPECT_NEAR(one->loss, all->loss, 1e-5);
  EXPECT_NEAR(one->grad_norm, all->grad_norm, 1e-5);
  EXPECT_NEAR(one->entropy, all->entropy, 1e-5);
  EXPECT_NEAR(one->mean_ratio, all->mean_ratio, 1e-5);
  EXPECT_NEAR(one->clip_fraction, all->clip_fraction, 1e-6);
  EXPECT_GT(all->clip_fraction, 0);
  EXPECT_GT(all->mean_ratio, 1);  // old log-probs were lowered
}

TEST(TorchLearnerTest, CurrentBehaviourLogProbsGiveRatioOneAndNoClipping) {
  const auto cfg = tiny();
  auto e = make(cfg);
  auto s = e->train(ab_batch(e->snapshot(), cfg.policy.model));
  ASSERT_TRUE(s.ok()) << s.err().message;
  EXPECT_NEAR(s->mean_ratio, 1.0, 1e-5);
  EXPECT_EQ(s->clip_fraction, 0.0);
  // Ratio 1: the loss is -(token-weighted mean advantage) = -(3 * 1 - 3 * 1) / 6 = 0.
  EXPECT_NEAR(s->loss, 0.0, 1e-6);
}

TEST(TorchLearnerTest, EmptyBatchReturnsZeroStatsAndCountsANoOpStep) {
  auto e = make(tiny());
  const auto before = e->snapshot();
  auto s = e->train({{1, prompt, {}, {}, 1.f, 0.f, 0}});
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->samples, 0u);
  EXPECT_EQ(s->tokens, 0u);
  EXPECT_EQ(s->loss, 0.0);
  EXPECT_EQ(e->version(), 1u);  // the step counts, the weights stay
  EXPECT_TRUE(same_weights(before, e->snapshot()));
}

// Issue 38: a non-finite loss or gradient is never applied (Megatron-LM's NaN check):
// the weights and Adam's moments stay, the step counts, and the stats say which
// quantity it was. The next finite step trains as usual.
TEST(TorchLearnerTest, ANonFiniteLossIsNotAppliedAndTheNextStepTrains) {
  const auto cfg = tiny();
  auto e = make(cfg);
  const auto& mc = cfg.policy.model;
  const auto before = e->snapshot();
  auto nan_batch = ab_batch(before, mc);
  nan_batch[0].advantage = std::numeric_limits<float>::quiet_NaN();
  auto s = e->train(nan_batch);
  ASSERT_TRUE(s.ok()) << s.err().message;
  EXPECT_EQ(s->nonfinite, "loss");
  EXPECT_EQ(e->version(), 1u);
  EXPECT_TRUE(same_weights(before, e->snapshot()));
  auto inf_batch = ab_batch(before, mc);
  inf_batch[1].advantage = std::numeric_limits<float>::infinity();
  s = e->train(inf_batch);
  ASSERT_TRUE(s.ok()) << s.err().message;
  EXPECT_FALSE(s->nonfinite.empty());
  EXPECT_TRUE(same_weights(before, e->snapshot()));
  s = e->train(ab_batch(e->snapshot(), mc));
  ASSERT_TRUE(s.ok()) << s.err().message;
  EXPECT_TRUE(s->nonfinite.empty());
  EXPECT_TRUE(std::isfinite(s->grad_norm));
  EXPECT_FALSE(same_weights(before, e->snapshot()));
  const auto kept = e->snapshot();  // owns the snapshot for the loop below
  const auto& after = dynamic_cast<const weight_snapshot&>(*kept);
  for (const auto& [name, t] : after.params)
    EXPECT_TRUE(torch::isfinite(t).all().item<bool>()) << name;
}

TEST(TorchLearnerTest, UpdatesPerStepAreOneUpdatePerMiniBatchInOrder) {
  // learner.updates_per_step 2 on [x, y] is the update on [x] then the update on [y]
  // (the same AdamW steps and schedule), taken as one step: one version.
  auto two_cfg = tiny();
  two_cfg.updates_per_step = 2;
  auto two = make(two_cfg);
  auto one = make(tiny());
  const auto& mc = two_cfg.policy.model;
  const auto start = two->snapshot();
  ASSERT_TRUE(same_weights(start, one->snapshot()));
  const auto batch = ab_batch(start, mc);
  auto s = two->train(batch);
  ASSERT_TRUE(s.ok()) << s.err().message;
  EXPECT_EQ(s->updates, 2u);
  EXPECT_EQ(s->samples, 2u);
  EXPECT_EQ(two->version(), 1u);
  auto first = one->train({batch[0]});
  auto second = one->train({batch[1]});
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_EQ(first->updates, 1u);
  EXPECT_TRUE(same_weights(two->snapshot(), one->snapshot()));
  EXPECT_NEAR(s->loss, (first->loss + second->loss) / 2, 1e-6);
  // More updates than samples: one update per sample.
  auto many_cfg = tiny();
  many_cfg.updates_per_step = 8;
  auto many = make(many_cfg);
  auto m = many->train(ab_batch(many->snapshot(), mc));
  ASSERT_TRUE(m.ok()) << m.err().message;
  EXPECT_EQ(m->updates, 2u);
  EXPECT_TRUE(same_weights(many->snapshot(), one->snapshot()));
  auto zero_cfg = tiny();
  zero_cfg.updates_per_step = 0;
  auto bad = make_torch_learner(zero_cfg);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.err().message.find("updates_per_step"), std::string::npos) << bad.err().message;
}

TEST(TorchLearnerTest, MalformedSampleIsAnErrorNamingIt) {
  auto e = make(tiny());
  auto s = e->train({{4, prompt, ab, {-1.f}, 1.f, 0.f, 0}});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.err().message.find("1 behaviour log-probs for 3 completion tokens"),
            std::string::npos)
      << s.err().message;
  auto too_long = e->train({{4, prompt, std::vector<int32_t>(20, a), std::vector<float>(20),
                             1.f, 0.f, 0}});
  ASSERT_FALSE(too_long.ok());
  EXPECT_NE(too_long.err().message.find("max_len 16"), std::string::npos);
  EXPECT_EQ(e->version(), 0u);
}

TEST(TorchLearnerTest, SaveThenRestoreIntoANewEngineGivesTheSameWeightsAndVersion) {
  const auto dir = fresh_dir("roundtrip");
  const auto cfg = tiny();
  auto e = make(cfg);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(e->train(ab_batch(e->snapshot(), cfg.policy.model)).ok());
  ASSERT_TRUE(e->save(dir.string()).ok());

  auto other_cfg = cfg;
  other_cfg.policy.init_seed = 99;  // different random init
  auto f = make(other_cfg);
  auto r = f->restore(dir.string());
  ASSERT_TRUE(r.ok()) << r.err().message;
  EXPECT_EQ(f->version(), 3u);
  const auto x = e->snapshot(), y = f->snapshot();
  EXPECT_EQ(y->version, 3u);
  EXPECT_TRUE(same_weights(x, y));
  EXPECT_FALSE(same_weights(x, make(other_cfg)->snapshot()));  // the check can fail
  // The optimizer state came too: the next step is the same on both.
  const auto batch = ab_batch(x, cfg.policy.model);
  auto se = e->train(batch), sf = f->train(batch);
  ASSERT_TRUE(se.ok() && sf.ok());
  EXPECT_DOUBLE_EQ(se->loss, sf->loss);
  EXPECT_TRUE(same_weights(e->snapshot(), f->snapshot()));

  // init_checkpoint starts a learner from its weights, as a base policy: version 0.
  auto init_cfg = cfg;
  init_cfg.policy.init_checkpoint = dir.string();
  auto g = make(init_cfg);
  EXPECT_EQ(g->version(), 0u);
  fs::remove_all(dir);
}

TEST(TorchLearnerTest, RestoreOfAnotherShapeIsAnErrorAndChangesNothing) {
  const auto dir = fresh_dir("shape");
  auto e = make(tiny(/*d_model=*/16));
  ASSERT_TRUE(e->save(dir.string()).ok());
  auto f = make(tiny(/*d_model=*/32));
  const auto before = f->snapshot();
  auto r = f->restore(dir.string());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.err().message.find("d_model 16"), std::string::npos) << r.err().message;
  EXPECT_NE(r.err().message.find("d_model 32"), std::string::npos) << r.err().message;
  EXPECT_EQ(f->version(), 0u);
  EXPECT_TRUE(same_weights(before, f->snapshot()));

  auto other_charset = tiny();
  other_charset.policy.charset = "wxyz";
  auto g = make(other_charset);
  auto rc = g->restore(dir.string());
  ASSERT_FALSE(rc.ok());
  EXPECT_NE(rc.err().message.find("charset"), std::string::npos) << rc.err().message;
  fs::remove_all(dir);
}

TEST(TorchLearnerTest, CudaOnThisCpuBuildAndBadSettingsAreErrors) {
  auto cfg = tiny();
  cfg.policy.device = "cuda:0";
  auto e = make_torch_learner(cfg);
  if (torch::cuda::is_available()) GTEST_SKIP() << "this LibTorch has CUDA";
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.err().message.find("CUDA"), std::string::npos) << e.err().message;

  auto mb = tiny();
  mb.micro_batch = 0;
  auto m = make_torch_learner(mb);
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.err().message.find("micro_batch"), std::string::npos);

  auto shape = tiny();
  shape.policy.model.n_heads = 3;  // does not divide 16
  EXPECT_FALSE(make_torch_learner(shape).ok());
}

}  // namespace
}  // namespace adarl
