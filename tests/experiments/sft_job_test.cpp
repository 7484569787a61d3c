#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "experiments/run_engines.hpp"
#include "experiments/select_job.hpp"
#include "experiments/sft_job.hpp"
#include "models/weights/checkpoint.hpp"
#include "tasks/suites.hpp"
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

// Issue 38: a cache hit is checked byte for byte. A model.bin damaged at the same size
// (it was used silently: held-out 0.000, NaN losses) or truncated (every later run
// failed) is trained again, with a line saying so, and the new entry is intact.
TEST(SftJobTest, ADamagedCachedWarmStartIsTrainedAgain) {
  const auto cache =
      fs::temp_directory_path() / ("adarl_sft_cache_" + std::to_string(::getpid()));
  fs::remove_all(cache);
  ::setenv("ADARL_CACHE", cache.c_str(), 1);
  pipeline_config c;
  c.tasks.suite = "general";
  c.policy.model.d_model = 32;
  c.policy.model.n_layers = 1;
  c.policy.model.n_heads = 2;
  c.policy.model.d_ff = 64;
  c.policy.model.max_len = 128;
  c.policy.sft_steps = 3;
  c.policy.sft_count = 50;
  c.policy.sft_batch_size = 8;
  c.actors.learner_threads = 1;
  std::ostringstream first;
  auto dir = base_checkpoint(c, first);
  ASSERT_TRUE(dir) << dir.err().message;
  ASSERT_TRUE(verify_checkpoint(*dir)) << verify_checkpoint(*dir).err().message;
  std::ostringstream hit;
  ASSERT_TRUE(base_checkpoint(c, hit));
  EXPECT_NE(hit.str().find("from the cache"), std::string::npos) << hit.str();
  for (const bool truncate : {false, true}) {
    const auto bin = *dir + "/model.bin";
    if (truncate) {
      fs::resize_file(bin, fs::file_size(bin) / 2);
    } else {
      std::fstream f(bin, std::ios::in | std::ios::out | std::ios::binary);
      const auto at = std::streamoff(fs::file_size(bin) - 3);
      char ch = 0;
      f.seekg(at);
      f.get(ch);
      f.seekp(at);
      f.put(char(ch ^ 0x5a));
    }
    EXPECT_FALSE(verify_checkpoint(*dir));
    std::ostringstream again;
    auto healed = base_checkpoint(c, again);
    ASSERT_TRUE(healed) << healed.err().message;
    EXPECT_EQ(*healed, *dir);
    EXPECT_NE(again.str().find("the cached SFT warm start is unusable"), std::string::npos)
        << again.str();
    EXPECT_TRUE(verify_checkpoint(*dir)) << verify_checkpoint(*dir).err().message;
  }
  ::unsetenv("ADARL_CACHE");
  fs::remove_all(cache);
}

// Issue 38: the selection cache stores answers the run uses unchecked. An entry edited
// in place (answers rewritten) is measured again, with a line saying why; and two
// processes selecting with the same key at once (two compares sharing a selection) both
// finish, each measuring in its own scratch (they shared measure.tmp: in one try of three
// both failed).
select_job sim_selection_job(const std::string& cache) {
  select_job job;
  auto pool = generate_suite("math", {3, 60, {1, 1, 1, 1, 1}, split::held_out});
  EXPECT_TRUE(pool) << pool.err().message;
  job.pool = *pool;
  job.describe = {"math", "held-out", 3, 60, {1, 1, 1, 1, 1}, "", 0};
  job.window = {8, 1, 7};
  job.cache_root = cache;
  return job;
}

pipeline_config sim_selection_config() {
  pipeline_config c;
  c.policy.kind = policy_kind::simulated;
  c.tasks.suite = "math";
  return c;
}

TEST(SelectJobTest, AnEditedCacheEntryIsMeasuredAgainAndConcurrentSelectionsBothFinish) {
  const auto cache = fs::temp_directory_path() / ("adarl_select_" + std::to_string(::getpid()));
  fs::remove_all(cache);
  const auto c = sim_selection_config();
  const auto job = sim_selection_job(cache.string());
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {  // the second process selecting with the same key
    std::ostringstream log;
    auto s = select_prompts(c, job, log);
    ::_exit(s && !s->kept.empty() ? 0 : 3);
  }
  std::ostringstream log;
  auto first = select_prompts(c, job, log);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(first) << first.err().message;
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  ASSERT_FALSE(first->kept.empty());
  std::ostringstream hit;
  auto cached = select_prompts(c, job, hit);
  ASSERT_TRUE(cached) << cached.err().message;
  EXPECT_NE(hit.str().find("from the cache"), std::string::npos) << hit.str();
  // Rewrite the first kept prompt's answer in the cache entry.
  std::string entry;
  for (const auto& e : fs::directory_iterator(cache))
    if (fs::exists(e.path() / "selection.json")) entry = e.path().string();
  ASSERT_FALSE(entry.empty());
  std::ifstream in(entry + "/selected.jsonl");
  std::string line, text;
  for (bool first_line = true; std::getline(in, line); first_line = false) {
    if (first_line) {
      auto j = nlohmann::json::parse(line);
      j["answer"] = "424242";
      line = j.dump();
    }
    text += line + "\n";
  }
  in.close();
  std::ofstream(entry + "/selected.jsonl") << text;
  std::ostringstream again;
  auto remeasured = select_prompts(c, job, again);
  ASSERT_TRUE(remeasured) << remeasured.err().message;
  EXPECT_NE(again.str().find("the cache entry is unusable"), std::string::npos) << again.str();
  EXPECT_NE(again.str().find("differs from the pool's"), std::string::npos) << again.str();
  EXPECT_EQ(remeasured->kept.front().item.answer, first->kept.front().item.answer);
  EXPECT_NE(remeasured->kept.front().item.answer, "424242");
  fs::remove_all(cache);
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
