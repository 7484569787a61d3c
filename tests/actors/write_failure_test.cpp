// A write that fails (a full disk, a file size limit) ends the run with an error naming
// the file and the reason, after keeping the last complete checkpoint; no partial
// checkpoint directory stays, and a resume once there is room again continues exactly.
// Root-free stand-ins: /dev/full (every write: ENOSPC) behind a link, RLIMIT_FSIZE
// (writes past it: EFBIG), an engine whose save fails, a log sink that fails.
#include <gtest/gtest.h>

#include <cmath>
#include <spdlog/logger.h>
#include <spdlog/sinks/base_sink.h>
#include <sys/resource.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>

#include "actors/checkpoint_files.hpp"
#include "base/atomic_file.hpp"
#include "pipelines/pipeline.hpp"
#include "tests/actors/actor_fixtures.hpp"

namespace adarl {
namespace {

namespace fs = std::filesystem;

pipeline_config sim_config(const std::string& out) {
  pipeline_config c;
  c.policy.kind = policy_kind::simulated;
  c.tracker.strategy.kind = strategy_kind::ada_seq;
  c.tracker.prompts_per_step = 8;
  c.tracker.steps = 8;
  c.tracker.lag.max_lag = 1;
  c.learner.checkpoint_every = 2;
  c.actors.generators = 2;
  c.actors.generator_capacity = 16;
  c.out = out;
  c.progress = false;
  c.stall_seconds = 60;
  return c;
}

/// Names under OUT/checkpoints, sorted.
std::vector<std::string> checkpoint_entries(const std::string& out) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(out + "/checkpoints", ec))
    names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

bool has_partial(const std::string& out) {
  for (const auto& name : checkpoint_entries(out))
    if (name.find(".partial") != std::string::npos ||
        name.find(".tmp") != std::string::npos)
      return true;
  return false;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(WriteFailureTest, AFullDiskUnderTheMetricsEndsTheRunNamingTheFile) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full here";
  const auto out = test::fresh_dir("write_failure_full_metrics");
  fs::create_directories(out);
  fs::create_symlink("/dev/full", out + "/metrics.jsonl");
  auto c = sim_config(out);
  auto table = test::math_table(64, 16);
  auto r = run_pipeline(c, table, sim_factories(c, table), {});
  ASSERT_FALSE(r) << "the run ended at version " << r->version << " with exit status 0";
  const auto& m = r.err().message;
  EXPECT_EQ(
      m.rfind("metrics: " + out + "/metrics.jsonl: cannot write: No space left on device",
              0),
      0u)
      << m;
  // The learner never published a checkpoint the metrics files lack (the first line
  // failed), nor left a partial one.
  EXPECT_NE(m.find("no checkpoint to resume from"), std::string::npos) << m;
  EXPECT_FALSE(resolve_checkpoint(out));
  EXPECT_FALSE(has_partial(out));
}

// The learner engine of the simulated policy, whose saves fail from the `good`-th on
// the way a full disk makes them: a half-written staging directory and ENOSPC.
class full_disk_learner final : public learner_engine {
 public:
  full_disk_learner(std::unique_ptr<learner_engine> inner, int good)
      : inner_(std::move(inner)), good_(good) {}
  result<train_stats> train(const std::vector<train_sample>& b) override {
    return inner_->train(b);
  }
  weights_ptr snapshot() override { return inner_->snapshot(); }
  uint64_t version() const override { return inner_->version(); }
  result<bool> save(const std::string& dir) override {
    if (good_-- > 0) return inner_->save(dir);
    // The engines stage in staging_path(dir) (base/atomic_file.hpp), per process.
    fs::create_directories(staging_path(dir));
    std::ofstream(staging_path(dir) + "/model.bin") << "half";
    return error{staging_path(dir) + "/model.bin: cannot write: No space left on device"};
  }
  result<bool> restore(const std::string& dir) override { return inner_->restore(dir); }

 private:
  std::unique_ptr<learner_engine> inner_;
  int good_;
};

TEST(WriteFailureTest,
     ACheckpointThatCannotBeWrittenEndsTheRunKeepingTheLastCompleteOne) {
  const auto out = test::fresh_dir("write_failure_checkpoint");
  auto c = sim_config(out);
  auto table = test::math_table(64, 16);
  auto engines = sim_factories(c, table);
  engines.learner = [inner =
                         engines.learner]() -> result<std::unique_ptr<learner_engine>> {
    auto e = inner();
    if (!e) return e.err();
    return std::unique_ptr<learner_engine>(
        std::make_unique<full_disk_learner>(std::move(*e), 1));
  };
  auto r = run_pipeline(c, table, engines, {});
  ASSERT_FALSE(r) << "the run ended at version " << r->version << " with exit status 0";
  const auto& m = r.err().message;
  const std::string failed = out + "/checkpoints/step-000004";
  EXPECT_EQ(m.rfind("learner: checkpoint " + failed + ": " + staging_path(failed + ".partial") +
                        "/model.bin: cannot write: No space left on device",
                    0),
            0u)
      << m;
  EXPECT_NE(m.find("the last complete checkpoint: " + out + "/checkpoints/step-000002)"),
            std::string::npos)
      << m;
  EXPECT_EQ(checkpoint_entries(out), (std::vector<std::string>{"latest", "step-000002"}));
  auto kept = resolve_checkpoint(out);
  ASSERT_TRUE(kept) << kept.err().message;
  EXPECT_EQ(*kept, out + "/checkpoints/step-000002");
}

/// A log sink on a full disk: every line fails the way runtime/logging's file sink does.
class full_log_sink final : public spdlog::sinks::base_sink<std::mutex> {
 protected:
  void sink_it_(const spdlog::details::log_msg&) override {
    throw spdlog::spdlog_ex("run.log: cannot write: No space left on device");
  }
  void flush_() override {}
};

TEST(WriteFailureTest, AFailedLogWriteEndsTheRunNamingTheLogFile) {
  const auto out = test::fresh_dir("write_failure_log");
  auto c = sim_config(out);
  auto table = test::math_table(64, 16);
  run_options o;
  o.logger = std::make_shared<spdlog::logger>("run", std::make_shared<full_log_sink>());
  o.logger->set_level(spdlog::level::info);
  int told_caller = 0;  // the caller's own handler stays the caller's
  o.logger->set_error_handler([&](const std::string&) { ++told_caller; });
  auto r = run_pipeline(c, table, sim_factories(c, table), o);
  ASSERT_FALSE(r) << "the run ended at version " << r->version << " with exit status 0";
  EXPECT_EQ(
      r.err().message.rfind("log: run.log: cannot write: No space left on device", 0), 0u)
      << r.err().message;
  EXPECT_EQ(told_caller, 0);
  o.logger->info("after the run");
  EXPECT_EQ(told_caller, 1);
  EXPECT_FALSE(has_partial(out));
}

/// Lowers this process's file size limit until destroyed; SIGXFSZ ignored, so that a
/// write past it fails with EFBIG (what `ulimit -f` does to a run).
class file_size_limit {
 public:
  explicit file_size_limit(rlim_t bytes) {
    std::signal(SIGXFSZ, SIG_IGN);
    getrlimit(RLIMIT_FSIZE, &saved_);
    rlimit lower = saved_;
    lower.rlim_cur = bytes;
    ok_ = setrlimit(RLIMIT_FSIZE, &lower) == 0;
  }
  ~file_size_limit() { setrlimit(RLIMIT_FSIZE, &saved_); }
  bool ok() const { return ok_; }

 private:
  rlimit saved_{};
  bool ok_ = false;
};

nlohmann::json without_timing(nlohmann::json j) {
  for (const char* k : {"time_generation", "time_train", "time_wait", "time_publish",
                        "time_step", "elapsed", "generator_busy", "heldout_greedy",
                        "heldout_sampled", "heldout_version"})
    j.erase(k);
  return j;
}

std::string evals_of(const std::string& dir) {
  auto e = test::read_lines(dir + "/eval.jsonl");
  for (auto& j : e) j.erase("seconds");
  std::sort(e.begin(), e.end(),
            [](const auto& x, const auto& y) { return x["version"] < y["version"]; });
  return nlohmann::json(e).dump();
}

// The ulimit case in process: metrics.jsonl outgrows the limit after the checkpoint of
// version 8 and before that of 12; the run ends naming the file, metrics.jsonl ends
// with its last complete line, and the resume once the limit is lifted writes what the
// uninterrupted run wrote.
TEST(WriteFailureTest,
     PastTheFileSizeLimitTheRunStopsAndItsResumeEqualsTheUninterruptedRun) {
  auto table = test::math_table(64, 16);
  auto make = [](const std::string& out) {
    auto c = sim_config(out);
    c.deterministic = true;
    c.tracker.lag.exact = true;
    c.tracker.steps = 16;
    c.eval.every = 3;
    c.learner.checkpoint_every = 4;
    return c;
  };
  const auto full = test::fresh_dir("write_failure_limit_full");
  auto f = make(full);
  ASSERT_TRUE(run_pipeline(f, table, sim_factories(f, table), {}));
  // Room for ten step lines and half of the eleventh (timings make a line a little
  // longer or shorter); every other file is smaller.
  const auto lines = test::read_lines(full + "/metrics.jsonl");
  ASSERT_EQ(lines.size(), 16u);
  size_t ten = 0;
  for (size_t i = 0; i < 10; ++i) ten += lines[i].dump().size() + 1;
  const size_t limit = ten + (lines[10].dump().size() + 1) / 2;
  for (const char* file :
       {"/metrics.csv", "/eval.jsonl", "/checkpoints/step-000016/tracker.json",
        "/checkpoints/step-000016/carried.cbor", "/checkpoints/step-000016/sim_policy.txt",
        "/checkpoints/step-000012/carried.cbor"})
    ASSERT_LT(fs::file_size(full + file), limit) << file;

  const auto cut = test::fresh_dir("write_failure_limit_cut");
  auto c = make(cut);
  result<run_outcome> r = error{"not run"};
  {
    file_size_limit lower(limit);
    ASSERT_TRUE(lower.ok());
    r = run_pipeline(c, table, sim_factories(c, table), {});
  }
  ASSERT_FALSE(r) << "the run ended at version " << r->version << " with exit status 0";
  EXPECT_EQ(r.err().message.rfind(
                "metrics: " + cut + "/metrics.jsonl: cannot write: File too large", 0),
            0u)
      << r.err().message;
  EXPECT_NE(r.err().message.find("the last complete checkpoint: " + cut +
                                 "/checkpoints/step-000008)"),
            std::string::npos)
      << r.err().message;
  EXPECT_FALSE(has_partial(cut));
  const auto whole = test::read_lines(cut + "/metrics.jsonl");  // throws on a torn line
  EXPECT_GE(whole.size(), 9u);
  EXPECT_LE(whole.size(), 11u);

  auto from = resolve_checkpoint(cut);
  ASSERT_TRUE(from) << from.err().message;
  run_options o;
  o.resume_from = *from;
  auto resumed = run_pipeline(c, table, sim_factories(c, table), o);
  ASSERT_TRUE(resumed) << resumed.err().message;
  EXPECT_EQ(resumed->version, 16u);
  const auto b = test::read_lines(cut + "/metrics.jsonl");
  ASSERT_EQ(b.size(), 16u);
  for (size_t i = 0; i < b.size(); ++i)
    EXPECT_EQ(without_timing(lines[i]).dump(), without_timing(b[i]).dump())
        << "step " << i;
  EXPECT_EQ(evals_of(full), evals_of(cut));
  for (const char* file : {"/sim_policy.txt", "/tracker.json", "/carried.cbor"})
    EXPECT_EQ(read_file(full + "/checkpoints/step-000016" + file),
              read_file(cut + "/checkpoints/step-000016" + file))
        << file;
}

}  // namespace
}  // namespace adarl
