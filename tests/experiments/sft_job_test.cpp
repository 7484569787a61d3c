#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include "experiments/sft_job.hpp"
#include "models/device.hpp"

namespace adarl {
namespace {

namespace fs = std::filesystem;

sft_job_config tiny(const std::string& out) {
  sft_job_config c;
  c.model.d_model = 32;
  c.model.n_layers = 1;
  c.model.n_heads = 2;
  c.model.d_ff = 64;
  c.model.max_len = 128;
  c.suite = "general";
  c.count = 200;
  c.steps = 40;
  c.batch_size = 16;
  c.lr = 5e-3;
  c.warmup_steps = 5;
  c.eval_count = 30;
  c.threads = 1;
  c.out = out;
  return c;
}

TEST(SftJobTest, TrainsWritesCheckpointAndEvaluatesHeldOutByLevel) {
  const auto out = (fs::temp_directory_path() / ("adarl_sft_" + std::to_string(::getpid())))
                       .string();
  std::ostringstream log;
  auto r = run_sft_job(tiny(out), log);
  ASSERT_TRUE(r.ok()) << r.err().message;
  EXPECT_LT(r->loss_after, r->loss_before);
  EXPECT_TRUE(fs::exists(out + "/model.bin"));
  EXPECT_TRUE(fs::exists(out + "/meta.json"));
  EXPECT_TRUE(fs::exists(out + "/optimizer.safetensors"));
  uint32_t items = 0;
  for (auto n : r->eval.items) items += n;
  EXPECT_EQ(items, 30u);
  EXPECT_NE(log.str().find("sft step 40/40"), std::string::npos) << log.str();
  fs::remove_all(out);
}

TEST(SftJobTest, ItemTooLongForTheModelIsAnErrorNamingIt) {
  auto c = tiny("/nonexistent/never-written");
  c.model.max_len = 8;
  std::ostringstream log;
  auto r = run_sft_job(c, log);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.err().message.find("do not fit model.max_len 8"), std::string::npos)
      << r.err().message;
}

TEST(SftJobTest, ConfigRejectsUnknownKeysAndBadValuesWithPaths) {
  YAML::Node doc = YAML::Load("model: {d_model: 30, n_heads: 4}\nsft: {lr: -1, stepz: 3}\n");
  auto errors = std::make_shared<config_errors>();
  errors->file = "x.yaml";
  config_map root(doc, "", errors);
  read_sft_config(root);
  const auto text = errors->joined();
  EXPECT_NE(text.find("x.yaml:1: model.n_heads: expected a divisor of d_model"),
            std::string::npos) << text;
  EXPECT_NE(text.find("sft.lr: expected a positive number"), std::string::npos) << text;
  EXPECT_NE(text.find("x.yaml:2: sft.stepz: unknown key"), std::string::npos) << text;
}

TEST(SftJobTest, CudaDeviceOnCpuBuildIsRefused) {
  if (torch::cuda::is_available()) GTEST_SKIP();
  auto c = tiny("/nonexistent/never-written");
  c.device = "cuda:0";
  std::ostringstream log;
  auto r = run_sft_job(c, log);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.err().message.find("has no CUDA"), std::string::npos);
}

}  // namespace
}  // namespace adarl
