// Actor protocol tests of the tracker with a real actor system: a scripted generator
// (the test itself answers, out of order, duplicated, late or never) and a recording
// learner.
#include <gtest/gtest.h>

#include <caf/all.hpp>

#include <map>
#include <sstream>
#include <set>

#include "actors/tracker.hpp"
#include "tests/actors/actor_fixtures.hpp"

namespace adarl {
namespace {

using namespace std::chrono_literals;

// A learner that forwards what it gets to the test.
learner_actor::behavior_type recording_learner(learner_actor::pointer, caf::actor sink) {
  return {
      [=](group_atom, train_group& g) { caf::anon_send(sink, group_atom::value, std::move(g)); },
      [=](ready_atom, step_report& r) { caf::anon_send(sink, ready_atom::value, std::move(r)); },
      [](stop_atom) -> uint64_t { return 0; },
      [](save_atom) -> uint64_t { return 0; },
      [](status_atom) -> std::string { return "recording"; },
  };
}

// A generator that forwards its orders to the test.
generator_actor::behavior_type forwarding_generator(generator_actor::pointer, caf::actor sink) {
  return {
      [=](work_atom, std::vector<work_order>& w) {
        caf::anon_send(sink, work_atom::value, std::move(w));
      },
      [](weights_atom, weights_ptr) {},
      [](weights_atom, weight_bytes_ptr) {},
      [](decode_atom) {},
  };
}

completion scored(const work_order& o, float reward) {
  completion c;
  c.order = o;
  c.tokens = {5, 6, tokenizer::eos};
  c.logprobs = {-0.1f, -0.2f, -0.3f};
  c.reward = reward;
  c.reason = reward > 0 ? "" : "wrong_value";
  return c;
}

struct tracker_rig {
  test::test_system_config cfg;
  caf::actor_system sys{cfg};
  caf::scoped_actor self{sys};
  tracker_actor tracker;
  generator_actor gen;

  explicit tracker_rig(tracker_config core, uint32_t credit, uint64_t lease_tick_ns = 0) {
    tracker_setup s;
    s.core = core;
    s.prompts = test::math_table(16, 4);
    s.tick_ns = lease_tick_ns;
    tracker = spawn_tracker(sys, s);
    auto sink = caf::actor_cast<caf::actor>(self);
    auto learner = sys.spawn(recording_learner, sink);
    gen = sys.spawn(forwarding_generator, sink);
    self->send(tracker, start_atom::value, learner, evaluator_actor{});
    self->send(tracker, credit_atom::value, credit, gen);
  }
  ~tracker_rig() { self->send_exit(tracker, caf::exit_reason::user_shutdown); }

  std::vector<work_order> work(std::chrono::milliseconds timeout = 2000ms) {
    std::vector<work_order> out;
    self->receive([&](work_atom, std::vector<work_order>& w) { out = std::move(w); },
                  caf::after(timeout) >> [] {});
    return out;
  }
  void answer(std::vector<completion> batch) {
    self->send(tracker, scored_atom::value, std::move(batch));
  }
};

tracker_config grpo(uint32_t prompts, uint64_t steps) {
  tracker_config c;
  c.strategy.kind = strategy_kind::grpo;
  c.strategy.uniform.group_size = 4;
  c.prompts_per_step = prompts;
  c.steps = steps;
  c.lag.max_lag = 0;
  return c;
}

TEST(TrackerActorTest, OutOfOrderAndDuplicatedResultsKeepExactAccounting) {
  tracker_rig rig(grpo(3, 1), /*credit=*/100);
  auto w = rig.work();
  ASSERT_EQ(w.size(), 12u);
  std::vector<completion> batch;
  for (auto it = w.rbegin(); it != w.rend(); ++it) {
    batch.push_back(scored(*it, it->index % 2));
    if (it == w.rbegin()) batch.push_back(scored(*it, 1.f));  // a duplicate, in the step
  }
  rig.answer(batch);
  rig.answer({scored(w[1], 1.f)});     // late duplicate after the step ended
  std::map<uint64_t, train_group> groups;
  step_report report;
  bool ready = false;
  while (!ready)
    rig.self->receive(
        [&](group_atom, train_group& g) { groups[g.prompt_id] = std::move(g); },
        [&](ready_atom, step_report& r) {
          report = std::move(r);
          ready = true;
        },
        caf::after(2000ms) >> [&] { FAIL() << "no step report"; ready = true; });
  EXPECT_EQ(groups.size(), 3u);
  for (const auto& [id, g] : groups) {
    EXPECT_EQ(g.samples.size(), 4u);
    std::set<uint32_t> idx;
    for (const auto& c : g.samples) idx.insert(c.order.index);
    EXPECT_EQ(idx.size(), 4u) << "a kept sample appears twice";
    EXPECT_EQ(g.advantages.size(), 4u);
  }
  EXPECT_EQ(report.samples, 12u);
  EXPECT_EQ(report.cumulative_samples, 12u);  // the ledger: the first step's, once
  EXPECT_GT(report.cumulative_tokens, 0u);
  EXPECT_EQ(report.cumulative_tokens, report.tokens);
  EXPECT_EQ(report.prompts, 3u);
  EXPECT_EQ(report.results, 13u);  // the in-step duplicate was received and dropped
  EXPECT_EQ(report.duplicates, 1u);
  ASSERT_EQ(report.zero_reasons.size(), 1u);
  EXPECT_EQ(report.zero_reasons[0], "wrong_value");
  EXPECT_EQ(report.zero_counts[0], 6u);
}

// Zero rewards that mean a broken set-up (a reference the verifier cannot read) are
// said on the terminal once they pass metrics.alarm_share, not only counted.
TEST(TrackerActorTest, ABrokenSetupsZeroRewardsAreWarnedOfAtOnce) {
  test::test_system_config cfg;
  caf::actor_system sys{cfg};
  caf::scoped_actor self{sys};
  std::ostringstream warnings;
  tracker_setup s;
  s.core = grpo(3, 2);
  s.prompts = test::math_table(16, 4);
  s.log = stream_log(&warnings);
  s.alarm.share = 0.05;
  s.alarm.min_samples = 8;
  auto tracker = spawn_tracker(sys, s);
  auto sink = caf::actor_cast<caf::actor>(self);
  self->send(tracker, start_atom::value, sys.spawn(recording_learner, sink), evaluator_actor{});
  self->send(tracker, credit_atom::value, uint32_t{100}, sys.spawn(forwarding_generator, sink));
  for (int step = 0; step < 2; ++step) {
    std::vector<work_order> w;
    self->receive([&](work_atom, std::vector<work_order>& x) { w = std::move(x); },
                  caf::after(2000ms) >> [] {});
    ASSERT_EQ(w.size(), 12u) << "step " << step;
    std::vector<completion> batch;
    for (const auto& o : w) {
      batch.push_back(scored(o, 0.f));
      // One in three is not a wrong answer but a reference the verifier cannot use.
      if (o.index == 0) batch.back().reason = "bad_reference";
    }
    self->send(tracker, scored_atom::value, std::move(batch));
    bool ready = false;
    while (!ready)
      self->receive([&](group_atom, train_group&) {}, [&](ready_atom, step_report&) { ready = true; },
                    caf::after(2000ms) >> [&] { FAIL() << "no step report"; ready = true; });
    self->send(tracker, version_atom::value, uint64_t(step + 1));  // the next step may start
    if (step == 0) {
      const auto text = warnings.str();
      EXPECT_NE(text.find("3 of the 12 rewards so far (25.0%) are 0 with reason bad_reference"),
                std::string::npos)
          << text;
      EXPECT_NE(text.find("metrics.alarm_share (5.0%)"), std::string::npos) << text;
    }
  }
  // Still above after the second step: said once, not every step.
  const auto text = warnings.str();
  EXPECT_EQ(text.find("reason bad_reference"), text.rfind("reason bad_reference")) << text;
  EXPECT_EQ(text.find("wrong_value"), std::string::npos) << "wrong answers are no alarm";
  self->send_exit(tracker, caf::exit_reason::user_shutdown);
}

TEST(TrackerActorTest, UnansweredRequestIsReissuedAfterItsLease) {
  auto c = grpo(1, 1);
  c.lease_ns = 50'000'000;  // 50 ms
  tracker_rig rig(c, /*credit=*/100, /*tick=*/10'000'000);
  auto w = rig.work();
  ASSERT_EQ(w.size(), 4u);
  rig.answer({scored(w[1], 1.f), scored(w[2], 0.f), scored(w[3], 0.f)});  // w[0] is lost
  auto again = rig.work();
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].index, w[0].index);
  EXPECT_EQ(again[0].stream, w[0].stream);
  rig.answer({scored(again[0], 1.f)});
  bool ready = false;
  step_report report;
  while (!ready)
    rig.self->receive([&](group_atom, train_group&) {},
                      [&](ready_atom, step_report& r) {
                        report = std::move(r);
                        ready = true;
                      },
                      [&](work_atom, std::vector<work_order>&) {},
                      caf::after(2000ms) >> [&] { FAIL() << "no step report"; ready = true; });
  EXPECT_EQ(report.reissued, 1u);
  EXPECT_EQ(report.samples, 4u);
}

TEST(TrackerActorTest, APromptThatExitsEarlyReachesTheLearnerBeforeASlowRoundEnds) {
  tracker_config c;
  c.strategy.kind = strategy_kind::ada_seq;
  c.strategy.seq.group_size = 4;
  c.strategy.seq.round_size = 4;
  c.strategy.seq.max_rounds = 4;
  c.strategy.seq.exit = exit_rule::balance;
  c.prompts_per_step = 2;
  c.steps = 1;
  tracker_rig rig(c, /*credit=*/100);
  auto w = rig.work();
  ASSERT_EQ(w.size(), 8u);
  // Slot 0 is balanced in its first round; slot 1's round is slow: 3 of 4 arrive.
  std::vector<completion> fast, slow;
  for (const auto& o : w) {
    if (o.slot == 0)
      fast.push_back(scored(o, o.index < 2 ? 1.f : 0.f));
    else if (o.index < 3)
      slow.push_back(scored(o, 0.f));
  }
  rig.answer(slow);
  rig.answer(fast);
  train_group first;
  rig.self->receive([&](group_atom, train_group& g) { first = std::move(g); },
                    caf::after(2000ms) >> [] { FAIL() << "no group"; });
  EXPECT_EQ(first.samples.size(), 4u);
  EXPECT_EQ(first.prompt_id, w[0].prompt_id);
  // The slow round is still open: nothing else reached the learner.
  bool other = false;
  rig.self->receive([&](group_atom, train_group&) { other = true; },
                    [&](ready_atom, step_report&) { other = true; },
                    caf::after(100ms) >> [] {});
  EXPECT_FALSE(other);
}

TEST(TrackerActorTest, WorkNeverExceedsTheAnnouncedCredit) {
  tracker_rig rig(grpo(4, 1), /*credit=*/3);
  auto w = rig.work();
  EXPECT_EQ(w.size(), 3u);
  EXPECT_TRUE(rig.work(100ms).empty());
  rig.self->send(rig.tracker, credit_atom::value, uint32_t{5}, rig.gen);
  EXPECT_EQ(rig.work().size(), 5u);
}

}  // namespace
}  // namespace adarl
