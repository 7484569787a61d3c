#include "algorithms/tracker_core.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <array>
#include <map>
#include <set>

#include "base/random_keys.hpp"

namespace adarl {
namespace {

tracker_config grpo_config(uint32_t prompts, uint64_t steps, uint32_t max_lag) {
  tracker_config c;
  c.strategy.kind = strategy_kind::grpo;
  c.strategy.uniform.group_size = 4;
  c.prompts_per_step = prompts;
  c.steps = steps;
  c.lag.max_lag = max_lag;
  c.lease_ns = 1000;
  return c;
}

tracker_config seq_config_of(uint32_t prompts, exit_rule rule) {
  tracker_config c;
  c.strategy.kind = strategy_kind::ada_seq;
  c.strategy.seq.group_size = 4;
  c.strategy.seq.round_size = 4;
  c.strategy.seq.max_rounds = 3;
  c.strategy.seq.exit = rule;
  c.prompts_per_step = prompts;
  c.steps = 1;
  c.lease_ns = 1000;
  return c;
}

work_result answer(const work_item& w, float reward, uint64_t version = 0) {
  return {w.step, w.slot, w.index, reward, /*tokens=*/5, version};
}

TEST(PromptOrderTest, EachEpochIsAPermutationAndEpochsDiffer) {
  prompt_order o(50, 7);
  std::vector<uint64_t> e0, e1;
  for (int i = 0; i < 50; ++i) e0.push_back(o.next());
  for (int i = 0; i < 50; ++i) e1.push_back(o.next());
  EXPECT_EQ(std::set<uint64_t>(e0.begin(), e0.end()).size(), 50u);
  EXPECT_EQ(std::set<uint64_t>(e1.begin(), e1.end()).size(), 50u);
  EXPECT_NE(e0, e1);
  prompt_order again(50, 7);
  again.seek(50);
  for (int i = 0; i < 50; ++i) EXPECT_EQ(again.next(), e1[i]);
}

TEST(TrackerCoreTest, LagGateBoundsHowManyStepsAreHandedOut) {
  tracker_core t(grpo_config(2, 0, /*max_lag=*/1), 10);
  std::vector<work_item> w;
  t.next_work(100, /*learner_version=*/0, 0, w);
  // Steps 0 and 1 (lag 1), 2 prompts x 4 samples each.
  ASSERT_EQ(w.size(), 16u);
  EXPECT_EQ(w.front().step, 0u);
  EXPECT_EQ(w.back().step, 1u);
  for (const auto& x : w)
    EXPECT_EQ(x.stream, mix_keys(1, x.step, x.prompt_id, x.index));
  std::vector<work_item> more;
  t.next_work(100, 0, 0, more);
  EXPECT_TRUE(more.empty());
  t.next_work(100, /*learner_version=*/1, 0, more);
  ASSERT_EQ(more.size(), 8u);
  EXPECT_EQ(more.front().step, 2u);
}

TEST(TrackerCoreTest, OutOfOrderResultsFinishGroupsAndTheStepOnce) {
  tracker_core t(grpo_config(2, 1, 0), 10);
  std::vector<work_item> w;
  t.next_work(100, 0, 0, w);
  ASSERT_EQ(w.size(), 8u);
  std::reverse(w.begin(), w.end());
  tracker_output out;
  uint32_t groups = 0, done = 0;
  for (size_t i = 0; i < w.size(); ++i) {
    out.clear();
    EXPECT_EQ(t.on_result(answer(w[i], i % 2 ? 1.f : 0.f), 10, out), result_fate::accepted);
    groups += out.finished.size();
    done += out.steps_done.size();
  }
  EXPECT_EQ(groups, 2u);
  EXPECT_EQ(done, 1u);
  EXPECT_EQ(t.generated_through(), 0);
  EXPECT_TRUE(t.generation_finished());
  EXPECT_EQ(t.summary(0)->samples, 8u);
  EXPECT_EQ(t.counters(0)->results, 8u);
  // A duplicate after the end is dropped and counted, never accepted.
  out.clear();
  EXPECT_EQ(t.on_result(answer(w[0], 1.f), 11, out), result_fate::duplicate);
  EXPECT_EQ(t.counters(0)->duplicates, 1u);
  EXPECT_TRUE(out.finished.empty());
}

TEST(TrackerCoreTest, ExpiredLeaseIsReissuedAndTheLateCopyCountsOnce) {
  tracker_core t(grpo_config(1, 1, 0), 10);
  std::vector<work_item> w;
  t.next_work(100, 0, /*now=*/0, w);
  ASSERT_EQ(w.size(), 4u);
  tracker_output out;
  for (int i = 1; i < 4; ++i) t.on_result(answer(w[i], 1.f), 5, out);
  EXPECT_EQ(t.expire(999), 0u);
  EXPECT_EQ(t.expire(1000), 1u);  // w[0]'s lease ended
  std::vector<work_item> again;
  t.next_work(100, 0, 1000, again);
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].slot, w[0].slot);
  EXPECT_EQ(again[0].index, w[0].index);
  EXPECT_EQ(again[0].stream, w[0].stream);
  EXPECT_EQ(t.counters(0)->reissued, 1u);
  out.clear();
  EXPECT_EQ(t.on_result(answer(w[0], 0.f), 1001, out), result_fate::accepted);
  EXPECT_EQ(out.finished.size(), 1u);
  EXPECT_EQ(out.steps_done, std::vector<uint64_t>{0});
  out.clear();
  EXPECT_EQ(t.on_result(answer(again[0], 0.f), 1002, out), result_fate::duplicate);
  EXPECT_EQ(t.summary(0)->samples, 4u);
  // The first copy's expiry record is obsolete: nothing expires any more.
  EXPECT_EQ(t.expire(5000), 0u);
}

TEST(TrackerCoreTest, ReissueIsSkippedWhenTheAnswerArrivesFirst) {
  tracker_core t(grpo_config(1, 1, 0), 10);
  std::vector<work_item> w;
  t.next_work(100, 0, 0, w);
  EXPECT_EQ(t.expire(1000), 4u);
  tracker_output out;
  for (const auto& x : w) t.on_result(answer(x, 1.f), 1001, out);
  std::vector<work_item> again;
  t.next_work(100, 0, 1002, again);
  EXPECT_TRUE(again.empty());
  EXPECT_EQ(t.in_flight(), 0u);
}

TEST(TrackerCoreTest, ResultsOfRetiredStepsAreStale) {
  tracker_core t(grpo_config(1, 0, 1), 10);
  std::vector<work_item> w;
  t.next_work(4, 0, 0, w);
  tracker_output out;
  for (const auto& x : w) t.on_result(answer(x, 1.f), 1, out);
  t.retire_through(1);
  EXPECT_EQ(t.counters(0), nullptr);
  EXPECT_EQ(t.on_result(answer(w[0], 1.f), 2, out), result_fate::stale);
}

TEST(TrackerCoreTest, NextRoundStartsWithoutWaitingForOtherPrompts) {
  tracker_core t(seq_config_of(2, exit_rule::pos), 10);
  std::vector<work_item> w;
  t.next_work(100, 0, 0, w);
  ASSERT_EQ(w.size(), 8u);  // one round of 4 for each of 2 prompts
  tracker_output out;
  // Slot 0's round is all wrong: its next round is requested at once, while slot 1's
  // first round is still out.
  for (const auto& x : w)
    if (x.slot == 0) t.on_result(answer(x, 0.f), 1, out);
  std::vector<work_item> next;
  t.next_work(100, 0, 2, next);
  ASSERT_EQ(next.size(), 4u);
  for (const auto& x : next) {
    EXPECT_EQ(x.slot, 0u);
    EXPECT_GE(x.index, 4u);
  }
}

TEST(TrackerCoreTest, SyncRoundsHoldTheNextRoundUntilEveryPromptsRoundIsIn) {
  auto c = seq_config_of(2, exit_rule::pos);
  c.sync_rounds = true;
  tracker_core t(c, 10);
  std::vector<work_item> w;
  t.next_work(100, 0, 0, w);
  tracker_output out;
  for (const auto& x : w)
    if (x.slot == 0) t.on_result(answer(x, 0.f), 1, out);
  std::vector<work_item> next;
  t.next_work(100, 0, 2, next);
  EXPECT_TRUE(next.empty());  // slot 1's round 1 is still out: barrier
  for (const auto& x : w)
    if (x.slot == 1) t.on_result(answer(x, x.index == 0 ? 1.f : 0.f), 3, out);
  t.next_work(100, 0, 4, next);
  ASSERT_EQ(next.size(), 4u);
  EXPECT_EQ(next[0].slot, 0u);
}

TEST(TrackerCoreTest, LagOfAcceptedSamplesIsCounted) {
  tracker_core t(grpo_config(1, 0, 2), 10);
  std::vector<work_item> w;
  t.next_work(100, 0, 0, w);
  tracker_output out;
  for (const auto& x : w) t.on_result(answer(x, 1.f, /*version=*/0), 1, out);
  EXPECT_EQ(t.counters(2)->lag_max, 2u);
  EXPECT_EQ(t.counters(2)->lag_sum, 8u);
  EXPECT_EQ(t.counters(0)->lag_max, 0u);
}

TEST(TrackerCoreTest, PassRatesPersistAcrossStepsAndRestore) {
  tracker_core t(grpo_config(10, 0, 0), 10);
  std::vector<work_item> w;
  t.next_work(1000, 0, 0, w);
  ASSERT_EQ(w.size(), 40u);
  tracker_output out;
  for (const auto& x : w) t.on_result(answer(x, x.prompt_id < 5 ? 1.f : 0.f), 1, out);
  t.retire_through(1);
  EXPECT_GT(t.pass_rates().estimate(0), 0.7);
  EXPECT_LT(t.pass_rates().estimate(9), 0.3);
  auto saved = t.save(/*through=*/0);
  EXPECT_EQ(saved.next_step, 1u);
  EXPECT_EQ(saved.prompt_cursor, 10u);
  tracker_core r(grpo_config(10, 0, 0), 10);
  ASSERT_TRUE(r.restore(saved));
  EXPECT_DOUBLE_EQ(r.pass_rates().estimate(0), t.pass_rates().estimate(0));
  std::vector<work_item> a, b;
  t.next_work(1000, 1, 2, a);
  r.next_work(1000, 1, 2, b);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].step, 1u);
    EXPECT_EQ(a[i].prompt_id, b[i].prompt_id);
    EXPECT_EQ(a[i].stream, b[i].stream);
  }
}

// The prior each prompt was drawn with, scored against its pool (docs/algorithm.md "The learned estimator"): the
// first step sees every prompt for the first time at the uniform prior 0.5, so every
// sample costs (0.5 - y)^2 = 0.25; the second step's priors have learned.
TEST(TrackerCoreTest, ThePriorOfEachDrawnPromptIsScoredAgainstItsPool) {
  tracker_core t(grpo_config(10, 0, 0), 10);
  std::vector<work_item> w;
  t.next_work(1000, 0, 0, w);
  tracker_output out;
  for (const auto& x : w) t.on_result(answer(x, x.prompt_id < 5 ? 1.f : 0.f), 1, out);
  const auto* s0 = t.summary(0);
  ASSERT_NE(s0, nullptr);
  EXPECT_EQ(s0->prior_fit.prompts, 10u);
  EXPECT_EQ(s0->prior_fit_first_seen.prompts, 10u);
  EXPECT_EQ(s0->prior_fit.samples, 40u);
  EXPECT_DOUBLE_EQ(s0->prior_fit.mean_brier(), 0.25);
  EXPECT_NEAR(s0->prior_fit.mean_log_loss(), std::log(2.0), 1e-12);
  EXPECT_EQ(s0->reliability_samples[5], 40u);  // every prediction 0.5: bin [0.5, 0.6)
  EXPECT_DOUBLE_EQ(s0->reliability_predicted[5], 20.0);
  EXPECT_DOUBLE_EQ(s0->reliability_observed[5], 20.0);
  // Every visit is kept: the prompt, the prior it was drawn with, its pool (issue 36).
  ASSERT_EQ(s0->visits.size(), 10u);
  for (const auto& v : s0->visits) {
    EXPECT_EQ(v.samples, 4u);
    EXPECT_EQ(v.positives, v.prompt < 5 ? 4u : 0u) << v.prompt;
    EXPECT_DOUBLE_EQ(v.predicted, 0.5);
    EXPECT_EQ(v.exit, exit_kind::uniform);
  }
  t.retire_through(1);
  w.clear();
  t.next_work(1000, 1, 0, w);
  ASSERT_EQ(w.size(), 40u);
  for (const auto& x : w) t.on_result(answer(x, x.prompt_id < 5 ? 1.f : 0.f), 2, out);
  const auto* s1 = t.summary(1);
  ASSERT_NE(s1, nullptr);
  EXPECT_EQ(s1->prior_fit_first_seen.prompts, 0u);  // the second epoch: all seen
  EXPECT_LT(s1->prior_fit.mean_brier(), 0.25);       // the counts predict better
}

// tracker.estimator.kind learned: no step before the features; then the predictor's
// prior, trained at each commit, and saved/restored with the pass rates.
TEST(TrackerCoreTest, TheLearnedEstimatorWaitsForFeaturesAndIsSavedWithTheTable) {
  auto c = grpo_config(10, 0, 0);
  c.estimator = estimator_kind::learned;
  tracker_core t(c, 10);
  std::vector<work_item> w;
  t.next_work(1000, 0, 0, w);
  EXPECT_TRUE(w.empty());
  EXPECT_TRUE(t.awaiting_features());
  std::vector<std::vector<float>> f;
  for (int i = 0; i < 10; ++i) f.push_back({i < 5 ? 1.f : -1.f, float(i % 3)});
  EXPECT_FALSE(t.set_prompt_features({{1.f}, {1.f, 2.f}}));  // ragged: refused
  ASSERT_TRUE(t.set_prompt_features(f));
  t.next_work(1000, 0, 0, w);
  ASSERT_EQ(w.size(), 40u);
  tracker_output out;
  for (const auto& x : w) t.on_result(answer(x, x.prompt_id < 5 ? 1.f : 0.f), 1, out);
  // Committed: prompts 0-4 (feature +1) all right, 5-9 all wrong.
  EXPECT_GT(t.predictor().predict(0), 0.5);
  EXPECT_LT(t.predictor().predict(9), 0.5);
  t.retire_through(1);
  const auto saved = t.save(0);
  EXPECT_EQ(saved.predictor.weights.size(), 3u);
  EXPECT_EQ(saved.features, f);  // a resumed run predicts from the features it began with
  tracker_core r(c, 10);
  ASSERT_TRUE(r.restore(saved));
  EXPECT_FALSE(r.awaiting_features());
  EXPECT_DOUBLE_EQ(r.predictor().predict(0), t.predictor().predict(0));
  auto again = r.set_prompt_features({{5.f, 5.f}, {5.f, 5.f}});  // later features: ignored
  ASSERT_TRUE(again);
  EXPECT_FALSE(*again);
  EXPECT_DOUBLE_EQ(r.predictor().predict(0), t.predictor().predict(0));
  // A save through an earlier step rewinds the fits of the later one.
  tracker_core u(c, 10);
  ASSERT_TRUE(u.set_prompt_features(f));
  EXPECT_EQ(u.save(-1).predictor.weights, std::vector<double>(3, 0.0));
}

TEST(TrackerCoreTest, SaveWithOpenStepsRegeneratesThem) {
  tracker_core t(grpo_config(3, 0, 1), 10);
  std::vector<work_item> w;
  t.next_work(1000, 0, 0, w);  // steps 0 and 1 open, nothing answered
  auto saved = t.save(/*through=*/-1);
  EXPECT_EQ(saved.next_step, 0u);
  EXPECT_EQ(saved.prompt_cursor, 0u);
  tracker_core r(grpo_config(3, 0, 1), 10);
  ASSERT_TRUE(r.restore(saved));
  std::vector<work_item> again;
  r.next_work(1000, 0, 0, again);
  ASSERT_EQ(again.size(), w.size());
  for (size_t i = 0; i < w.size(); ++i) EXPECT_EQ(again[i].stream, w[i].stream);
}

TEST(TrackerCoreTest, DapoDrawsExtraPromptsFromTheSameOrder) {
  auto c = grpo_config(2, 1, 0);
  c.strategy.kind = strategy_kind::dapo;
  tracker_core t(c, 20);
  std::vector<work_item> w;
  tracker_output out;
  std::set<uint64_t> prompts;
  uint32_t kept = 0;
  for (int round = 0; round < 20 && !t.generation_finished(); ++round) {
    w.clear();
    t.next_work(1000, 0, 0, w);
    for (const auto& x : w) {
      prompts.insert(x.prompt_id);
      // Prompt 3 and above have mixed rewards; others are all wrong (dropped).
      out.clear();
      t.on_result(answer(x, x.prompt_id >= 3 && x.index == 0 ? 1.f : 0.f), 1, out);
      for (const auto& g : out.finished) kept += g.group.trainable();
    }
  }
  EXPECT_TRUE(t.generation_finished());
  EXPECT_EQ(kept, 2u);
  EXPECT_GE(prompts.size(), 2u);
}

// Statistics fold in step order at completion, never by arrival: step 1 finishing
// before step 0 leaves the table alone until step 0 is done too.
TEST(TrackerCoreTest, PassRatesCommitInStepOrderOnceEarlierStepsAreComplete) {
  tracker_core t(grpo_config(2, 0, /*max_lag=*/1), 4);
  std::vector<work_item> w;
  t.next_work(100, 0, 0, w);  // steps 0 and 1
  ASSERT_EQ(w.size(), 16u);
  tracker_output out;
  for (const auto& x : w)
    if (x.step == 1) t.on_result(answer(x, 1.f), 1, out);
  EXPECT_EQ(t.generated_through(), -1);
  EXPECT_EQ(t.pass_rates().size(), 0u);  // step 1 is done but waits for step 0
  EXPECT_NE(t.summary(1)->rate_prompts, (std::array<uint32_t, 10>{}));
  for (const auto& x : w)
    if (x.step == 0) t.on_result(answer(x, 0.f), 2, out);
  EXPECT_EQ(t.generated_through(), 1);
  EXPECT_GT(t.pass_rates().size(), 0u);
}

// A checkpoint after step `through` holds the table as it was after that step: the
// updates of later complete steps are undone (they are generated again on resume, and
// would count twice otherwise), and the cursor is where the first of them opened.
TEST(TrackerCoreTest, SaveThroughAStepLeavesLaterStepsOutOfTheTable) {
  tracker_core t(grpo_config(2, 0, /*max_lag=*/1), 4);
  std::vector<work_item> w;
  t.next_work(100, 0, 0, w);
  tracker_output out;
  for (const auto& x : w)
    if (x.step == 0) t.on_result(answer(x, x.index == 0 ? 1.f : 0.f), 1, out);
  const auto after_step0 = t.pass_rates().save();
  const auto cursor_after_step0 = t.save(0).prompt_cursor;
  EXPECT_EQ(cursor_after_step0, 2u);
  for (const auto& x : w)
    if (x.step == 1) t.on_result(answer(x, 1.f), 2, out);
  ASSERT_EQ(t.generated_through(), 1);
  const auto both = t.save(1);
  EXPECT_EQ(both.next_step, 2u);
  EXPECT_EQ(both.prompt_cursor, 4u);
  EXPECT_NE(both.pass_rates.size(), 0u);
  const auto first = t.save(0);
  EXPECT_EQ(first.next_step, 1u);
  EXPECT_EQ(first.prompt_cursor, 2u);
  ASSERT_EQ(first.pass_rates.size(), after_step0.size());
  for (size_t i = 0; i < after_step0.size(); ++i) {
    EXPECT_EQ(first.pass_rates[i].prompt, after_step0[i].prompt);
    EXPECT_EQ(first.pass_rates[i].counts.n_tot, after_step0[i].counts.n_tot);
    EXPECT_EQ(first.pass_rates[i].counts.n_pos, after_step0[i].counts.n_pos);
  }
  // Restored from it, step 1 is drawn again exactly as before and, once generated, the
  // table equals the uninterrupted one: its statistics counted once.
  tracker_core r(grpo_config(2, 0, 1), 4);
  ASSERT_TRUE(r.restore(first));
  std::vector<work_item> again;
  r.next_work(100, /*learner_version=*/1, 3, again);
  std::vector<work_item> step1;
  for (const auto& x : w)
    if (x.step == 1) step1.push_back(x);
  ASSERT_GE(again.size(), step1.size());
  for (size_t i = 0; i < step1.size(); ++i) EXPECT_EQ(again[i].stream, step1[i].stream);
  for (size_t i = 0; i < step1.size(); ++i) r.on_result(answer(again[i], 1.f), 4, out);
  const auto a = r.save(1).pass_rates, b = t.save(1).pass_rates;
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].counts.n_tot, b[i].counts.n_tot);
}

// The budget is charged once per accepted result and known in step order: a step done
// before an earlier one has no point until that one is done; duplicates are not charged;
// a save carries the points through the saved step and a restore counts on from them.
TEST(TrackerCoreTest, TheLedgerCountsAcceptedSamplesInStepOrderAndIsSaved) {
  tracker_core t(grpo_config(2, 0, /*max_lag=*/1), 4);
  std::vector<work_item> w;
  t.next_work(100, 0, 0, w);  // steps 0 and 1, 8 samples each
  tracker_output out;
  for (const auto& x : w)
    if (x.step == 1) t.on_result(answer(x, 1.f), 1, out);
  EXPECT_EQ(t.spent(1), nullptr);  // done, but step 0 is not
  for (const auto& x : w)
    if (x.step == 0) {
      t.on_result(answer(x, 0.f), 2, out);
      t.on_result(answer(x, 0.f), 2, out);  // a late copy: not charged
    }
  ASSERT_NE(t.spent(0), nullptr);
  ASSERT_NE(t.spent(1), nullptr);
  EXPECT_EQ(t.spent(0)->step.samples, 8u);
  EXPECT_EQ(t.spent(0)->through.samples, 8u);
  EXPECT_EQ(t.spent(1)->through.samples, 16u);
  EXPECT_EQ(t.spent(1)->through.tokens, 16u * 5);
  EXPECT_EQ(t.spent(1)->step.samples, t.summary(1)->samples);  // one count, two views
  const auto saved = t.save(0);
  ASSERT_EQ(saved.budget.size(), 1u);
  EXPECT_EQ(saved.budget[0].first, 0u);
  EXPECT_EQ(saved.budget[0].second.through.samples, 8u);
  // The learner at version 2: the point of step 0 goes, step 1's stays.
  t.retire_through(2);
  EXPECT_EQ(t.spent(0), nullptr);
  ASSERT_NE(t.spent(1), nullptr);
  // Restored after step 0, step 1 is generated again and counted on from step 0's.
  tracker_core r(grpo_config(2, 0, 1), 4);
  ASSERT_TRUE(r.restore(saved));
  std::vector<work_item> again;
  r.next_work(100, /*learner_version=*/1, 3, again);
  for (const auto& x : again)
    if (x.step == 1) r.on_result(answer(x, 1.f), 4, out);
  ASSERT_NE(r.spent(1), nullptr);
  EXPECT_EQ(r.spent(1)->through.samples, 16u);
  EXPECT_EQ(r.spent(1)->through.tokens, t.spent(1)->through.tokens);
  // A budget that does not end at the step before next_step is refused, changing nothing.
  auto bad = saved;
  bad.next_step = 3;
  const auto refused = r.restore(bad);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.err().message.find("the budget ends at step 0"), std::string::npos)
      << refused.err().message;
  EXPECT_NE(r.spent(1), nullptr);
}

// What a stalled tracker says it waits for names the step and the versions involved.
TEST(TrackerCoreTest, WaitingNamesTheStepAndTheVersions) {
  auto c = grpo_config(1, 20, /*max_lag=*/1);
  c.lag.exact = true;
  tracker_core t(c, 4);
  tracker_state s;
  s.next_step = 10;  // as a resume without carried steps did before floor_version
  ASSERT_TRUE(t.restore(s));
  std::vector<work_item> w;
  t.next_work(100, /*learner_version=*/10, 0, w);
  EXPECT_TRUE(w.empty());
  EXPECT_EQ(t.waiting(10),
            "step 10 cannot open: the lag gate pins it to version 9 and the learner is at "
            "version 10");
  EXPECT_EQ(t.waiting(8), "step 10 waits for the learner to reach version 9 (it is at version 8)");
  t.next_work(100, 9, 0, w);
  ASSERT_FALSE(w.empty());
  EXPECT_EQ(t.waiting(9).rfind("step 10 is generating: 4 orders in flight", 0), 0u)
      << t.waiting(9);
}

// Issue 38: the informed Seq can skip every prompt of a step (every prompt believed
// hopeless, explore 0). That step finishes as it opens; before take_started() its
// report was dropped and the run waited for it until stall_seconds.
TEST(TrackerCoreTest, AStepWhosePromptsAreAllSkippedFinishesAndIsReported) {
  tracker_config c = seq_config_of(3, exit_rule::balance);
  c.steps = 3;
  c.lag.max_lag = 0;
  c.strategy.seq.skip_below = 0.999;  // no prompt reaches it: every visit is skipped
  c.strategy.seq.explore = 0;
  tracker_core t(c, 10);
  std::vector<work_item> w;
  t.next_work(100, /*learner_version=*/0, 0, w);
  EXPECT_TRUE(w.empty());
  EXPECT_EQ(t.generated_through(), 0);
  tracker_output out;
  t.take_started(out);
  ASSERT_EQ(out.steps_done, std::vector<uint64_t>{0});
  ASSERT_FALSE(out.finished.empty());
  for (const auto& g : out.finished) {
    EXPECT_EQ(g.step, 0u);
    EXPECT_EQ(g.group.exit, exit_kind::skipped);
    EXPECT_FALSE(g.group.trainable());
  }
  const step_summary* s = t.summary(0);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->samples, 0u);
  // Taken once: a second call moves nothing.
  tracker_output again;
  t.take_started(again);
  EXPECT_TRUE(again.steps_done.empty());
  EXPECT_TRUE(again.finished.empty());
  // The learner trains the empty step (a no-op update): the next one opens and is
  // reported the same way, and so on to the last.
  for (uint64_t v = 1; v <= 2; ++v) {
    t.retire_through(v);
    t.next_work(100, v, 0, w);
    tracker_output next;
    t.take_started(next);
    EXPECT_EQ(next.steps_done, std::vector<uint64_t>{v});
  }
  EXPECT_TRUE(t.generation_finished());
}

}  // namespace
}  // namespace adarl
