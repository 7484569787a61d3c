#include "report/run_page.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "report/run_facts.hpp"
#include "tests/report/run_fixture.hpp"

namespace adarl {
namespace {

using json = nlohmann::json;
using testing_run::evaluation;

/// The page's data for the fixture's steps and the given evaluations.
json data_of(const std::vector<json>& evals,
             const std::vector<json>& steps = testing_run::seq_steps(),
             const run_report_options& o = {}) {
  json d = run_facts(steps, evals, o);
  d["kind"] = "run";
  d["title"] = "t";
  d["dir"] = "runs/x";
  d["name"] = "x";
  d["seed"] = 2;
  d["strategy"] = run_strategy_kind(json::object(), d["exits"]);
  d["config"] = json::object();
  return d;
}

/// An evaluation without per-prompt values.
json bare_evaluation(int version, double accuracy) {
  return {{"version", version}, {"greedy", accuracy}};
}

TEST(RunPageTest, FallingAccuracyDidNotRise) {
  EXPECT_EQ(
      run_verdict(data_of({bare_evaluation(0, 0.5), bare_evaluation(10, 0.3)})),
      "Held-out accuracy (greedy) did not rise: it fell from 0.500 at version 0 to 0.300 "
      "at version 10 (-0.200).");
}

TEST(RunPageTest, EqualAccuracyDidNotRise) {
  EXPECT_EQ(
      run_verdict(data_of({bare_evaluation(0, 0.25), bare_evaluation(20, 0.25)})),
      "Held-out accuracy (greedy) did not rise: 0.250 at version 0 and at version 20.");
}

TEST(RunPageTest, WithoutPerPromptValuesAnyRiseCounts) {
  EXPECT_EQ(
      run_verdict(data_of({bare_evaluation(0, 0.25), bare_evaluation(20, 0.26)})),
      "Held-out accuracy (greedy) rose from 0.250 at version 0 to 0.260 at version 20 "
      "(+0.010).");
}

TEST(RunPageTest, ARiseWithinTheIntervalIsNotClear) {
  // One prompt of 20 more: +0.05, interval +-t(19) x 0.05 = +-0.105.
  EXPECT_EQ(
      run_verdict(data_of({evaluation(0, 5), evaluation(10, 6)})),
      "Held-out accuracy (greedy) did not clearly rise: 0.250 at version 0, then 0.300 "
      "at "
      "version 10 (+0.050; 95% interval over 20 prompts -0.055 to +0.155, which includes "
      "0).");
}

TEST(RunPageTest, FewerThanTwoEvaluationsFallBackToTheReward) {
  EXPECT_EQ(
      run_verdict(data_of({})),
      "No held-out evaluation finished; real reward went from 0.210 (first 2 steps) to "
      "0.570 (last 2 steps).");
  EXPECT_EQ(
      run_verdict(data_of({evaluation(0, 5)})),
      "Only one held-out evaluation finished (0.250 at version 0); real reward went from "
      "0.210 (first 2 steps) to 0.570 (last 2 steps).");
  EXPECT_EQ(run_verdict(data_of({}, {})),
            "No held-out evaluation finished; no step was trained.");
}

TEST(RunPageTest, TheOtherMetricIsShownWhenTheAskedOneIsMissing) {
  const json d =
      data_of({{{"version", 0}, {"sampled", 0.2}}, {{"version", 5}, {"sampled", 0.4}}});
  EXPECT_EQ(d["heldout_metric"], "sampled");
  EXPECT_EQ(run_verdict(d),
            "Held-out accuracy (sampled) rose from 0.200 at version 0 to 0.400 "
            "at version 5 (+0.200).");
}

TEST(RunPageTest, FactsOfTheStepsAndDecisions) {
  const json d = data_of(testing_run::seq_evals());
  EXPECT_EQ(d["totals"]["steps"], 20);
  EXPECT_DOUBLE_EQ(d["totals"]["samples"].get<double>(), 1280);
  EXPECT_DOUBLE_EQ(d["totals"]["prompts"].get<double>(), 80);
  EXPECT_EQ(d["rounds"], json({0.0, 40.0, 20.0, 0.0, 20.0}));
  // Rounds drawn per step 2 + 2 + 4 = 8: shares 2/8, 2/8, 0, 4/8.
  EXPECT_EQ(d["rounds_samples"], json({0.0, 0.25, 0.25, 0.0, 0.5}));
  EXPECT_DOUBLE_EQ(d["steps"][3]["never_exited_share"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(d["steps"][3]["round1_share"].get<double>(), 0.25);
  EXPECT_DOUBLE_EQ(d["steps"][3]["rounds_mean"].get<double>(), 2.0);
  EXPECT_EQ(d["steps"][3]["step"], 4);  // the policy version after step 3
  EXPECT_DOUBLE_EQ(d["exits"]["fallback_missing_positives"].get<double>(), 20);
  EXPECT_EQ(d["pass_rate_bins"]["samples"][0], 640.0);
  EXPECT_EQ(d["strategy"], "ada-seq");
  // Evaluations in version order, at their steps' samples and seconds.
  ASSERT_EQ(d["evals"].size(), 3u);
  EXPECT_EQ(d["evals"][1]["version"], 10.0);
  EXPECT_EQ(d["evals"][1]["cumulative_samples"], 640.0);
  EXPECT_EQ(d["evals"][1]["elapsed"], 5.0);
  EXPECT_EQ(d["evals"][0]["cumulative_samples"], 0.0);
}

TEST(RunPageTest, ExitSamplesGiveTheNeverExitedShareExactly) {
  std::vector<json> steps = testing_run::seq_steps();
  for (auto& s : steps)  // the never-exited prompt drew 40 of the 64 samples
    s["exit_samples"] = {{"balance", 24}, {"fallback_missing_positives", 40}};
  const json d = data_of({}, steps);
  EXPECT_DOUBLE_EQ(d["never_exited"]["samples_share"].get<double>(), 40.0 / 64);
  EXPECT_DOUBLE_EQ(d["steps"][0]["never_exited_share"].get<double>(), 40.0 / 64);
  // Without them: 1 prompt x 4 rounds of the 8 drawn.
  EXPECT_DOUBLE_EQ(data_of({})["never_exited"]["samples_share"].get<double>(), 0.5);
  EXPECT_NE(run_page_html(d).find("on <b>62.5%</b> of the samples"), std::string::npos);
}

TEST(RunPageTest, EstPageShowsTheAllocationSpread) {
  std::vector<json> steps;
  for (int k = 0; k < 10; ++k) {
    json s = testing_run::seq_step(k);
    s["rounds"] = {0, 4};
    s["exits"] = {{"allocated", 4}};
    s["samples_per_prompt_mean"] = 16.0;
    s["samples_per_prompt_max"] = k < 5 ? 40 : 20;
    steps.push_back(s);
  }
  const std::string html = run_page_html(data_of({}, steps));
  EXPECT_NE(html.find(">ada-est</b>"), std::string::npos);
  EXPECT_NE(
      html.find("Samples per prompt: 16.00 on average; the largest pool of a step: 30.0 "
                "on average, 40 at most."),
      std::string::npos);
  // Bins 0 and 9 of the fixture: 32 and 8 of each step's 64 samples.
  EXPECT_NE(
      html.find("Samples on prompts estimated below 0.1: 50.0%; at 0.9 or above: 12.5%."),
      std::string::npos);
  EXPECT_NE(html.find(">Allocation spread<"), std::string::npos);
  EXPECT_EQ(html.find("Prompts that never exited"), std::string::npos);
}

TEST(RunPageTest, UniformGroupsSayWhichShareOfTheSamplesTaughtNothing) {
  std::vector<json> steps;
  for (int k = 0; k < 4; ++k) {
    json s = testing_run::seq_step(k);
    s["rounds"] = {0, 4};
    s["exits"] = {{"uniform", 4}};
    s["zero_gradient_fraction"] = k < 2 ? 0.25 : 0.75;
    s["samples"] = k < 2 ? 48 : 16;  // weights: (0.25 x 96 + 0.75 x 32) / 128
    steps.push_back(s);
  }
  json d = data_of({}, steps);
  d["config"] = {{"strategy.group_size", "4"}};
  const std::string html = run_page_html(d);
  EXPECT_NE(html.find("grpo draws a fixed group of 4 samples per prompt"),
            std::string::npos);
  EXPECT_NE(html.find("Samples on groups that taught nothing: 37.5%"), std::string::npos);
  // No evaluation: the accuracy chart says so instead of drawing empty axes.
  EXPECT_NE(html.find("No held-out evaluation finished (eval.jsonl has none)"),
            std::string::npos);
  EXPECT_EQ(html.find("Held-out accuracy (none)"), std::string::npos);
}

TEST(RunPageTest, LongRunsDrawAtMostAThousandPointsASeriesEndingAtTheLastStep) {
  std::vector<json> steps;
  for (int k = 0; k < 4999; ++k) steps.push_back(testing_run::seq_step(k));
  const std::string html = run_page_html(data_of({}, steps));
  // Found by hand, not with std::regex: libstdc++'s regex recurses once per character
  // matched, and a 4999-step page overflowed the stack under ASan (CI).
  size_t lines = 0;
  for (size_t at = html.find("<polyline"); at != std::string::npos;
       at = html.find("<polyline", at + 1), ++lines) {
    const size_t tag_end = html.find('>', at);
    const size_t open = html.find(" points=\"", at);
    ASSERT_NE(open, std::string::npos);
    ASSERT_LT(open, tag_end);
    const size_t first = open + std::string(" points=\"").size();
    const std::string pts = html.substr(first, html.find('"', first) - first);
    const size_t n = size_t(std::count(pts.begin(), pts.end(), ','));
    EXPECT_LE(n, 1001u);
    EXPECT_GE(n, 900u);
  }
  EXPECT_GT(lines, 10u);
  // The samples chart's x axis reaches the last step (version 4999).
  EXPECT_NE(html.find(">5k</text>"), std::string::npos);
}

TEST(RunPageTest, TextFromTheRunIsEscaped) {
  json d = data_of(testing_run::seq_evals());
  d["name"] = "<b>&";
  d["config"] = {{"tasks.suite", "<script>"}};
  const std::string html = run_page_html(d);
  EXPECT_NE(html.find("&lt;b&gt;&amp;"), std::string::npos);
  EXPECT_EQ(html.find("<script>"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;"), std::string::npos);
}

TEST(RunPageTest, MissingKeysThrow) {
  json d = data_of(testing_run::seq_evals());
  d.erase("totals");
  EXPECT_ANY_THROW(run_page_html(d));
}

}  // namespace
}  // namespace adarl
