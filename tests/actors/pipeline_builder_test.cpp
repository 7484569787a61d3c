// The pipeline in the caller's actor system (pipelines/pipeline_builder.hpp and
// pipeline_handle.hpp): the caller's verifiers (a callable, typed actors), task source,
// engines; stop and checkpoint through the handle; start-up errors.
#include "pipelines/pipeline_builder.hpp"

#include <gtest/gtest.h>

#include <caf/all.hpp>

#include <atomic>
#include <filesystem>
#include <memory>

#include <nlohmann/json.hpp>

#include "actors/checkpoint_files.hpp"
#include "tests/actors/actor_fixtures.hpp"

namespace adarl {
namespace {

struct two_threads : caf::actor_system_config {
  two_threads() { set("scheduler.max-threads", size_t{2}); }
};

pipeline_config sim_config(const std::string& out) {
  pipeline_config c;
  c.policy.kind = policy_kind::simulated;
  c.tracker.strategy.kind = strategy_kind::ada_seq;
  c.tracker.prompts_per_step = 4;
  c.tracker.steps = 3;
  c.tasks.train = 8;
  c.tasks.held_out = 4;
  c.out = out;
  c.progress = false;
  return c;
}

/// Eight training and four held-out items answered by their own id, scored by "echo".
result<task_set> echo_tasks(const pipeline_config&) {
  task_set s;
  for (int i = 0; i < 12; ++i) {
    const std::string id = "e" + std::to_string(i);
    task_item item;
    item.id = id;
    item.prompt = "say " + id;
    item.answer = id;
    item.task = item.verifier = "echo";
    (i < 8 ? s.train : s.held_out).push_back(item);
  }
  return s;
}

TEST(PipelineBuilderTest, RunsInTheCallersSystemWithACallableVerifier) {
  two_threads cfg;
  caf::actor_system sys{cfg};
  const std::string out = test::fresh_dir("builder_callable");
  auto calls = std::make_shared<std::atomic<int>>(0);
  pipeline_builder b(sim_config(out));
  b.tasks(echo_tasks).verifier("echo", [calls](const task_item& item, std::string_view text) {
    ++*calls;
    return verdict{text == item.answer ? 1.f : 0.f, text == item.answer ? "" : "not_echoed"};
  });
  const size_t before = sys.registry().running();
  auto run = b.start(sys);
  ASSERT_TRUE(run) << run.err().message;
  // metrics, tracker, verifier, generator, evaluator and learner run in `sys`.
  EXPECT_GE(sys.registry().running(), before + 6);
  auto outcome = (*run)->wait();
  ASSERT_TRUE(outcome) << outcome.err().message;
  EXPECT_EQ(outcome->version, 3u);
  EXPECT_FALSE(outcome->interrupted);
  EXPECT_EQ(test::read_lines(out + "/metrics.jsonl").size(), 3u);
  EXPECT_GT(calls->load(), 0);
  // The rule's reason code reached the metrics: the callable scored the completions.
  bool reason_seen = false;
  for (const auto& line : test::read_lines(out + "/metrics.jsonl"))
    reason_seen |= line.at("zero_reward_reasons").contains("not_echoed");
  EXPECT_TRUE(reason_seen);
  // wait() again gives the same outcome.
  auto again = (*run)->wait();
  ASSERT_TRUE(again);
  EXPECT_EQ(again->version, 3u);
}

TEST(PipelineBuilderTest, VerifierActorsOfTheCallerScoreEveryBatch) {
  two_threads cfg;
  caf::actor_system sys{cfg};
  const std::string out = test::fresh_dir("builder_actor");
  auto scored = std::make_shared<std::atomic<int>>(0);
  auto made = std::make_shared<std::atomic<int>>(0);
  auto c = sim_config(out);
  c.actors.verifiers = 3;
  pipeline_builder b(c);
  b.tasks(echo_tasks).verifier("echo", [](const task_item&, std::string_view) {
    return verdict{0.f, "never_called"};
  });
  b.verifier_actors([=](const verifier_context& ctx) -> result<verifier_actor> {
    ++*made;
    return ctx.sys->spawn([=](verifier_actor::pointer self) -> verifier_actor::behavior_type {
      return {[=](verify_atom, std::vector<completion>& batch, uint32_t n, generator_actor g) {
        for (auto& x : batch) x.reward = 1.f;  // every completion is right here
        *scored += int(batch.size());
        self->send(ctx.tracker, scored_atom::value, std::move(batch), n, g);
      }};
    });
  });
  auto run = b.start(sys);
  ASSERT_TRUE(run) << run.err().message;
  auto outcome = (*run)->wait();
  ASSERT_TRUE(outcome) << outcome.err().message;
  EXPECT_EQ(outcome->version, 3u);
  EXPECT_EQ(made->load(), 3);
  EXPECT_GT(scored->load(), 0);
  for (const auto& line : test::read_lines(out + "/metrics.jsonl")) {
    EXPECT_EQ(line.at("real_reward").get<double>(), 1.0) << line.dump();
    EXPECT_TRUE(line.at("zero_reward_reasons").empty()) << line.dump();
  }
}

TEST(PipelineBuilderTest, CheckpointWhileRunningThenStop) {
  two_threads cfg;
  caf::actor_system sys{cfg};
  const std::string out = test::fresh_dir("builder_stop");
  auto c = sim_config(out);
  c.tracker.steps = 100000;
  c.actors.sim_latency.step_seconds = 0.001;
  auto run = pipeline_builder(c).start(sys);  // the config's suite, the simulated engines
  ASSERT_TRUE(run) << run.err().message;
  auto dir = (*run)->checkpoint();
  ASSERT_TRUE(dir) << dir.err().message;
  EXPECT_TRUE(std::filesystem::exists(*dir + "/tracker.json")) << *dir;
  auto manifest = read_manifest(*dir);
  ASSERT_TRUE(manifest) << manifest.err().message;
  EXPECT_EQ(*dir, out + "/checkpoints/" + checkpoint_name(manifest->version));
  (*run)->stop();
  auto outcome = (*run)->wait();
  ASSERT_TRUE(outcome) << outcome.err().message;
  EXPECT_TRUE(outcome->interrupted);
  EXPECT_GE(outcome->version, manifest->version);
  EXPECT_LT(outcome->version, 100000u);
  EXPECT_FALSE((*run)->checkpoint(std::chrono::seconds(5)));  // the learner is gone
}

TEST(PipelineBuilderTest, StartErrorsNameTheirCause) {
  two_threads cfg;
  caf::actor_system sys{cfg};
  const std::string out = test::fresh_dir("builder_errors");
  // An item naming a verifier nobody registered.
  auto unknown = pipeline_builder(sim_config(out)).tasks(echo_tasks).start(sys);
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.err().message.find("task \"e0\""), std::string::npos) << unknown.err().message;
  EXPECT_NE(unknown.err().message.find("echo"), std::string::npos) << unknown.err().message;
  // The transformer has no engines in libadarl.
  auto c = sim_config(out);
  c.policy.kind = policy_kind::transformer;
  auto no_engine = pipeline_builder(c).start(sys);
  ASSERT_FALSE(no_engine);
  EXPECT_NE(no_engine.err().message.find("pipeline_components::engines"), std::string::npos)
      << no_engine.err().message;
  EXPECT_NE(no_engine.err().message.find("model.kind transformer"), std::string::npos)
      << no_engine.err().message;
  EXPECT_NE(no_engine.err().message.find("register_torch_engines"), std::string::npos)
      << no_engine.err().message;
  // A verifier factory that fails.
  auto failing = pipeline_builder(sim_config(out))
                     .verifier_actors([](const verifier_context& ctx) -> result<verifier_actor> {
                       return error{"no reward service at index " + std::to_string(ctx.index)};
                     })
                     .start(sys);
  ASSERT_FALSE(failing);
  EXPECT_EQ(failing.err().message, "verifier 0: no reward service at index 0");
}

}  // namespace
}  // namespace adarl
