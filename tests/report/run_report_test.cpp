#include "report/run_report.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "report/run_facts.hpp"
#include "report/run_page.hpp"
#include "tests/report/run_fixture.hpp"

namespace adarl {
namespace {

using json = nlohmann::json;

std::string fixture_dir(const std::string& name) {
  return ::testing::TempDir() + "adarl_run_report_" + name;
}

/// The page of the fixture run, drawn the way `adarl run` and `adarl report` draw it.
std::string page_of(const std::string& dir, const run_report_options& o = {}) {
  auto data = run_report_data(dir, o);
  EXPECT_TRUE(data) << (data ? "" : data.err().message);
  if (!data) return "";
  auto out = write_report_page(dir, *data);
  EXPECT_TRUE(out) << (out ? "" : out.err().message);
  std::ifstream f(dir + "/report.html");
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

/// data-key -> text of every `data-key="K">TEXT<` in the page.
std::map<std::string, std::string> cells(const std::string& html) {
  std::map<std::string, std::string> out;
  const std::regex re(R"re(data-key="([^"]*)">([^<]*)<)re");
  for (std::sregex_iterator it(html.begin(), html.end(), re), end; it != end; ++it)
    EXPECT_TRUE(out.emplace((*it)[1], (*it)[2]).second) << "duplicate key " << (*it)[1];
  return out;
}

/// The text of the element with id="verdict".
std::string verdict_of(const std::string& html) {
  std::smatch m;
  if (!std::regex_search(html, m, std::regex(R"re(id="verdict">([^<]*)<)re"))) return "";
  return m[1];
}

/// The <svg> element whose text holds `title`, after `from`.
std::string svg_titled(const std::string& html, const std::string& title,
                       size_t from = 0) {
  const size_t t = html.find(">" + title + "<", from);
  if (t == std::string::npos) return "";
  const size_t at = html.rfind("<svg", t);
  return html.substr(at, html.find("</svg>", at) - at);
}

TEST(RunReportTest, VerdictSaysHowMuchHeldOutAccuracyRoseWithItsInterval) {
  const std::string dir = fixture_dir("verdict");
  testing_run::write_seq_run(dir);
  const std::string html = page_of(dir);
  // 5/20 right at version 0, 12/20 at version 20 (eval.jsonl had them out of order):
  // +0.35, paired over prompts (7 gained, none lost): t(19) x sd/sqrt(20) = 0.229.
  EXPECT_EQ(
      verdict_of(html),
      "Held-out accuracy (greedy) rose from 0.250 at version 0 to 0.600 at version 20 "
      "(+0.350; 95% interval over 20 prompts +0.121 to +0.579).");
  EXPECT_NE(html.find("class=\"verdict rose\""), std::string::npos);
}

TEST(RunReportTest, PageNamesTheRunsSeedAndStrategyNotASelfComparison) {
  const std::string dir = fixture_dir("identity");
  testing_run::write_seq_run(dir);
  const std::string html = page_of(dir);
  const auto c = cells(html);
  EXPECT_EQ(c.at("seed"), "1");
  EXPECT_EQ(c.at("strategy"), "ada-seq");
  EXPECT_EQ(c.at("name"), "fixture");
  EXPECT_EQ(c.at("dir"), dir);
  // What the comparison page said of one run compared to itself.
  for (const char* bad : {"budget of 0 samples", "+0.000", "not reached", "baseline",
                          "seed 0", "id=\"summary\"", "id=\"paired\""})
    EXPECT_EQ(html.find(bad), std::string::npos) << bad;
  // Self-contained: no scripts, nothing fetched.
  for (const char* bad : {"<script", "http://", "https://", "<link", "<img"}) {
    std::string page = html;
    page = std::regex_replace(page, std::regex("http://www.w3.org/2000/svg"), "");
    EXPECT_EQ(page.find(bad), std::string::npos) << bad;
  }
}

TEST(RunReportTest, FactsAddUpTheStepLines) {
  const std::string dir = fixture_dir("facts");
  testing_run::write_seq_run(dir);
  const auto c = cells(page_of(dir));
  EXPECT_EQ(c.at("steps"), "20 steps");
  EXPECT_EQ(c.at("seconds"), "10.0 s");
  EXPECT_EQ(c.at("samples_per_step"), "64");
  // Means of the first and last 2 steps: (0.20 + 0.22) / 2 and (0.56 + 0.58) / 2.
  EXPECT_EQ(c.at("reward"), "0.210 &rarr; 0.570");
  EXPECT_EQ(c.at("zero_grad"), "0.500 &rarr; 0.500");
  EXPECT_EQ(c.at("best"), "0.600");
}

TEST(RunReportTest, SeqDecisionsGiveTheSharesOfSamplesByHowPromptsExited) {
  const std::string dir = fixture_dir("seq");
  testing_run::write_seq_run(dir);
  const std::string html = page_of(dir);
  // Per step 8 rounds drawn: the never-exited prompt drew 4 of them, the two prompts
  // done in round 1 drew 1 each.
  EXPECT_NE(
      html.find("Prompts that never exited: 20 of 80 (25.0%), on <b>50.0%</b> of the "
                "samples."),
      std::string::npos);
  EXPECT_NE(html.find("Prompts that exited in round 1: 40 of 80 (50.0%), on 25.0% of the "
                      "samples."),
            std::string::npos);
  EXPECT_NE(
      html.find("Seq draws rounds of 8 samples for a prompt until its exit rule holds, "
                "for at most 4 rounds"),
      std::string::npos);
  // Rounds table: 4 rounds, 20 prompts, 25.0% of the prompts, 50.0% of the samples.
  EXPECT_NE(
      html.find("<tr><td>4</td><td class=\"num\">20</td><td class=\"num\">25.0%</td>"
                "<td class=\"num\">50.0%</td></tr>"),
      std::string::npos);
}

// The samples on never-exited prompts: exact from exit_samples, else from the rounds
// histogram (they drew the step's most rounds), else at samples_per_prompt_max.
TEST(RunReportTest, NeverExitedSamplesHaveOneEstimate) {
  const json exits = {{"fallback_missing_positives", 2}, {"fallback_missing_negatives", 1},
                      {"balance", 5}};
  json line = {{"samples", 200}, {"samples_per_prompt_max", 40}, {"exits", exits}};
  EXPECT_EQ(never_exited_samples(line), 3 * 40.0);
  // 5 prompts in 1 round, 3 in 3 rounds (the most): 14 rounds, 200 / 14 samples each.
  line["rounds"] = {0, 5, 0, 3};
  EXPECT_NEAR(never_exited_samples(line), 3 * 3 * 200.0 / 14, 1e-9);
  line["exit_samples"] = {{"fallback_missing_positives", 50}, {"fallback_missing_negatives", 21}};
  EXPECT_EQ(never_exited_samples(line), 71.0);
  EXPECT_EQ(never_exited_samples(json{{"samples", 10}}), 0.0);
}

// What the summary `adarl run` ends with reads from the facts (experiments/run_summary):
// the steps that trained nothing, the last tenth's entropy, the scored samples.
TEST(RunReportTest, FactsCountTheStepsThatTrainedNothingAndTheLastTenthsEntropy) {
  std::vector<json> lines;
  for (int k = 0; k < 20; ++k)
    lines.push_back({{"step", k},
                     {"samples", 10},
                     {"real_reward", 0.5},
                     {"entropy", k < 18 ? 1.0 : 0.25},
                     {"exits", {{"skipped", 0}}}});
  lines[2]["nonfinite"] = "loss";
  lines[4]["samples"] = 0;
  lines[4]["exits"]["skipped"] = 3;
  lines[6]["exits"]["skipped"] = 1;  // skipped some, drew others: not empty
  auto f = run_facts(lines, {}, {});
  EXPECT_EQ(f["nonfinite_steps"], 1);
  EXPECT_EQ(f["empty_steps"], 1);
  EXPECT_EQ(f["tenths"]["steps"], 2);
  EXPECT_DOUBLE_EQ(f["tenths"]["entropy_last"].get<double>(), 0.25);
  EXPECT_EQ(f["zero_rewards"]["samples"], 190.0);
  lines[19].erase("entropy");  // a line of the tenth without one: no claim
  f = run_facts(lines, {}, {});
  EXPECT_TRUE(f["tenths"]["entropy_last"].is_null());
  EXPECT_TRUE(run_facts({}, {}, {})["tenths"].is_null());
}

// Each tenth's share of samples without a readable answer and its tokens per completion
// are pooled over its samples; a line without reasons leaves the share unclaimed.
TEST(RunReportTest, FactsPoolTheTenthsFormatFailuresAndCompletionLengths) {
  std::vector<json> lines;
  for (int k = 0; k < 10; ++k)
    lines.push_back({{"step", k},
                     {"samples", k == 0 ? 10 : 30},
                     {"tokens", k == 0 ? 100 : 1200},
                     {"real_reward", 0.5},
                     {"zero_reward_reasons",
                      {{"no_answer", k == 9 ? 6 : 0}, {"too_long", k == 9 ? 3 : 0},
                       {"unparsable", k == 9 ? 3 : 1}, {"wrong_value", 5}}}});
  auto f = run_facts(lines, {}, {});
  EXPECT_EQ(f["tenths"]["steps"], 1);
  EXPECT_DOUBLE_EQ(f["tenths"]["format_failures_first"].get<double>(), 0.1);  // 1 of 10
  EXPECT_DOUBLE_EQ(f["tenths"]["format_failures_last"].get<double>(), 0.4);   // 12 of 30
  EXPECT_DOUBLE_EQ(f["tenths"]["tokens_per_sample_first"].get<double>(), 10.0);
  EXPECT_DOUBLE_EQ(f["tenths"]["tokens_per_sample_last"].get<double>(), 40.0);
  lines[0].erase("zero_reward_reasons");
  lines[9]["samples"] = 0;
  f = run_facts(lines, {}, {});
  EXPECT_TRUE(f["tenths"]["format_failures_first"].is_null());
  EXPECT_TRUE(f["tenths"]["format_failures_last"].is_null());  // drew nothing
  EXPECT_TRUE(f["tenths"]["tokens_per_sample_last"].is_null());
}

// The sums compare.json takes from the facts: the diagnostics' means over the lines that
// have them, what the visits spent, the samples on prompts that never exited.
TEST(RunReportTest, FactsAverageTheDiagnosticsAndAddUpTheVisits) {
  std::vector<json> lines;
  for (int k = 0; k < 4; ++k)
    lines.push_back({{"step", k}, {"samples", 12}, {"real_reward", 0.5}, {"updates", 4}});
  lines[1]["grad_norm"] = 2.0;
  lines[3]["grad_norm"] = 4.0;  // two lines have it: their mean, not over four
  auto f = run_facts(lines, {}, {});
  EXPECT_DOUBLE_EQ(f["diagnostics"]["grad_norm"].get<double>(), 3.0);
  EXPECT_DOUBLE_EQ(f["diagnostics"]["updates"].get<double>(), 4.0);
  EXPECT_TRUE(f["diagnostics"]["clip_fraction"].is_null());
  EXPECT_TRUE(f["visits"]["mixed_share"].is_null());  // no line records visits
  EXPECT_TRUE(f["visits"]["skipped_share"].is_null());
  // Visits (samples, positives): one skipped, one all wrong, one mixed, one all right.
  lines[0]["visits"] = {{"samples", {0, 4, 4}}, {"positives", {0, 0, 2}}};
  lines[2]["visits"] = {{"samples", {4}}, {"positives", {4}}};
  // Fallback exits on a step without a rounds histogram: count x samples_per_prompt_max.
  lines[2]["exits"] = {{"fallback_missing_positives", 2}};
  lines[2]["samples_per_prompt_max"] = 3;
  f = run_facts(lines, {}, {});
  EXPECT_EQ(f["visits"]["drawn"], 3.0);
  EXPECT_EQ(f["visits"]["skipped"], 1.0);
  EXPECT_DOUBLE_EQ(f["visits"]["mixed_share"].get<double>(), 1.0 / 3);
  EXPECT_DOUBLE_EQ(f["visits"]["skipped_share"].get<double>(), 0.25);
  EXPECT_DOUBLE_EQ(f["visits"]["all_wrong_samples_share"].get<double>(), 4.0 / 12);
  EXPECT_DOUBLE_EQ(f["visits"]["all_right_samples_share"].get<double>(), 4.0 / 12);
  EXPECT_DOUBLE_EQ(f["never_exited"]["samples"].get<double>(), 6.0);
  EXPECT_DOUBLE_EQ(f["never_exited"]["samples_share"].get<double>(), 6.0 / 48);
}

TEST(RunReportTest, FactsWeighTheLogprobGapByItsTokensAndSkipUnmeasuredSteps) {
  std::vector<json> lines;
  for (int k = 0; k < 3; ++k) lines.push_back({{"step", k}, {"samples", 8}, {"real_reward", 0.5}});
  auto f = run_facts(lines, {}, {});
  EXPECT_TRUE(f["logprob_gap"].is_null());  // lines without the figure: not measured
  lines[0]["logprob_gap"] = 0.001;
  lines[0]["logprob_gap_tokens"] = 300;
  lines[1]["logprob_gap"] = 0.5;  // 0 tokens: not a measurement
  lines[1]["logprob_gap_tokens"] = 0;
  lines[2]["logprob_gap"] = 0.005;
  lines[2]["logprob_gap_tokens"] = 100;
  f = run_facts(lines, {}, {});
  EXPECT_DOUBLE_EQ(f["logprob_gap"]["mean"].get<double>(), (0.3 + 0.5) / 400);
  EXPECT_DOUBLE_EQ(f["logprob_gap"]["max"].get<double>(), 0.005);
  EXPECT_DOUBLE_EQ(f["logprob_gap"]["tokens"].get<double>(), 400);
}

TEST(RunReportTest, TheEstimatorsReliabilityCurvePoolsTheStepsBins) {
  const std::string dir = fixture_dir("reliability");
  testing_run::write_seq_run(dir);
  // Even steps: 40 samples predicted at 0.05 (2% right) and 20 at 0.55 (60% right);
  // odd steps: 60 samples at 0.08 (4% right). Over the 20 steps, the first tenth has
  // 1,000 samples at a mean prediction of (10 x 40 x 0.05 + 10 x 60 x 0.08) / 1000 =
  // 0.068 and (10 x 40 x 0.02 + 10 x 60 x 0.04) / 1000 = 0.032 right; the sixth 200
  // samples at 0.55, 0.6 right.
  {
    std::ofstream m(dir + "/metrics.jsonl");
    for (int k = 0; k < 20; ++k) {
      json s = testing_run::seq_step(k);
      s["prior_brier"] = 0.1;
      s["reliability"] = k % 2 == 0 ? json::parse("[[0.05, 0.02, 40], [0.55, 0.6, 20]]")
                                    : json::parse("[[0.08, 0.04, 60]]");
      m << s.dump() << "\n";
    }
  }
  auto data = run_report_data(dir, {});
  ASSERT_TRUE(data) << data.err().message;
  const json& r = data->at("reliability");
  ASSERT_EQ(r.size(), 2u) << r.dump();
  EXPECT_EQ(r[0]["bin"], 0);
  EXPECT_NEAR(r[0]["predicted"].get<double>(), 0.068, 1e-12);
  EXPECT_NEAR(r[0]["observed"].get<double>(), 0.032, 1e-12);
  EXPECT_EQ(r[0]["samples"], 1000);
  EXPECT_EQ(r[1]["bin"], 5);
  EXPECT_NEAR(r[1]["observed"].get<double>(), 0.6, 1e-12);
  const std::string html = page_of(dir);
  EXPECT_NE(html.find("<tr><td>0.0 to 0.1</td><td class=\"num\">0.068</td><td "
                      "class=\"num\">0.032</td><td class=\"num\">1,000</td></tr>"),
            std::string::npos);
  const std::string svg = svg_titled(html, "Reliability of the pass-rate prior");
  ASSERT_FALSE(svg.empty());
  EXPECT_NE(svg.find("predicted 0.550: observed 0.600 over 200 samples"), std::string::npos);
  // Without reliability bins (the fixture's plain lines) there is no curve.
  testing_run::write_seq_run(dir);
  EXPECT_EQ(page_of(dir).find("Reliability of the pass-rate prior"), std::string::npos);
}

TEST(RunReportTest, ZeroRewardReasonsHaveCountsAndShares) {
  const std::string dir = fixture_dir("zero");
  testing_run::write_seq_run(dir);
  const std::string html = page_of(dir);
  // 5 a step over 20 steps, of 1280 samples.
  EXPECT_NE(html.find("100 zero rewards, 7.8% of the samples"), std::string::npos);
  EXPECT_NE(html.find("<code>no_answer</code></td><td class=\"num\">60</td>"),
            std::string::npos);
  EXPECT_NE(html.find("60.0%</td>"), std::string::npos);
  EXPECT_NE(html.find("<code>wrong_value</code></td><td class=\"num\">40</td>"),
            std::string::npos);
  // The most frequent reason first.
  EXPECT_LT(html.find("no_answer"), html.find("wrong_value"));
}

TEST(RunReportTest, AccuracyChartHasTheEvaluationsInVersionOrderAndLabelledTicks) {
  const std::string dir = fixture_dir("chart");
  testing_run::write_seq_run(dir);
  const std::string html = page_of(dir);
  const std::string svg = svg_titled(html, "Held-out accuracy (greedy)");
  ASSERT_FALSE(svg.empty());
  std::smatch m;
  ASSERT_TRUE(
      std::regex_search(svg, m, std::regex(R"re(<polyline[^>]* points="([^"]*)")re")));
  std::vector<std::pair<double, double>> p;
  const std::string pts = m[1];
  const std::regex pair(R"re((-?[0-9.]+),(-?[0-9.]+))re");
  for (std::sregex_iterator it(pts.begin(), pts.end(), pair), end; it != end; ++it)
    p.push_back({std::stod((*it)[1]), std::stod((*it)[2])});
  ASSERT_EQ(p.size(), 3u);
  EXPECT_LT(p[0].first, p[1].first);
  EXPECT_LT(p[1].first, p[2].first);
  EXPECT_GT(p[0].second, p[2].second);  // 0.25 below 0.60 (SVG y grows downwards)
  // Steps 0..20 in ticks of 5; accuracy 0..0.6 in ticks of 0.1; both axes titled.
  for (const char* tick :
       {">0</text>", ">5</text>", ">20</text>", ">0.6</text>",
        ">training step (policy version)</text>", ">held-out accuracy</text>"})
    EXPECT_NE(svg.find(tick), std::string::npos) << tick;
  // The block against samples: version 10 is at 640 samples, the axis in samples.
  const size_t samples_block = html.find("class=\"curves grid on-samples\"");
  ASSERT_NE(samples_block, std::string::npos);
  EXPECT_NE(
      svg_titled(html, "cumulative samples", samples_block).find("version 10: 0.300"),
      std::string::npos);
}

TEST(RunReportTest, TargetsSayWhereTheyWereReached) {
  const std::string dir = fixture_dir("targets");
  testing_run::write_seq_run(dir);
  run_report_options o;
  o.target_heldout = 0.3;  // 6/20 at version 10: after 640 samples, 5 s
  o.target_reward = 0.9;   // never
  const auto c = cells(page_of(dir, o));
  EXPECT_EQ(c.at("reach.heldout"), "step 10");
  EXPECT_EQ(c.at("reach.real_reward"), "not reached");
  const std::string html = page_of(dir, o);
  EXPECT_NE(html.find("640 samples, 5.0 s"), std::string::npos);
  EXPECT_NE(html.find(">target 0.300</text>"), std::string::npos);
}

TEST(RunReportTest, WithoutConfigTheSeedIsUnknownAndTheStrategyComesFromTheExits) {
  const std::string dir = fixture_dir("no_config");
  testing_run::write_seq_run(dir, /*with_config=*/false);
  const auto c = cells(page_of(dir));
  EXPECT_EQ(c.at("seed"), "unknown (no config.json)");
  EXPECT_EQ(c.at("strategy"), "ada-seq");
  EXPECT_EQ(c.at("name"), "adarl_run_report_no_config");
}

TEST(RunReportTest, BadFilesAreErrorsNamingThem) {
  const std::string dir = fixture_dir("bad");
  testing_run::write_seq_run(dir);
  std::ofstream(dir + "/config.json")
      << "{\"format\": \"adarl-config-1\", \"values\": {\"seed\": 1}}";
  auto data = run_report_data(dir, {});
  ASSERT_FALSE(data);
  EXPECT_EQ(data.err().message,
            dir + "/config.json: values.seed: expected a string, got number");
  std::filesystem::remove(dir + "/metrics.jsonl");
  data = run_report_data(dir, {});
  ASSERT_FALSE(data);
  EXPECT_EQ(data.err().message, dir + "/metrics.jsonl: cannot open");
}

TEST(RunReportTest, ComparisonDataStillGetsTheComparisonPage) {
  EXPECT_FALSE(is_run_data(json{{"title", "x"}, {"strategies", json::array()}}));
  EXPECT_FALSE(is_run_data(json{{"kind", 3}}));
  const std::string dir = fixture_dir("kind");
  testing_run::write_seq_run(dir);
  auto data = run_report_data(dir, {});
  ASSERT_TRUE(data);
  EXPECT_TRUE(is_run_data(*data));
  // A compare.json the page cannot draw is the comparison page's error, not the run's.
  auto out = write_report_page(dir, json{{"title", "x"}});
  ASSERT_FALSE(out);
  EXPECT_EQ(out.err().message, dir + ": baseline: missing");
}

}  // namespace
}  // namespace adarl

namespace adarl {
namespace {

// Issue 38: a torn last line is left out with a warning (it exited 0 without a word),
// and steps whose updates were skipped as non-finite are counted in the verdict.
TEST(RunReportTest, ATornLineIsWarnedAndNonFiniteStepsAreCounted) {
  const std::string dir = ::testing::TempDir() + "adarl_run_report_torn";
  testing_run::write_seq_run(dir);
  auto clean = run_report_data(dir, {});
  ASSERT_TRUE(clean) << clean.err().message;
  EXPECT_FALSE(clean->contains("warnings"));
  EXPECT_EQ(run_verdict(*clean).find("non-finite"), std::string::npos);
  {
    std::ofstream m(dir + "/metrics.jsonl");
    for (int k = 0; k < 20; ++k) {
      nlohmann::json s = testing_run::seq_step(k);
      if (k == 4 || k == 9) s["nonfinite"] = "loss";
      m << s.dump() << "\n";
    }
    m << "{\"step\": 20, \"real_rew";
  }
  auto data = run_report_data(dir, {});
  ASSERT_TRUE(data) << data.err().message;
  ASSERT_TRUE(data->contains("warnings"));
  EXPECT_NE((*data)["warnings"][0].get<std::string>().find("metrics.jsonl:21: the last line "
                                                            "is torn"),
            std::string::npos)
      << (*data)["warnings"].dump();
  EXPECT_EQ((*data)["nonfinite_steps"], 2);
  EXPECT_NE(run_verdict(*data).find("2 of its steps had a non-finite loss or gradient"),
            std::string::npos)
      << run_verdict(*data);
}

}  // namespace
}  // namespace adarl
