// run_summary: the lines `adarl run` ends with, from the facts of its metrics and
// evaluation lines (report/run_facts.hpp), as its report page has them.
#include "experiments/run_summary.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "report/run_facts.hpp"
#include "report/run_report.hpp"

namespace adarl {
namespace {

/// The summary of a run with these lines, through the run's one reduction.
std::string summary_of(const std::vector<nlohmann::json>& steps,
                       const std::vector<nlohmann::json>& evals,
                       const run_summary_input& in) {
  return run_summary(run_facts(steps, evals, run_report_options{}), in);
}

std::vector<nlohmann::json> steps(size_t n) {
  std::vector<nlohmann::json> out;
  for (size_t i = 0; i < n; ++i)
    out.push_back({{"step", i},
                   {"real_reward", double(i) / 100},
                   {"cumulative_samples", 10 * (i + 1)},
                   {"cumulative_tokens", 200 * (i + 1)},
                   {"elapsed", 0.5 * double(i + 1)}});
  return out;
}

TEST(RunSummaryTest, SaysRewardAccuracySpendingAndFiles) {
  run_summary_input in;
  const auto evals = std::vector<nlohmann::json>{
      {{"version", 25}, {"greedy", 0.25}},
      {{"version", 0}, {"greedy", 0.125}},
      {{"version", 10}, {"greedy", 0.5}, {"sampled", 0.9}}};
  in.wall_seconds = 86;
  in.out = "runs/x";
  in.files = {"report.html", "adarl.log"};
  // A tenth of 25 steps is 2 (rounded down, as on the run page).
  EXPECT_EQ(summary_of(steps(25), evals, in),
            "  real_reward  0.005 (first 2 steps) -> 0.235 (last 2 steps)\n"
            "  held-out     greedy 0.125 (version 0) first, 0.500 (version 10) best, "
            "0.250 (version 25) last\n"
            "  spent        250 samples, 5000 tokens; 12.5 s of RL, 1m26s in all\n"
            "  files        runs/x: report.html adarl.log");
}

TEST(RunSummaryTest, SampledAccuracyWhenThereIsNoGreedyAndTheLatestLineOfAVersion) {
  const auto text = summary_of(steps(1),
                               {{{"version", 0}, {"sampled", 0.2}},
                                {{"version", 1}, {"sampled", 0.1}},
                                {{"version", 1}, {"sampled", 0.3}}},  // again, resumed
                               {});
  EXPECT_NE(text.find("real_reward  0.000 (first step) -> 0.000 (last step)\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("held-out     sampled 0.200 (version 0) first, 0.300 (version 1) best, "
                      "0.300 (version 1) last\n"),
            std::string::npos)
      << text;
}

TEST(RunSummaryTest, ARunWithoutStepsOrEvaluationsSaysSo) {
  run_summary_input in;
  in.wall_seconds = 3;
  in.out = "o";
  const std::string none =
      "  real_reward  no step trained\n  held-out     no evaluation\n"
      "  spent        3.0 s in all\n  files        o: (none)";
  EXPECT_EQ(summary_of({}, {}, in), none);
  EXPECT_EQ(run_summary(nlohmann::json(), in), none);  // no facts could be read
  // A run stopped before its first step, evaluated at version 0.
  EXPECT_NE(summary_of({}, {{{"version", 0}, {"greedy", 0.5}}}, in)
                .find("held-out     greedy 0.500 (version 0) first"),
            std::string::npos);
}

TEST(RunSummaryTest, ABrokenSetUpReasonAboveItsShareIsNamedAndABelowOneIsNot) {
  run_summary_input in;
  in.out = "o";
  in.alarm.share = 0.05;
  // 100 samples per step: 30 bad_reference zeros in all (10%), 2 bad_tests (1%),
  // 50 wrong answers (not a broken set-up).
  std::vector<nlohmann::json> lines;
  for (int i = 0; i < 3; ++i)
    lines.push_back({{"step", i},
                        {"samples", 100},
                        {"zero_reward_reasons",
                         {{"bad_reference", 10}, {"wrong", 17}, {"bad_tests", i == 0 ? 2 : 0}}}});
  const auto text = summary_of(lines, {}, in);
  EXPECT_NE(text.find("\n  warning      30 of 300 rewards (10.0%) were 0 with reason "
                      "bad_reference, above metrics.alarm_share 5.0%"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("bad_tests"), std::string::npos) << text;
  EXPECT_EQ(text.find("wrong"), std::string::npos) << text;
  in.alarm.share = 0.2;  // the same run under a looser threshold: no warning
  EXPECT_EQ(summary_of(lines, {}, in).find("warning"), std::string::npos);
}

// Issue 38: skipped non-finite updates, steps that drew nothing and a collapsed policy
// are said at the end of a run, never left to metrics.jsonl alone.
TEST(RunSummaryTest, NonFiniteStepsEmptyStepsAndACollapseAreWarned) {
  const run_summary_input in;
  auto lines = steps(20);
  const auto text_of = [&] { return summary_of(lines, {}, in); };
  for (auto& s : lines) {
    s["samples"] = 40;
    s["entropy"] = 0.8;
    s["exits"] = {{"skipped", 0}};
  }
  EXPECT_EQ(text_of().find("warning"), std::string::npos) << text_of();
  lines[3]["nonfinite"] = "loss";
  lines[7]["nonfinite"] = "gradient norm";
  lines[5]["samples"] = 0;
  lines[5]["exits"]["skipped"] = 8;
  auto text = text_of();
  EXPECT_NE(text.find("warning      2 of 20 steps had a non-finite loss or gradient"),
            std::string::npos) << text;
  EXPECT_NE(text.find("warning      1 of 20 steps drew no sample"), std::string::npos) << text;
  EXPECT_EQ(text.find("collapsed"), std::string::npos) << text;
  // The last tenth (2 steps): entropy near 0 and no reward.
  for (size_t i = 18; i < 20; ++i) {
    lines[i]["entropy"] = 0.001;
    lines[i]["real_reward"] = 0.0;
  }
  text = text_of();
  EXPECT_NE(text.find("warning      the policy collapsed: over the last 2 steps its entropy "
                      "is 0.0010"),
            std::string::npos) << text;
  // Reward left: not a collapse.
  lines[19]["real_reward"] = 0.25;
  EXPECT_EQ(text_of().find("collapsed"), std::string::npos);
}

// Issue 36: the reasoning probe at lr 5e-4 lost its #### line (completions ran to the
// token cap, most rewards 0 with no_answer or unparsable) while its summary said nothing.
TEST(RunSummaryTest, ALostAnswerFormatIsWarned) {
  const run_summary_input in;
  auto lines = steps(20);
  for (auto& s : lines) {
    s["samples"] = 48;
    s["tokens"] = 48 * 29;
    s["zero_reward_reasons"] = {{"wrong_value", 24}, {"no_answer", 2}};
  }
  const auto text_of = [&] { return summary_of(lines, {}, in); };
  EXPECT_EQ(text_of().find("answer format"), std::string::npos) << text_of();
  for (size_t i = 18; i < 20; ++i) {  // the last tenth: 45 of 48 without an answer
    lines[i]["tokens"] = 48 * 55;
    lines[i]["zero_reward_reasons"] = {{"no_answer", 32}, {"unparsable", 13}, {"wrong_value", 3}};
  }
  auto text = text_of();
  EXPECT_NE(text.find("warning      the completions lost their answer format: 93.8% of the "
                      "samples of the last 2 steps scored 0 without a readable answer"),
            std::string::npos) << text;
  EXPECT_NE(text.find("against 4.2% of the first 2 steps; completions went from 29.0 to 55.0 "
                      "tokens"),
            std::string::npos) << text;
  // As many format failures from the start: the task's, not a change of the policy.
  for (size_t i = 0; i < 2; ++i)
    lines[i]["zero_reward_reasons"] = {{"no_answer", 40}, {"wrong_value", 3}};
  EXPECT_EQ(text_of().find("answer format"), std::string::npos) << text_of();
  // Lines without reasons (an older file): no claim either way.
  for (size_t i = 0; i < 2; ++i) lines[i].erase("zero_reward_reasons");
  EXPECT_EQ(text_of().find("answer format"), std::string::npos) << text_of();
}

TEST(RunSummaryTest, ALogprobGapAboveTheToleranceIsWarned) {
  run_summary_input in;
  in.logprob_tolerance = 0.05;
  auto lines = steps(4);
  const auto text_of = [&] { return summary_of(lines, {}, in); };
  EXPECT_EQ(text_of().find("log-probs differ"), std::string::npos);  // not measured
  lines[0]["logprob_gap"] = 0.01;
  lines[0]["logprob_gap_tokens"] = 300;
  lines[2]["logprob_gap"] = 0.2;
  lines[2]["logprob_gap_tokens"] = 100;
  lines[3]["logprob_gap"] = 9.0;  // not measured: its figure is not read
  lines[3]["logprob_gap_tokens"] = 0;
  const auto text = text_of();
  EXPECT_NE(text.find("warning      the generators' log-probs differ from the learner's: "
                      "0.0575 nats per token on average, 0.2000 in the worst step"),
            std::string::npos)
      << text;
  lines[2]["logprob_gap"] = 0.04;  // every step within the tolerance
  EXPECT_EQ(text_of().find("log-probs differ"), std::string::npos) << text_of();
  in.logprob_tolerance = 0.03;
  EXPECT_NE(text_of().find("log-probs differ"), std::string::npos);
  in.logprob_tolerance = 0;  // off
  EXPECT_EQ(text_of().find("log-probs differ"), std::string::npos);
}

TEST(RunSummaryTest, DurationsReadNaturally) {
  EXPECT_EQ(duration_text(0.04), "0.0 s");
  EXPECT_EQ(duration_text(59.94), "59.9 s");
  EXPECT_EQ(duration_text(60), "1m00s");
  EXPECT_EQ(duration_text(3599.4), "59m59s");
  EXPECT_EQ(duration_text(7380), "2h03m");
  EXPECT_EQ(duration_text(-1), "0.0 s");
}

}  // namespace
}  // namespace adarl
