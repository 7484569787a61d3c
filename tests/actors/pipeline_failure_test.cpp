// A run that cannot go on ends with an error that says why, never a hang: an actor's
// exception, no progress at all (the stall watchdog), a bad checkpoint. And a resumed
// deterministic run is the uninterrupted one.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "actors/tracker.hpp"
#include "pipelines/pipeline.hpp"
#include "tests/actors/actor_fixtures.hpp"

namespace adarl {
namespace {

std::string fresh_dir(const std::string& name) { return test::fresh_dir("pipeline_failure_" + name); }

pipeline_config sim_config(const std::string& out) {
  pipeline_config c;
  c.policy.kind = policy_kind::simulated;
  c.tracker.strategy.kind = strategy_kind::ada_seq;
  c.tracker.prompts_per_step = 8;
  c.tracker.steps = 6;
  c.tracker.lag.max_lag = 1;
  c.actors.generators = 2;
  c.actors.generator_capacity = 16;
  c.out = out;
  c.progress = false;
  return c;
}

// A generation engine that wraps another and misbehaves after `good_steps` steps:
// throws (a bug or std::bad_alloc inside an actor), or keeps its rows forever.
class faulty_engine final : public generation_engine {
 public:
  enum class mode { throws, stuck };
  faulty_engine(std::unique_ptr<generation_engine> inner, mode m, int good_steps)
      : inner_(std::move(inner)), mode_(m), left_(good_steps) {}
  uint32_t capacity() const override { return inner_->capacity(); }
  uint32_t active() const override { return inner_->active(); }
  void admit(generation_job job) override { inner_->admit(std::move(job)); }
  void step(std::vector<generation_result>& out) override {
    if (left_ > 0) {
      --left_;
      return inner_->step(out);
    }
    if (mode_ == mode::throws) throw std::runtime_error("decoder exploded");
    // stuck: rows stay active, nothing finishes
  }
  result<bool> load(const weights_ptr& w) override { return inner_->load(w); }
  uint64_t version() const override { return inner_->version(); }

 private:
  std::unique_ptr<generation_engine> inner_;
  mode mode_;
  int left_;
};

engine_factories faulty(const pipeline_config& c, prompt_table_ptr table,
                        faulty_engine::mode m, int good_steps) {
  auto f = sim_factories(c, table);
  auto inner = f.generator;
  f.generator = [inner, m, good_steps](uint32_t i) -> result<std::unique_ptr<generation_engine>> {
    auto e = inner(i);
    if (!e) return e.err();
    return std::unique_ptr<generation_engine>(
        std::make_unique<faulty_engine>(std::move(*e), m, i == 0 ? good_steps : 1 << 30));
  };
  return f;
}

TEST(PipelineFailureTest, AnExceptionInAnActorEndsTheRunWithItsNameAndACheckpoint) {
  const auto out = fresh_dir("throws");
  auto c = sim_config(out);
  c.tracker.steps = 1000;
  c.actors.sim_latency.step_seconds = 0.001;
  auto table = test::math_table(64, 16);
  auto r = run_pipeline(c, table, faulty(c, table, faulty_engine::mode::throws, 200), {});
  ASSERT_FALSE(r);
  EXPECT_NE(r.err().message.find("generator 0 stopped"), std::string::npos) << r.err().message;
  EXPECT_NE(r.err().message.find("generator: decoder exploded"), std::string::npos)
      << r.err().message;
  EXPECT_NE(r.err().message.find("checkpoint " + out + "/checkpoints/step-"), std::string::npos)
      << r.err().message;
  auto ckpt = resolve_checkpoint(out);
  EXPECT_TRUE(ckpt) << (ckpt ? "" : ckpt.err().message);
}

TEST(PipelineFailureTest, NoProgressForStallSecondsEndsTheRunSayingWhatItWaitsFor) {
  const auto out = fresh_dir("stuck");
  auto c = sim_config(out);
  c.actors.generators = 1;
  c.stall_seconds = 1;
  auto table = test::math_table(64, 16);
  const auto t0 = std::chrono::steady_clock::now();
  auto r = run_pipeline(c, table, faulty(c, table, faulty_engine::mode::stuck, 0), {});
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_FALSE(r);
  EXPECT_NE(r.err().message.find("no progress for 1 s (stall_seconds)"), std::string::npos)
      << r.err().message;
  EXPECT_NE(r.err().message.find("step 0 is generating:"), std::string::npos) << r.err().message;
  EXPECT_NE(r.err().message.find("the learner (version 0) waits for step 0's report"),
            std::string::npos)
      << r.err().message;
  EXPECT_LT(seconds, 30.0);
}

using test::read_lines;

// The step lines without what depends on timing: durations, and which line an
// evaluation that finished meanwhile joins.
nlohmann::json without_timing(nlohmann::json j) {
  for (const char* k : {"time_generation", "time_train", "time_wait", "time_publish",
                        "time_step", "elapsed", "generator_busy", "heldout_greedy",
                        "heldout_sampled", "heldout_version"})
    j.erase(k);
  return j;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Deterministic mode through a checkpoint: stopped after step 4's checkpoint (the
// steps generated but not trained are carried by it), then resumed, the run writes the
// same metrics, evaluations, statistics and weights as without the stop. Before the
// checkpoint carried those steps, the resumed run waited forever for a version it no
// longer had.
TEST(PipelineFailureTest, DeterministicResumeFromACheckpointEqualsTheUninterruptedRun) {
  auto table = test::math_table(64, 16);
  auto make = [](const std::string& out, uint64_t steps) {
    auto c = sim_config(out);
    c.deterministic = true;
    c.tracker.lag.exact = true;
    c.tracker.steps = steps;
    c.eval.every = 3;
    c.learner.checkpoint_every = 4;
    c.actors.sim_latency.tail = 1.5;  // rows finish in a different order per run
    c.actors.sim_latency.min_steps = 2;
    return c;
  };
  const auto full = fresh_dir("det_full"), part = fresh_dir("det_part");
  auto f = make(full, 10);
  ASSERT_TRUE(run_pipeline(f, table, sim_factories(f, table), {}));
  // "Interrupted": the same run stopped at 4 steps keeps the checkpoint a longer run
  // writes at version 4 (carrying step 4, generated with version 3).
  auto p = make(part, 4);
  ASSERT_TRUE(run_pipeline(p, table, sim_factories(p, table), {}));
  auto m = read_manifest(part + "/checkpoints/step-000004");
  ASSERT_TRUE(m) << m.err().message;
  EXPECT_EQ(m->through, 3);  // the run's last step: nothing beyond it was generated
  // Extended to 10 steps it goes on (step 4 is drawn with version 4, the oldest left)
  // instead of waiting for version 3 forever; the watchdog would name a regression.
  auto longer = make(part, 10);
  longer.stall_seconds = 5;
  run_options extend;
  extend.resume_from = part + "/checkpoints/step-000004";
  auto extended = run_pipeline(longer, table, sim_factories(longer, table), extend);
  ASSERT_TRUE(extended) << extended.err().message;
  EXPECT_EQ(extended->version, 10u);
  // A mid-run checkpoint of the full run carries the step version 4 needs.
  auto mid = read_manifest(full + "/checkpoints/step-000004");
  ASSERT_TRUE(mid) << mid.err().message;
  EXPECT_GE(mid->through, 4);
  // Resume the full run from its own mid-run checkpoint into a copy.
  const auto resumed = fresh_dir("det_resumed");
  std::filesystem::create_directories(resumed + "/checkpoints");
  std::filesystem::copy(full + "/checkpoints/step-000004",
                        resumed + "/checkpoints/step-000004",
                        std::filesystem::copy_options::recursive);
  for (const char* file : {"/metrics.jsonl", "/metrics.csv", "/eval.jsonl"})
    std::filesystem::copy_file(full + file, resumed + file);
  auto r = make(resumed, 10);
  run_options o;
  o.resume_from = resumed + "/checkpoints/step-000004";
  ASSERT_TRUE(run_pipeline(r, table, sim_factories(r, table), o));
  const auto a = read_lines(full + "/metrics.jsonl"), b = read_lines(resumed + "/metrics.jsonl");
  ASSERT_EQ(a.size(), 10u);
  ASSERT_EQ(b.size(), 10u);
  for (size_t i = 0; i < a.size(); ++i)
    EXPECT_EQ(without_timing(a[i]).dump(), without_timing(b[i]).dump()) << "step " << i;
  auto evals = [](const std::string& dir) {
    auto e = read_lines(dir + "/eval.jsonl");
    for (auto& j : e) j.erase("seconds");
    std::sort(e.begin(), e.end(),
              [](const auto& x, const auto& y) { return x["version"] < y["version"]; });
    return nlohmann::json(e).dump();
  };
  EXPECT_EQ(evals(full), evals(resumed));
  for (const char* file : {"/sim_policy.txt", "/tracker.json", "/carried.cbor"})
    EXPECT_EQ(read_file(full + "/checkpoints/step-000010" + file),
              read_file(resumed + "/checkpoints/step-000010" + file))
        << file;
}

}  // namespace
}  // namespace adarl
