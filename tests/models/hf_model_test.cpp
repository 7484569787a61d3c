// The HF decoder (Qwen2 / Llama family) on tiny checkpoints the test writes: names and
// shapes as in the file, the continuous-batching decoder against the padded forward, the
// sampler's log-probs against the learner's, GQA attention's kernel against its reference.
#include <gtest/gtest.h>

#include <random>

#include "base/random_keys.hpp"
#include "formats/safetensors.hpp"
#include "models/arch/rotary.hpp"
#include "models/arch/slot_attention.hpp"
#include "models/decode/sampler.hpp"
#include "models/weights/hf_policy.hpp"
#include "tests/formats/hf_test_files.hpp"
#include "tests/formats/tiny_hf.hpp"

namespace adarl {
namespace {

using ids = std::vector<int32_t>;

// A tiny checkpoint with weights large enough that a wrong position, head or cache slot
// changes the logits visibly.
test::tiny_hf_spec sharp_spec() {
  test::tiny_hf_spec s;
  s.real_tokenizer = false;
  s.dtype = tensor_dtype::f32;
  s.scale = 0.15f;
  return s;
}

hf_policy load(const std::string& dir, int32_t max_len = 96) {
  hf_policy_config c;
  c.path = dir;
  c.max_len = max_len;
  auto p = build_hf_policy(c, torch::kCPU);
  EXPECT_TRUE(p.ok()) << (p.ok() ? "" : p.err().message);
  return std::move(*p);
}

ids random_ids(std::mt19937& rng, int len) {
  std::uniform_int_distribution<int32_t> tok(0, 265);
  ids p;
  for (int i = 0; i < len; ++i) p.push_back(tok(rng));
  return p;
}

TEST(HfModelTest, ParametersAreTheCheckpointsTensorsByName) {
  test::scratch_dir dir;
  for (bool tied : {true, false}) {
    auto spec = sharp_spec();
    spec.tied = tied;
    const auto path = dir.file(tied ? "tied" : "untied");
    test::write_tiny_hf(path, spec);
    auto p = load(path);
    auto file = safetensors_file::open(path + "/model.safetensors");
    ASSERT_TRUE(file.ok());
    std::vector<std::string> names;
    int64_t numel = 0;
    for (const auto& item : p.model->named_parameters()) {
      names.push_back(item.key());
      numel += item.value().numel();
      // The loaded values are the file's.
      auto view = file->tensor(item.key());
      ASSERT_TRUE(view.ok()) << item.key();
      std::vector<float> want(size_t(view->numel()));
      ASSERT_TRUE(to_float32(*view, want, item.key()).ok());
      EXPECT_TRUE(torch::equal(item.value(), torch::from_blob(want.data(), item.value().sizes())))
          << item.key();
    }
    std::sort(names.begin(), names.end());
    EXPECT_EQ(names, file->names());
    EXPECT_EQ(numel, p.model->config().parameter_count());
    EXPECT_EQ(p.source.dtype, tensor_dtype::f32);
  }
}

// Logits of each row's every position through decode_slots (prompts prefilled packed,
// then one token per step, rows joining late), against the padded forward.
TEST(HfModelTest, SlotDecodingAgreesWithThePaddedForward) {
  test::scratch_dir dir;
  for (const char* family : {"qwen2", "llama"}) {
    auto spec = sharp_spec();
    spec.model_type = family;
    spec.attention_bias = true;
    spec.rope_scaling = std::string(family) == "llama"
                            ? R"({"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0, "original_max_position_embeddings": 16})"
                            : "null";
    test::write_tiny_hf(dir.file(family), spec);
    auto p = load(dir.file(family));
    auto& m = p.model;
    c10::InferenceMode guard;
    std::mt19937 rng(3);
    std::vector<ids> rows{random_ids(rng, 7), random_ids(rng, 3), random_ids(rng, 12)};
    auto [tokens, mask] = left_pad(rows, 266);
    auto full = m->forward(tokens, mask);  // [3, 12, V]
    auto cache = m->make_slot_cache(4);
    // Step 1: rows 0 and 1 prefill (slots 2 and 0); step 2..: one token each, row 2 joins.
    std::vector<int64_t> done(3, 0);
    const int64_t slot_of[] = {2, 0, 3};
    const int64_t len = tokens.size(1);
    double worst = 0;
    for (int step = 0; step < 16; ++step) {
      std::vector<int64_t> t, s, pos, wanted;
      std::vector<std::pair<int, int64_t>> who;
      for (int r = 0; r < 3; ++r) {
        if (r == 2 && step < 2) continue;
        const int64_t n = int64_t(rows[r].size());
        if (done[r] == n) continue;
        const int64_t take = done[r] == 0 ? (r == 2 ? 5 : n) : 1;  // row 2: prefill 5, then steps
        for (int64_t k = done[r]; k < done[r] + take; ++k) {
          t.push_back(rows[r][k]);
          s.push_back(slot_of[r]);
          pos.push_back(k);
          wanted.push_back(int64_t(t.size()) - 1);
          who.push_back({r, k});
        }
        done[r] += take;
      }
      if (t.empty() && step >= 2) break;
      if (t.empty()) continue;
      auto as = [](std::vector<int64_t>& v) { return torch::tensor(v, torch::kLong); };
      auto logits = m->decode_slots(as(t), as(s), as(pos), as(wanted), cache, false);
      for (size_t w = 0; w < who.size(); ++w) {
        const auto [r, k] = who[w];
        const int64_t col = len - int64_t(rows[r].size()) + k;  // left padding
        worst = std::max(worst, (logits[int64_t(w)] - full[r][col]).abs().max().item<double>());
      }
    }
    EXPECT_LT(worst, 1e-4) << family;
    EXPECT_EQ(done, (std::vector<int64_t>{7, 3, 12}));
  }
}

TEST(HfModelTest, SampledLogProbsAgreeWithTheLearnersAndRowsDoNotDependOnTheBatch) {
  test::scratch_dir dir;
  test::write_tiny_hf(dir.file("m"), sharp_spec());
  auto p = load(dir.file("m"));
  std::mt19937 rng(7);
  std::vector<sample_job> jobs;
  for (int i = 0; i < 12; ++i) jobs.push_back({random_ids(rng, 2 + 2 * i), mix_keys(9, i)});
  sampling_params sp;
  sp.temperature = 0.8f;
  sp.max_new_tokens = 12;
  const ids ends{266, 268};
  auto out = sample_batch(p.model.ptr(), ends, jobs, sp);
  std::vector<ids> prompts, completions;
  size_t drawn = 0;
  for (size_t i = 0; i < jobs.size(); ++i) {
    prompts.push_back(jobs[i].prompt);
    completions.push_back(out[i].tokens);
    drawn += out[i].tokens.size();
    if (out[i].ended) {
      EXPECT_TRUE(out[i].tokens.back() == 266 || out[i].tokens.back() == 268);
    }
  }
  EXPECT_GT(drawn, 60u);
  torch::NoGradGuard g;
  auto scores = score_completions(*p.model, prompts, completions, sp.temperature, 266);
  double worst = 0;
  for (size_t i = 0; i < jobs.size(); ++i)
    for (size_t j = 0; j < out[i].logprobs.size(); ++j)
      worst = std::max(worst, std::abs(double(out[i].logprobs[j]) -
                                       scores.logp[int64_t(i)][int64_t(j)].item<double>()));
  EXPECT_LT(worst, 1e-4);
  // Alone, a row draws the same tokens (its stream, its positions).
  auto alone = sample_batch(p.model.ptr(), ends, {jobs[7]}, sp)[0];
  EXPECT_EQ(alone.tokens, out[7].tokens);
  // Batch-invariant decoding: bit-identical log-probs alone and in the batch.
  sp.batch_invariant = true;
  auto inv_all = sample_batch(p.model.ptr(), ends, jobs, sp);
  auto inv_one = sample_batch(p.model.ptr(), ends, {jobs[7]}, sp)[0];
  EXPECT_EQ(inv_one.tokens, inv_all[7].tokens);
  EXPECT_EQ(inv_one.logprobs, inv_all[7].logprobs);
}

TEST(HfModelTest, AnEndIdStopsARow) {
  test::scratch_dir dir;
  auto spec = sharp_spec();
  test::write_tiny_hf(dir.file("m"), spec);
  auto p = load(dir.file("m"));
  {
    // The output bias towards <|im_end|>: the final norm's output is near the embedding
    // row of 268, scaled up.
    torch::NoGradGuard g;
    auto named = p.model->named_parameters();
    named["model.embed_tokens.weight"][268].mul_(60);
  }
  sampling_params sp;
  sp.max_new_tokens = 20;
  auto out = sample_batch(p.model.ptr(), {268}, {{{1, 2, 3}, 1}, {{4, 5}, 2}}, sp);
  int ended = 0;
  for (const auto& o : out) {
    if (!o.ended) continue;
    ++ended;
    EXPECT_EQ(o.tokens.back(), 268);
    EXPECT_LT(o.tokens.size(), 20u);
  }
  EXPECT_GE(ended, 1);
}

TEST(HfModelTest, FusedGqaAttentionMatchesTheReference) {
  torch::manual_seed(4);
  const int64_t n = 9, hq = 6, hkv = 2, dh = 8, cap = 3, len = 10;
  auto q = torch::randn({n, hq, dh}), k = torch::randn({n, hkv, dh}), v = torch::randn({n, hkv, dh});
  // Slot 0 prefills positions 0..4, slot 2 positions 0..2, slot 1 one token at 0.
  auto slots = torch::tensor({0, 0, 0, 0, 0, 2, 2, 2, 1}, torch::kLong);
  auto positions = torch::tensor({0, 1, 2, 3, 4, 0, 1, 2, 0}, torch::kLong);
  auto kc1 = torch::zeros({cap, hkv, len, dh}), vc1 = torch::zeros({cap, hkv, len, dh});
  auto kc2 = kc1.clone(), vc2 = vc1.clone();
  auto fused = gqa_slot_attention(q, k, v, slots, positions, kc1, vc1);
  auto ref = gqa_slot_attention_reference(q, k, v, slots, positions, kc2, vc2);
  EXPECT_LT((fused - ref).abs().max().item<double>(), 1e-5);
  EXPECT_TRUE(torch::equal(kc1, kc2));
  // Query head 5 reads kv head 2: its output is attention over kv head 1's values only.
  EXPECT_LT((fused[8].narrow(0, 5 * dh, dh) - v[8][1]).abs().max().item<double>(), 1e-6);
  auto bad = torch::tensor({len}, torch::kLong);
  EXPECT_THROW(gqa_slot_attention(q.narrow(0, 0, 1), k.narrow(0, 0, 1), v.narrow(0, 0, 1),
                                  slots.narrow(0, 0, 1), bad, kc1, vc1),
               c10::Error);
}

TEST(HfModelTest, RotaryScalingFollowsTransformers) {
  hf_rope r;
  r.theta = 10000;
  auto base = rope_inverse_frequencies(r, 8);
  EXPECT_NEAR(base[1].item<double>(), std::pow(10000.0, -0.25), 1e-7);
  r.type = hf_rope::scaling::linear;
  r.factor = 4;
  EXPECT_TRUE(torch::allclose(rope_inverse_frequencies(r, 8), base / 4));
  // llama3, old context 32: wavelengths 2 pi / f of dims 0..3 are 6.3, 63, 628, 6283:
  // short ones kept (< 32 / 4), long ones divided by 8 (> 32 / 1), none in between.
  r.type = hf_rope::scaling::llama3;
  r.factor = 8;
  r.original_max_position_embeddings = 32;
  auto l3 = rope_inverse_frequencies(r, 8);
  EXPECT_FLOAT_EQ(l3[0].item<float>(), base[0].item<float>());
  EXPECT_FLOAT_EQ(l3[1].item<float>(), base[1].item<float>() / 8);
  EXPECT_FLOAT_EQ(l3[2].item<float>(), base[2].item<float>() / 8);
  EXPECT_FLOAT_EQ(l3[3].item<float>(), base[3].item<float>() / 8);
  // A medium wavelength is blended: between f / 8 and f.
  r.original_max_position_embeddings = 200;  // dim 1 (63): 50 <= 63 <= 200
  auto blend = rope_inverse_frequencies(r, 8)[1].item<float>();
  EXPECT_GT(blend, base[1].item<float>() / 8);
  EXPECT_LT(blend, base[1].item<float>());
}

}  // namespace
}  // namespace adarl
