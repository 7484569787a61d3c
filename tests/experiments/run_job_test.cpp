// The run job (experiments/run_job.hpp) as a program embedding adarl calls it: short
// runs of configs/sim-smoke.yaml (the simulated policy, a second or less each) with the
// output in strings and a stop flag of the test's own.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "experiments/run_engines.hpp"
#include "experiments/run_job.hpp"

namespace adarl {
namespace {

namespace fs = std::filesystem;

const std::string sim_smoke = std::string(ADARL_SOURCE_DIR) + "/configs/sim-smoke.yaml";

/// A fresh directory for one test's run (removed at the end).
struct scratch_dir {
  explicit scratch_dir(const std::string& name)
      : path((fs::temp_directory_path() /
              ("adarl_run_job_" + name + "_" + std::to_string(::getpid())))
                 .string()) {
    fs::remove_all(path);
  }
  ~scratch_dir() { fs::remove_all(path); }
  std::string path;
};

/// The job's output and its result.
struct ran {
  run_job_result result;
  std::string out, err;
};

ran run(const run_request& req, const std::atomic<bool>* stop = nullptr) {
  static std::atomic<bool> never{false};
  std::ostringstream out, err;
  run_job_hooks hooks;
  hooks.out = &out;
  hooks.err = &err;
  hooks.stop = stop ? stop : &never;
  auto r = run_job(req, hooks);
  return {r, out.str(), err.str()};
}

size_t lines_of(const std::string& file) {
  std::ifstream in(file);
  size_t n = 0;
  for (std::string line; std::getline(in, line);) ++n;
  return n;
}

TEST(RunJobTest, AShortRunFinishesAndWritesItsRunDirectory) {
  scratch_dir d("short");
  const auto r = run({sim_smoke, {"out=" + d.path, "tracker.steps=3"}, "", false});
  ASSERT_EQ(r.result.status, run_status::finished) << r.err;
  EXPECT_EQ(r.result.out, d.path);
  EXPECT_EQ(r.result.version, 3u);
  EXPECT_EQ(r.result.checkpoint, d.path + "/checkpoints/step-000003");
  EXPECT_EQ(r.result.again, "");
  EXPECT_EQ(lines_of(d.path + "/metrics.jsonl"), 3u);
  EXPECT_TRUE(fs::exists(d.path + "/report.html"));
  EXPECT_TRUE(fs::exists(d.path + "/adarl.log"));
  EXPECT_NE(r.out.find("run: finished at version 3; checkpoint " + d.path +
                       "/checkpoints/step-000003\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("  files "), std::string::npos) << r.out;  // the summary
  // The same directory again without --resume: refused, the run left as it was.
  const auto again = run({sim_smoke, {"out=" + d.path, "tracker.steps=3"}, "", false});
  EXPECT_EQ(again.result.status, run_status::refused);
  EXPECT_NE(again.result.error.find(d.path + " already holds a run (metrics.jsonl)"),
            std::string::npos)
      << again.result.error;
  EXPECT_EQ(again.err, again.result.error + "\n");
  EXPECT_EQ(lines_of(d.path + "/metrics.jsonl"), 3u);
}

TEST(RunJobTest, ABadOverrideIsRefusedNamingTheKeyBeforeAnythingStarts) {
  scratch_dir d("bad");
  const auto r = run({sim_smoke, {"out=" + d.path, "sampling.top_p=2"}, "", false});
  EXPECT_EQ(r.result.status, run_status::refused);
  EXPECT_NE(r.result.error.find("sampling.top_p"), std::string::npos) << r.result.error;
  EXPECT_EQ(r.result.out, "");
  EXPECT_EQ(r.out, "");  // nothing said on the run's output: as `adarl run`'s empty stdout
  EXPECT_EQ(r.err, r.result.error + "\n");
  EXPECT_FALSE(fs::exists(d.path));
}

TEST(RunJobTest, AFinishedShortRunIsResumedToMoreStepsAndARefusedResumeLeavesIt) {
  scratch_dir d("resume");
  ASSERT_EQ(run({sim_smoke, {"out=" + d.path, "tracker.steps=3"}, "", false}).result.status,
            run_status::finished);
  // Another round size changes what the checkpoint's state means: refused without force.
  const auto refused =
      run({sim_smoke, {"tracker.steps=6", "strategy.round_size=16"}, d.path, false});
  EXPECT_EQ(refused.result.status, run_status::refused);
  EXPECT_NE(refused.result.error.find("was written under another configuration"),
            std::string::npos)
      << refused.result.error;
  EXPECT_NE(refused.err.find("strategy.round_size: \"8\" then, \"16\" now"), std::string::npos)
      << refused.err;
  EXPECT_EQ(lines_of(d.path + "/metrics.jsonl"), 3u);
  const auto r = run({sim_smoke, {"tracker.steps=6"}, d.path, false});
  ASSERT_EQ(r.result.status, run_status::finished) << r.err;
  EXPECT_EQ(r.result.out, d.path);
  EXPECT_EQ(r.result.version, 6u);
  EXPECT_EQ(r.result.checkpoint, d.path + "/checkpoints/step-000006");
  EXPECT_NE(r.out.find("run: resuming from " + d.path + "/checkpoints/step-000003 into " +
                       d.path + "\n"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(lines_of(d.path + "/metrics.jsonl"), 6u);
}

TEST(RunJobTest, AStopBeforeThePipelineStartsTrainsNothingAndSaysHowToGoOn) {
  scratch_dir d("stop");
  const std::atomic<bool> stop{true};
  const auto r = run({sim_smoke, {"out=" + d.path, "tracker.steps=3"}, "", false}, &stop);
  EXPECT_EQ(r.result.status, run_status::stopped);
  EXPECT_EQ(r.result.version, 0u);
  EXPECT_EQ(r.result.error, "before the pipeline started");
  EXPECT_EQ(r.result.again, "adarl run " + sim_smoke + " out=" + d.path + " tracker.steps=3");
  EXPECT_NE(r.out.find("run: stopped before training: before the pipeline started\n"
                       "run: no step was trained; nothing to resume\n"
                       "continue with: " + r.result.again + "\n"),
            std::string::npos)
      << r.out;
  EXPECT_FALSE(fs::exists(d.path + "/metrics.jsonl"));
}

TEST(TorchEnginesTest, RegisteringMakesTheLibTorchKindsBuildTheirOwnEngines) {
  register_torch_engines();
  register_torch_engines();  // idempotent
  pipeline_config t;
  t.policy.kind = policy_kind::transformer;
  engine_request r;
  r.config = &t;
  auto none = engines_for(r);  // registered: it asks for its base, not for registration
  ASSERT_FALSE(none);
  EXPECT_EQ(none.err().message, "model.kind transformer: its engines need a base checkpoint");
  pipeline_config h;
  h.policy.kind = policy_kind::hf;
  h.policy.hf_path = ::testing::TempDir() + "adarl_no_such_model";
  r.config = &h;
  auto missing = engines_for(r);  // the codec of model.path, opened by the hf kind
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.err().message.rfind("model.path: ", 0), 0u) << missing.err().message;
  engine_spec spec;
  spec.kind = policy_kind::transformer;
  spec.model.d_model = 16;
  spec.model.n_heads = 2;
  spec.model.n_layers = 1;
  spec.model.d_ff = 32;
  spec.model.max_len = 32;
  spec.charset = tokenizer::default_charset();
  spec.model.vocab_size = int32_t(spec.charset.size()) + tokenizer::num_special;
  auto g = generator_for_spec(spec, "cpu", 1);
  EXPECT_TRUE(g) << g.err().message;
}

}  // namespace
}  // namespace adarl
