// The HF engines: the learner trains and writes an HF directory back (dtype of the input,
// tokenizer files, exact master copy, optimizer state), generators take its snapshots
// in process and as bytes.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "formats/safetensors.hpp"
#include "models/device.hpp"
#include "models/hf_engines.hpp"
#include "models/arch/logprobs.hpp"
#include "models/weights/hf_policy.hpp"
#include "models/weights/snapshot.hpp"
#include "tests/formats/hf_test_files.hpp"
#include "tests/formats/tiny_hf.hpp"

namespace adarl {
namespace {

namespace fs = std::filesystem;
using ids = std::vector<int32_t>;

test::tiny_hf_spec bf16_spec() {
  test::tiny_hf_spec s;
  s.real_tokenizer = false;
  s.scale = 0.1f;
  return s;
}

hf_learner_config learner_config(const std::string& path) {
  hf_learner_config c;
  c.policy.path = path;
  c.policy.max_len = 64;
  c.optimizer.lr = 1e-2;
  c.optimizer.warmup_steps = 0;
  c.pad_id = 266;
  return c;
}

// One sample rewarded towards the completion {10, 20, 30}, with its log-probs under `lp`.
train_sample rewarded(const std::vector<float>& lp, float advantage) {
  train_sample s;
  s.prompt = {267, 40, 41, 268};
  s.completion = {10, 20, 30};
  s.behaviour_logprobs = lp;
  s.advantage = advantage;
  return s;
}

std::vector<float> logprobs_of(hf_model& m, const train_sample& s) {
  torch::NoGradGuard g;
  auto scores = score_completions(*m, {s.prompt}, {s.completion}, 1.f, 266);
  std::vector<float> out;
  for (size_t j = 0; j < s.completion.size(); ++j)
    out.push_back(scores.logp[0][int64_t(j)].item<float>());
  return out;
}

TEST(HfEnginesTest, LearnerRaisesARewardedCompletionAndCheckpointsAsAnHfDirectory) {
  test::scratch_dir dir;
  test::write_tiny_hf(dir.file("base"), bf16_spec());
  auto learner = make_hf_learner(learner_config(dir.file("base")));
  ASSERT_TRUE(learner.ok()) << learner.err().message;
  auto base = build_hf_policy(learner_config(dir.file("base")).policy, torch::kCPU);
  ASSERT_TRUE(base.ok());
  const auto before = logprobs_of(base->model, rewarded({}, 0));
  for (int step = 0; step < 3; ++step) {
    auto stats = (*learner)->train({rewarded(before, 1.f)});
    ASSERT_TRUE(stats.ok()) << stats.err().message;
    EXPECT_EQ(stats->tokens, 3u);
    // Off-policy after the first step: once the ratio passes 1 + clip_high the clipped
    // surrogate has no gradient.
    if (step == 0) EXPECT_GT(stats->grad_norm, 0);
  }
  EXPECT_EQ((*learner)->version(), 3u);
  // The snapshot, loaded into a copy, gives the rewarded completion more probability.
  auto snap = (*learner)->snapshot();
  ASSERT_TRUE(load_snapshot(*base->model, dynamic_cast<const weight_snapshot&>(*snap)).ok());
  const auto after = logprobs_of(base->model, rewarded({}, 0));
  EXPECT_GT(after[0] + after[1] + after[2], before[0] + before[1] + before[2] + 0.1f);

  const std::string ck = dir.file("ck");
  ASSERT_TRUE((*learner)->save(ck).ok());
  for (const char* f : {"hf/config.json", "hf/model.safetensors", "hf/tokenizer.json",
                        "hf/tokenizer_config.json", "hf/generation_config.json",
                        "master_weights.safetensors", "optimizer.safetensors", "meta.json"})
    EXPECT_TRUE(fs::exists(ck + "/" + f)) << f;
  EXPECT_FALSE(fs::exists(ck + "/hf/master_weights.safetensors"));  // hf/ is HF files only
  EXPECT_EQ(test::read_bytes(ck + "/hf/config.json"),
            test::read_bytes(dir.file("base") + "/config.json"));
  // In the input's dtype, rounded from the trained float32 weights.
  auto file = safetensors_file::open(ck + "/hf/model.safetensors");
  ASSERT_TRUE(file.ok());
  auto embed = file->tensor("model.embed_tokens.weight");
  EXPECT_EQ(embed->dtype, tensor_dtype::bf16);
  EXPECT_EQ(file->metadata().at("format"), "pt");
  const auto& trained = dynamic_cast<const weight_snapshot&>(*snap);
  std::vector<float> values(size_t(embed->numel()));
  ASSERT_TRUE(to_float32(*embed, values, "embed").ok());
  for (const auto& [name, t] : trained.params)
    if (name == "model.embed_tokens.weight")
      EXPECT_TRUE(torch::equal(torch::from_blob(values.data(), t.sizes()),
                               t.to(torch::kBFloat16).to(torch::kFloat)));

  // A restored learner continues exactly: the same next step as the original.
  auto other = make_hf_learner(learner_config(dir.file("base")));
  ASSERT_TRUE(other.ok());
  ASSERT_TRUE((*other)->restore(ck).ok());
  EXPECT_EQ((*other)->version(), 3u);
  auto a = (*learner)->train({rewarded(before, -0.5f)});
  auto b = (*other)->train({rewarded(before, -0.5f)});
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->loss, b->loss);
  EXPECT_EQ(a->grad_norm, b->grad_norm);
  auto sa = dynamic_cast<const weight_snapshot&>(*(*learner)->snapshot());
  auto sb = dynamic_cast<const weight_snapshot&>(*(*other)->snapshot());
  EXPECT_EQ(serialize(sa), serialize(sb));
  // The HF directory of the checkpoint is itself a base a run can start from.
  hf_policy_config from_ck;
  from_ck.path = ck + "/hf";
  from_ck.max_len = 64;
  auto reopened = build_hf_policy(from_ck, torch::kCPU);
  ASSERT_TRUE(reopened.ok()) << reopened.err().message;
  EXPECT_EQ(reopened->source.dtype, tensor_dtype::bf16);
}

TEST(HfEnginesTest, TheLogprobGapMeasuresFreshSamplesDrawnFromAnotherDistribution) {
  test::scratch_dir dir;
  test::write_tiny_hf(dir.file("base"), bf16_spec());
  auto base = build_hf_policy(learner_config(dir.file("base")).policy, torch::kCPU);
  ASSERT_TRUE(base.ok());
  const auto exact = logprobs_of(base->model, rewarded({}, 0));
  std::vector<float> shifted = exact;
  for (float& x : shifted) x -= 0.3f;  // a generator whose distribution is not the learner's
  {
    auto learner = make_hf_learner(learner_config(dir.file("base")));
    ASSERT_TRUE(learner.ok());
    auto stats = (*learner)->train({rewarded(exact, 1.f)});
    ASSERT_TRUE(stats.ok());
    EXPECT_EQ(stats->logprob_gap_tokens, 3u);
    EXPECT_LT(stats->logprob_gap, 1e-4);  // the same weights: rounding only
  }
  {
    auto learner = make_hf_learner(learner_config(dir.file("base")));
    ASSERT_TRUE(learner.ok());
    auto stale = rewarded(exact, 1.f);
    stale.version = 7;  // not the learner's weights: not measured
    auto stats = (*learner)->train({rewarded(shifted, 1.f), stale});
    ASSERT_TRUE(stats.ok());
    EXPECT_EQ(stats->logprob_gap_tokens, 3u);
    EXPECT_NEAR(stats->logprob_gap, 0.3, 1e-3);
    // A token whose behaviour log-prob the generator did not give (NaN) trains with the
    // learner's own (ratio 1) and is left out of the gap.
    auto partial = rewarded(exact, 1.f);
    partial.behaviour_logprobs[1] = std::numeric_limits<float>::quiet_NaN();
    partial.version = 1;
    auto with_missing = (*learner)->train({partial});
    ASSERT_TRUE(with_missing.ok());
    EXPECT_TRUE(with_missing->nonfinite.empty());
    EXPECT_TRUE(std::isfinite(with_missing->loss));
    EXPECT_EQ(with_missing->logprob_gap_tokens, 2u);
    // The next step's samples of version 0 are stale: nothing is measured.
    auto next = (*learner)->train({rewarded(exact, 1.f)});
    ASSERT_TRUE(next.ok());
    EXPECT_EQ(next->logprob_gap_tokens, 0u);
  }
}

TEST(HfEnginesTest, LearnerRefusesSamplesThatDoNotFit) {
  test::scratch_dir dir;
  test::write_tiny_hf(dir.file("base"), bf16_spec());
  auto learner = make_hf_learner(learner_config(dir.file("base")));
  ASSERT_TRUE(learner.ok());
  auto s = rewarded({-1, -1, -1}, 1);
  s.completion[1] = 272;  // the vocabulary is 272 rows
  auto r = (*learner)->train({s});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.err().message.find("token id 272 outside the vocabulary [0, 272)"), std::string::npos);
  s = rewarded({-1, -1, -1}, 1);
  s.prompt.assign(63, 40);
  EXPECT_NE((*learner)->train({s}).err().message.find("model.max_len 64"), std::string::npos);
  auto bad = learner_config(dir.file("base"));
  bad.policy.max_len = 100000;
  EXPECT_NE(make_hf_learner(bad).err().message.find("model.max_len"), std::string::npos);
  bad = learner_config(dir.file("nowhere"));
  EXPECT_FALSE(make_hf_learner(bad).ok());
}

// Issue 38: a config.json that does not describe the weights (here: more layers and a
// wider model than the safetensors hold) is refused from the headers, naming the tensor,
// before the model is allocated.
TEST(HfEnginesTest, AConfigThatDoesNotDescribeTheWeightsIsRefusedBeforeAllocating) {
  test::scratch_dir dir;
  test::write_tiny_hf(dir.file("base"), bf16_spec());
  const auto config_path = dir.file("base") + "/config.json";
  nlohmann::json j;
  {
    std::ifstream in(config_path);
    j = nlohmann::json::parse(in);
  }
  j["num_hidden_layers"] = j["num_hidden_layers"].get<int64_t>() + 1;
  std::ofstream(config_path) << j.dump();
  auto more_layers = make_hf_learner(learner_config(dir.file("base")));
  ASSERT_FALSE(more_layers.ok());
  EXPECT_NE(more_layers.err().message.find("is missing"), std::string::npos)
      << more_layers.err().message;
  j["num_hidden_layers"] = j["num_hidden_layers"].get<int64_t>() - 1;
  j["intermediate_size"] = 64000;
  std::ofstream(config_path) << j.dump();
  auto wider = make_hf_learner(learner_config(dir.file("base")));
  ASSERT_FALSE(wider.ok());
  EXPECT_NE(wider.err().message.find("64000"), std::string::npos)
      << wider.err().message;
}

TEST(HfEnginesTest, GeneratorTakesSnapshotsInProcessAndAsBytes) {
  test::scratch_dir dir;
  test::write_tiny_hf(dir.file("base"), bf16_spec());
  auto learner = make_hf_learner(learner_config(dir.file("base")));
  ASSERT_TRUE(learner.ok());
  ASSERT_TRUE((*learner)->train({rewarded({-5, -5, -5}, 1.f)}).ok());
  auto snap = (*learner)->snapshot();

  // A remote worker's generator: the architecture from config.json text, no weights.
  hf_generator_config g;
  g.policy.config_json = test::read_bytes(dir.file("base") + "/config.json");
  g.policy.max_len = 64;
  g.capacity = 4;
  g.sampling.max_new_tokens = 6;
  g.sampling.greedy = true;
  g.end_ids = {266, 268};
  auto remote = make_hf_generator(g);
  ASSERT_TRUE(remote.ok()) << remote.err().message;
  auto bytes = snap->to_bytes();
  ASSERT_TRUE(bytes.ok());
  auto weights = (*remote)->weights_from_bytes(*bytes, 1);
  ASSERT_TRUE(weights.ok()) << weights.err().message;
  ASSERT_TRUE((*remote)->load(*weights).ok());
  EXPECT_EQ((*remote)->version(), 1u);

  g.policy.config_json.clear();
  g.policy.path = dir.file("base");
  auto local = make_hf_generator(g);
  ASSERT_TRUE(local.ok());
  ASSERT_TRUE((*local)->load(snap).ok());
  auto run = [](generation_engine& e) {
    e.admit({7, 0, {267, 40, 41, 268}, 5, true});
    std::vector<generation_result> out;
    while (out.empty()) e.step(out);
    return out[0];
  };
  auto a = run(**remote), b = run(**local);
  EXPECT_EQ(a.tokens, b.tokens);
  EXPECT_EQ(a.logprobs, b.logprobs);
  EXPECT_EQ(a.ticket, 7u);
  EXPECT_EQ(a.version, 1u);
  // Weights of another shape are refused and leave the engine as it was.
  auto spec = bf16_spec();
  spec.hidden = 32;
  test::write_tiny_hf(dir.file("small"), spec);
  auto small_learner = make_hf_learner(learner_config(dir.file("small")));
  ASSERT_TRUE(small_learner.ok());
  auto misfit = (*local)->load((*small_learner)->snapshot());
  ASSERT_FALSE(misfit.ok());
  EXPECT_NE(misfit.err().message.find("has shape"), std::string::npos);
  EXPECT_EQ(run(**local).tokens, a.tokens);
  auto truncated = (*remote)->weights_from_bytes(bytes->substr(0, 100), 2);
  EXPECT_FALSE(truncated.ok());
}

// On a CUDA LibTorch (scripts/gpu-check.sh; the device is ADARL_TEST_DEVICE, default
// cuda:0): the model's log-probs and greedy tokens on the GPU are the CPU's, and the
// learner under bfloat16 autocast trains in the rewarded direction with float32 master
// weights. Skipped on a CPU-only LibTorch.
TEST(HfEnginesTest, OnCudaTheModelAgreesWithTheCpuAndTrainsUnderBf16Autocast) {
  if (!torch::cuda::is_available())
    GTEST_SKIP() << "this LibTorch has no CUDA (scripts/gpu-check.sh runs it on a GPU)";
  const char* env = std::getenv("ADARL_TEST_DEVICE");
  const std::string device = env != nullptr && *env != '\0' ? env : "cuda:0";
  auto dev = parse_device(device);
  ASSERT_TRUE(dev.ok()) << dev.err().message;
  test::scratch_dir dir;
  auto spec = bf16_spec();
  spec.dtype = tensor_dtype::f32;
  test::write_tiny_hf(dir.file("base"), spec);
  auto cfg = learner_config(dir.file("base"));
  auto cpu = build_hf_policy(cfg.policy, torch::kCPU);
  cfg.policy.device = device;
  auto gpu = build_hf_policy(cfg.policy, *dev);
  ASSERT_TRUE(cpu.ok() && gpu.ok());
  EXPECT_TRUE(gpu->model->device().is_cuda());
  const auto probe = rewarded({}, 0);
  const auto on_cpu = logprobs_of(cpu->model, probe), on_gpu = logprobs_of(gpu->model, probe);
  for (size_t j = 0; j < on_cpu.size(); ++j) EXPECT_NEAR(on_cpu[j], on_gpu[j], 1e-3) << j;

  hf_generator_config g;
  g.policy = cfg.policy;
  g.capacity = 4;
  g.sampling.max_new_tokens = 6;
  g.sampling.greedy = true;
  g.end_ids = {266, 268};
  auto gen_gpu = make_hf_generator(g);
  g.policy.device = "cpu";
  auto gen_cpu = make_hf_generator(g);
  ASSERT_TRUE(gen_gpu.ok() && gen_cpu.ok()) << (gen_gpu.ok() ? "" : gen_gpu.err().message);
  auto run = [](generation_engine& e) {
    e.admit({1, 0, {267, 40, 41, 268}, 5, true});
    std::vector<generation_result> out;
    while (out.empty()) e.step(out);
    return out[0];
  };
  const auto a = run(**gen_cpu), b = run(**gen_gpu);
  EXPECT_EQ(a.tokens, b.tokens);
  ASSERT_EQ(a.logprobs.size(), b.logprobs.size());
  for (size_t j = 0; j < a.logprobs.size(); ++j) EXPECT_NEAR(a.logprobs[j], b.logprobs[j], 1e-3);

  cfg.autocast_bf16 = true;
  auto learner = make_hf_learner(cfg);
  ASSERT_TRUE(learner.ok()) << learner.err().message;
  for (int step = 0; step < 3; ++step) {
    auto stats = (*learner)->train({rewarded(on_cpu, 1.f)});
    ASSERT_TRUE(stats.ok()) << stats.err().message;
    EXPECT_TRUE(std::isfinite(stats->loss) && std::isfinite(stats->grad_norm));
    if (step == 0) EXPECT_GT(stats->grad_norm, 0);
  }
  auto snap = (*learner)->snapshot();
  const auto& weights = dynamic_cast<const weight_snapshot&>(*snap);
  for (const auto& [name, t] : weights.params) EXPECT_EQ(t.scalar_type(), torch::kFloat) << name;
  ASSERT_TRUE(load_snapshot(*cpu->model, weights).ok());
  const auto after = logprobs_of(cpu->model, probe);
  EXPECT_GT(after[0] + after[1] + after[2], on_cpu[0] + on_cpu[1] + on_cpu[2] + 0.1f);
}

}  // namespace
}  // namespace adarl
