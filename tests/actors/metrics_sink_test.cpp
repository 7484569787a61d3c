// The metrics sink's writes are checked (actors/metrics_sink.hpp): the first that fails
// is told to the supervisor with the file and the reason, nothing more is written, and
// save and flush reply with that error.
#include "actors/metrics_sink.hpp"

#include <gtest/gtest.h>

#include <caf/all.hpp>
#include <filesystem>
#include <fstream>

#include "actors/failure.hpp"
#include "tests/actors/actor_fixtures.hpp"

namespace adarl {
namespace {

namespace fs = std::filesystem;

step_record step(uint64_t s) {
  step_record r;
  r.sampling.step = s;
  r.sampling.samples = 8;
  r.policy_version = s + 1;
  return r;
}

size_t line_count(const std::string& file) {
  std::ifstream in(file);
  size_t n = 0;
  for (std::string line; std::getline(in, line);) ++n;
  return n;
}

TEST(MetricsSinkTest, AFailedWriteIsToldToTheSupervisorAndNothingMoreIsWritten) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full here";
  const auto dir = test::fresh_dir("metrics_sink_full");
  fs::create_directories(dir);
  fs::create_symlink("/dev/full", dir + "/eval.jsonl");  // eval.jsonl on a full disk
  test::test_system_config cfg;
  caf::actor_system sys{cfg};
  caf::scoped_actor self{sys};
  metrics_setup ms;
  ms.dir = dir;
  ms.progress = false;
  ms.supervisor = caf::actor_cast<caf::actor>(self);
  auto m = spawn_metrics(sys, ms);
  self->send(m, record_atom::value, step(0));
  eval_report e;
  e.version = 1;
  e.greedy_accuracy = 0.5;
  self->send(m, eval_atom::value, e);
  self->send(m, record_atom::value, step(1));
  std::string told;
  self->receive([&](stop_atom, const std::string& what) { told = what; },
                caf::after(std::chrono::seconds(10)) >> [] {});
  EXPECT_EQ(told,
            "metrics: " + dir + "/eval.jsonl: cannot write: No space left on device");
  for (auto ask : {0, 1}) {
    std::string replied = "no reply";
    auto on_error = [&](caf::error& err) { replied = error_text(sys, err); };
    if (ask == 0)
      self->request(m, std::chrono::seconds(10), save_atom::value)
          .receive([&](bool) { replied = "written"; }, on_error);
    else
      self->request(m, std::chrono::seconds(10), flush_atom::value)
          .receive([&](bool) { replied = "written"; }, on_error);
    EXPECT_EQ(replied, told) << (ask == 0 ? "save" : "flush");
  }
  // Step 0's line only: step 1 came after the failure.
  EXPECT_EQ(line_count(dir + "/metrics.jsonl"), 1u);
  EXPECT_EQ(line_count(dir + "/metrics.csv"), 2u);  // header and step 0
  self->send_exit(m, caf::exit_reason::user_shutdown);
}

TEST(MetricsSinkTest, SaveFlushesEveryLineReceivedSoFar) {
  const auto dir = test::fresh_dir("metrics_sink_save");
  test::test_system_config cfg;
  caf::actor_system sys{cfg};
  caf::scoped_actor self{sys};
  metrics_setup ms;
  ms.dir = dir;
  ms.progress = false;
  auto m = spawn_metrics(sys, ms);
  for (uint64_t s = 0; s < 3; ++s) self->send(m, record_atom::value, step(s));
  bool written = false;
  self->request(m, std::chrono::seconds(10), save_atom::value)
      .receive([&](bool ok) { written = ok; }, [](caf::error&) {});
  EXPECT_TRUE(written);
  // The reply comes after the three lines: they are in the file (a checkpoint published
  // now never holds a step the metrics lack).
  EXPECT_EQ(line_count(dir + "/metrics.jsonl"), 3u);
  self->send_exit(m, caf::exit_reason::user_shutdown);
}

// A step line records the step's per-prompt visits column by column (issue 36): the
// exit by name, an unknown prior as null; a step without visits has no key.
// The fields the field lists mark for the line are in it under their names, as they are.
TEST(MetricsSinkTest, TheLineShowsEveryLineFieldOfTheListsByName) {
  auto r = step(3);
  r.sampling.samples = 77;
  r.sampling.reissued = 5;
  r.sampling.rounds = {0, 2, 1};
  r.sampling.signal_samples = 33;
  r.grad_norm = 1.25;
  r.updates = 4;
  r.logprob_gap = 0.125;
  r.logprob_gap_tokens = 40;
  const auto j = step_json(r, metrics_totals{}, std::nullopt);
  size_t shown = 0;
  for_each_field(step_report_fields, [&](const auto& f) {
    if (!f.has(field_line)) return;
    ++shown;
    ASSERT_TRUE(j.contains(f.name)) << f.name;
    EXPECT_EQ(j[f.name], nlohmann::json(r.sampling.*(f.member))) << f.name;
  });
  for_each_field(step_record_fields, [&](const auto& f) {
    if constexpr (requires { nlohmann::json(r.*(f.member)); }) {
      if (!f.has(field_line)) return;
      ++shown;
      ASSERT_TRUE(j.contains(f.name)) << f.name;
      EXPECT_EQ(j[f.name], nlohmann::json(r.*(f.member))) << f.name;
    }
  });
  EXPECT_EQ(shown, 25u);
  EXPECT_EQ(j["samples"], 77);
  EXPECT_EQ(j["signal_samples"], 33);
  EXPECT_EQ(j["updates"], 4);
  EXPECT_EQ(j["logprob_gap"], 0.125);
  EXPECT_EQ(j["logprob_gap_tokens"], 40);
  EXPECT_EQ(j["rounds"], nlohmann::json({0, 2, 1}));
}

TEST(MetricsSinkTest, AStepLineRecordsItsVisits) {
  auto r = step(3);
  r.sampling.visit_prompts = {11, 12};
  r.sampling.visit_predicted = {0.25, -1};
  r.sampling.visit_samples = {8, 0};
  r.sampling.visit_positives = {3, 0};
  r.sampling.visit_exits = {1, 7};
  const auto j = step_json(r, metrics_totals{}, std::nullopt);
  ASSERT_TRUE(j.contains("visits")) << j.dump();
  const auto& v = j["visits"];
  EXPECT_EQ(v["prompt"], nlohmann::json({11, 12}));
  EXPECT_EQ(v["predicted"][0], 0.25);
  EXPECT_TRUE(v["predicted"][1].is_null());
  EXPECT_EQ(v["samples"], nlohmann::json({8, 0}));
  EXPECT_EQ(v["positives"], nlohmann::json({3, 0}));
  EXPECT_EQ(v["exit"], nlohmann::json({"balance", "skipped"}));
  EXPECT_FALSE(step_json(step(4), metrics_totals{}, std::nullopt).contains("visits"));
  // Columns of different lengths (never written so): no visits rather than a wrong row.
  r.sampling.visit_exits.pop_back();
  EXPECT_FALSE(step_json(r, metrics_totals{}, std::nullopt).contains("visits"));
}

}  // namespace
}  // namespace adarl
