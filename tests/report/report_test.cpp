#include "report/report.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <stdexcept>
#include <string>
#include <vector>

namespace adarl {
namespace {

using json = nlohmann::json;

const std::string ada = "ada <&> est";                // A name that needs escaping.
const std::string ada_key = "ada &lt;&amp;&gt; est";  // How it reads in the page.

json reach(json median, json min, json max, int reached, int runs) {
  return {{"median", median},
          {"min", min},
          {"max", max},
          {"reached", reached},
          {"runs", runs}};
}

json stat(json median, json min, json max) {
  return {{"median", median}, {"min", min}, {"max", max}};
}

/// A run: 10 steps of 64 samples, evals every 160 samples with the given accuracies.
json run(int seed, const std::vector<double>& accuracy, json to_heldout, json to_reward,
         std::vector<int> bin_prompts, std::vector<int> bin_samples) {
  json steps = json::array(), evals = json::array();
  for (int k = 0; k < 10; ++k)
    steps.push_back({{"step", k},
                     {"cumulative_samples", 64 * (k + 1)},
                     {"cumulative_tokens", 1500 * (k + 1)},
                     {"real_reward", 0.3 + 0.03 * k},
                     {"zero_gradient_fraction", 0.5 - 0.02 * k},
                     {"samples_per_prompt_mean", 4.0}});
  for (size_t v = 0; v < accuracy.size(); ++v)
    evals.push_back({{"version", v},
                     {"cumulative_samples", 160 * v},
                     {"cumulative_tokens", 3750 * v},
                     {"accuracy", accuracy[v]}});
  return {{"seed", seed},
          {"dir", "runs/compare/seed-" + std::to_string(seed)},
          {"steps", steps},
          {"evals", evals},
          {"samples_to_heldout", to_heldout},
          {"tokens_to_heldout",
           to_heldout.is_null() ? json() : json(25 * to_heldout.get<int>())},
          {"samples_to_reward", to_reward},
          {"tokens_to_reward",
           to_reward.is_null() ? json() : json(25 * to_reward.get<int>())},
          {"final_accuracy", accuracy.back()},
          {"bucket_accuracy", {0.0, 0.2, nullptr, 0.9}},
          {"pass_rate_bins", {{"prompts", bin_prompts}, {"samples", bin_samples}}}};
}

/// Two strategies x two runs; seed 4 of `ada` never reaches either target.
json fixture() {
  json grpo = {{"name", "grpo-n4"},
               {"runs",
                {run(1, {0.25, 0.30, 0.35, 0.41, 0.43}, 480, 384,
                     {0, 2, 3, 0, 0, 0, 0, 0, 0, 5}, {0, 8, 12, 0, 0, 0, 0, 0, 0, 20}),
                 run(2, {0.24, 0.28, 0.33, 0.40, 0.42}, 480, 448,
                     {0, 2, 1, 0, 0, 0, 0, 0, 0, 5}, {0, 8, 4, 0, 0, 0, 0, 0, 0, 20})}},
               {"summary",
                {{"samples_to_heldout", reach(480, 480, 480, 2, 2)},
                 {"tokens_to_heldout", reach(12000, 11500, 12500, 2, 2)},
                 {"samples_to_reward", reach(416, 384, 448, 2, 2)},
                 {"tokens_to_reward", reach(10400, 9600, 11200, 2, 2)},
                 {"ratio_heldout_samples", 1.0},
                 {"ratio_heldout_tokens", 1.0},
                 {"ratio_reward_samples", 1.0},
                 {"ratio_reward_tokens", 1.0},
                 {"final_accuracy", stat(0.425, 0.42, 0.43)},
                 {"bucket_accuracy",
                  {stat(0.0, 0.0, 0.0), stat(0.2, 0.1, 0.3), stat(0.5, 0.4, 0.6),
                   stat(0.9, 0.85, 0.95)}}}}};
  json est = {
      {"name", ada},
      {"runs",
       {run(3, {0.25, 0.36, 0.41, 0.44}, 240, 320, {1, 1, 0, 0, 0, 0, 0, 0, 0, 0},
            {16, 8, 0, 0, 0, 0, 0, 0, 0, 0}),
        run(4, {0.20, 0.25, 0.30, 0.33}, nullptr, nullptr, {3, 0, 0, 0, 0, 0, 0, 0, 0, 0},
            {32, 0, 0, 0, 0, 0, 0, 0, 0, 0})}},
      {"summary",
       {{"samples_to_heldout", reach(240, 240, 240, 1, 2)},
        {"tokens_to_heldout", reach(6000, 6000, 6000, 1, 2)},
        {"samples_to_reward", reach(nullptr, nullptr, nullptr, 0, 2)},
        {"tokens_to_reward", reach(nullptr, nullptr, nullptr, 0, 2)},
        {"ratio_heldout_samples", 2.0},
        {"ratio_heldout_tokens", 2.0},
        {"ratio_reward_samples", nullptr},
        {"ratio_reward_tokens", nullptr},
        {"final_accuracy", stat(0.385, 0.33, 0.44)},
        {"bucket_accuracy",
         {nullptr, stat(0.25, 0.2, 0.3), stat(0.6, 0.5, 0.7), stat(0.95, 0.9, 1.0)}}}}};
  return {{"title", "adarl compare: configs/compare.yaml"},
          {"baseline", "grpo-n4"},
          {"budget_samples", 640},
          {"targets", {{"heldout", 0.40}, {"real_reward", 0.50}}},
          {"heldout_metric", "greedy"},
          {"buckets",
           {{"labels", {"0", "(0, 0.2]", "(0.2, 0.5]", "(0.5, 1]"}},
            {"prompts", {30, 40, 30, 28}}}},
          {"pass_rate_bins", 10},
          {"strategies", {grpo, est}}};
}

/// data-key -> text of every `data-key="K">TEXT<` in the page; a key twice is a failure.
std::map<std::string, std::string> cells(const std::string& html) {
  std::map<std::string, std::string> out;
  const std::regex re(R"re(data-key="([^"]*)">([^<]*)<)re");
  for (std::sregex_iterator it(html.begin(), html.end(), re), end; it != end; ++it)
    EXPECT_TRUE(out.emplace((*it)[1], (*it)[2]).second) << "duplicate key " << (*it)[1];
  return out;
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++n;
  return n;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return s;
}

/// The i-th <svg>...</svg> element of a page.
std::string svg_at(const std::string& html, size_t i) {
  size_t at = html.find("<svg");
  for (size_t k = 0; k < i && at != std::string::npos; ++k)
    at = html.find("<svg", at + 1);
  if (at == std::string::npos) return "";
  return html.substr(at, html.find("</svg>", at) - at);
}

/// The <svg> element whose text holds `title` ("" when none does).
std::string svg_titled(const std::string& html, const std::string& title) {
  const size_t t = html.find(title);
  if (t == std::string::npos) return "";
  const size_t at = html.rfind("<svg", t);
  if (at == std::string::npos) return "";
  return html.substr(at, html.find("</svg>", at) - at);
}

/// The curves block of one x axis (`<div class="curves on-AXIS"` to its end).
std::string axis_block(const std::string& html, const std::string& axis) {
  const size_t at = html.find("<div class=\"curves on-" + axis + "\"");
  if (at == std::string::npos) return "";
  const size_t end = html.find("</figure>\n</div>", at);
  return html.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

struct xy {
  double x, y;
};

/// The points of every polyline, in order.
std::vector<std::vector<xy>> polylines(const std::string& svg) {
  std::vector<std::vector<xy>> out;
  const std::regex re(R"re(<polyline[^>]* points="([^"]*)")re");
  const std::regex pair(R"re((-?[0-9.]+),(-?[0-9.]+))re");
  for (std::sregex_iterator it(svg.begin(), svg.end(), re), end; it != end; ++it) {
    const std::string pts = (*it)[1];
    out.emplace_back();
    for (std::sregex_iterator p(pts.begin(), pts.end(), pair); p != end; ++p)
      out.back().push_back({std::stod((*p)[1]), std::stod((*p)[2])});
  }
  return out;
}

std::string error_of(const json& j) {
  try {
    report_html(j);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "no error";
}

TEST(ReportTest, SummaryCellsShowTheFormattedJsonNumbers) {
  const auto c = cells(report_html(fixture()));
  EXPECT_EQ(c.at("grpo-n4.samples_to_heldout.median"), "480");
  EXPECT_EQ(c.at("grpo-n4.samples_to_heldout.reached"), "2/2");
  EXPECT_EQ(c.at("grpo-n4.tokens_to_heldout.min"), "11500");
  EXPECT_EQ(c.at("grpo-n4.tokens_to_heldout.max"), "12500");
  EXPECT_EQ(c.at("grpo-n4.samples_to_reward.median"), "416");
  EXPECT_EQ(c.at("grpo-n4.ratio_heldout_samples"), "1.00");
  EXPECT_EQ(c.at("grpo-n4.final_accuracy.median"), "0.425");
  EXPECT_EQ(c.at("grpo-n4.final_accuracy.min"), "0.420");
  EXPECT_EQ(c.at(ada_key + ".samples_to_heldout.median"), "240");
  EXPECT_EQ(c.at(ada_key + ".samples_to_heldout.reached"), "1/2");
  EXPECT_EQ(c.at(ada_key + ".ratio_heldout_samples"), "2.00");
  EXPECT_EQ(c.at(ada_key + ".tokens_to_heldout.median"), "6000");
  EXPECT_EQ(c.at(ada_key + ".ratio_heldout_tokens"), "2.00");
  EXPECT_EQ(c.at(ada_key + ".final_accuracy.max"), "0.440");
  EXPECT_EQ(c.at(ada_key + ".runs.1.seed"), "4");
  EXPECT_EQ(c.at(ada_key + ".runs.0.final_accuracy"), "0.440");
}

TEST(ReportTest, NullsReadNotReachedOrDash) {
  const auto c = cells(report_html(fixture()));
  EXPECT_EQ(c.at(ada_key + ".samples_to_reward.median"), "not reached");
  EXPECT_EQ(c.at(ada_key + ".samples_to_reward.min"), "-");
  EXPECT_EQ(c.at(ada_key + ".samples_to_reward.reached"), "0/2");
  EXPECT_EQ(c.at(ada_key + ".ratio_reward_samples"), "-");
  EXPECT_EQ(c.at(ada_key + ".runs.1.samples_to_heldout"), "not reached");
  EXPECT_EQ(c.at(ada_key + ".runs.0.samples_to_heldout"), "240");
  EXPECT_EQ(c.at(ada_key + ".bucket_accuracy.0"), "-");
}

TEST(ReportTest, BucketTableShowsMediansAndPromptCounts) {
  const std::string html = report_html(fixture());
  const auto c = cells(html);
  EXPECT_EQ(c.at("grpo-n4.bucket_accuracy.0"), "0.000");
  EXPECT_EQ(c.at("grpo-n4.bucket_accuracy.2"), "0.500");
  EXPECT_EQ(c.at(ada_key + ".bucket_accuracy.3"), "0.950");
  EXPECT_EQ(c.count("grpo-n4.bucket_accuracy.4"), 0u);
  const auto table = html.substr(html.find("<table id=\"buckets\">"));
  EXPECT_NE(table.find("(0.2, 0.5]<br><small>30 prompts"), std::string::npos);
  EXPECT_NE(table.find("(0, 0.2]<br><small>40 prompts"), std::string::npos);
}

TEST(ReportTest, NamesAndTitleAreEscaped) {
  json j = fixture();
  j["title"] = "compare <script>alert(1)</script>";
  j["buckets"]["labels"][0] = "<0.1";
  const std::string html = report_html(j);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_NE(html.find("compare &lt;script&gt;alert(1)&lt;/script&gt;"),
            std::string::npos);
  EXPECT_EQ(html.find(ada), std::string::npos);
  EXPECT_NE(html.find("<td>" + ada_key + "</td>"), std::string::npos);
  EXPECT_NE(html.find(">&lt;0.1<br>"), std::string::npos);
  EXPECT_NE(accuracy_svg(j).find(">" + ada_key + "</text>"), std::string::npos);
}

TEST(ReportTest, PageHasFourChartsAndNothingExternal) {
  const std::string html = report_html(fixture());
  if (const char* file = std::getenv("ADARL_REPORT_SAMPLE")) std::ofstream(file) << html;
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  // Held-out accuracy and real reward against each of 4 axes, zero-gradient fraction,
  // samples per prompt.
  EXPECT_EQ(count(html, "<svg"), 10u);
  EXPECT_EQ(count(html, "</svg>"), 10u);
  // A target line on the accuracy and the reward chart of each of the 4 axes (an axis
  // the fixture lacks, e.g. seconds, still draws its frame and target), none elsewhere.
  EXPECT_EQ(count(html, "stroke-dasharray"), 8u);
  EXPECT_EQ(count(svg_titled(html, "Zero-gradient fraction per step"), "stroke-dasharray"), 0u);
  EXPECT_NE(html.find("<table id=\"summary\">"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find(" src="), std::string::npos);
  EXPECT_EQ(html.find(" href="), std::string::npos);
  const std::string text = lower(html);
  EXPECT_EQ(text.find("nan"), std::string::npos);
  EXPECT_EQ(text.find("inf"), std::string::npos);
  // The explanation names budget, targets and baseline.
  EXPECT_NE(html.find("budget of 640 samples"), std::string::npos);
  EXPECT_NE(
      html.find("Target held-out accuracy (greedy): 0.400; target real reward: 0.500."),
      std::string::npos);
  EXPECT_NE(html.find("The baseline is grpo-n4"), std::string::npos);
}

TEST(ReportTest, DegenerateSeriesGiveFiniteCoordinates) {
  json j = fixture();
  auto& runs = j["strategies"][0]["runs"];
  runs[0]["evals"] = json::array({json{{"cumulative_samples", 0}, {"accuracy", 0.3}}});
  runs[0]["steps"] = json::array();
  for (auto& s : runs[1]["steps"]) s["real_reward"] = 0.5;  // All equal, also the target.
  for (auto& s : runs[1]["steps"]) s["step"] = 3;           // One x value.
  runs[1]["evals"][2]["accuracy"] = std::nan("");           // Non-finite: left out.
  for (auto& r : j["strategies"][1]["runs"]) {
    r["evals"] = json::array();
    r["steps"] = json::array();
  }
  for (auto& s : j["strategies"])
    for (auto& r : s["runs"]) r["pass_rate_bins"]["prompts"] = std::vector<int>(10, 0);
  const std::string html = report_html(j);
  const std::string text = lower(html);
  EXPECT_EQ(text.find("nan"), std::string::npos);
  EXPECT_EQ(text.find("inf"), std::string::npos);
  EXPECT_EQ(count(html, "<svg"), 10u);
  EXPECT_EQ(count(svg_titled(html, "Samples per prompt against estimated pass rate"),
                  ">no data</text>"),
            1u);  // Every bin empty.
  // One x value (zero-gradient chart) or one y value (reward = target) still spans the
  // plot: every point lies inside the frame.
  for (size_t i = 0; i < 3; ++i) {
    const std::string svg = svg_at(html, i);
    std::smatch m;
    ASSERT_TRUE(std::regex_search(
        svg, m,
        std::regex(
            R"re(<rect x="([0-9.]+)" y="([0-9.]+)" width="([0-9.]+)" height="([0-9.]+)" fill="none")re")));
    const double x0 = std::stod(m[1]), y0 = std::stod(m[2]);
    const double x1 = x0 + std::stod(m[3]), y1 = y0 + std::stod(m[4]);
    for (const auto& l : polylines(svg)) {
      for (const auto& p : l) {
        EXPECT_TRUE(p.x >= x0 && p.x <= x1 && p.y >= y0 && p.y <= y1)
            << "chart " << i << ": " << p.x << "," << p.y;
      }
    }
  }
  const auto lines = polylines(accuracy_svg(j));
  ASSERT_EQ(lines.size(), 2u);  // The runs without evals draw nothing.
  EXPECT_EQ(lines[0].size(), 1u);
  EXPECT_EQ(lines[1].size(), 4u);  // Five evals, one of them NaN.
  EXPECT_NE(accuracy_svg(j).find("<circle"), std::string::npos);  // The lone point.
}

TEST(ReportTest, AccuracySvgIsStandaloneWithAPolylinePerRun) {
  const std::string svg = accuracy_svg(fixture());
  EXPECT_EQ(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0), 0u);
  EXPECT_EQ(svg.substr(svg.size() - 7), "</svg>\n");
  EXPECT_EQ(count(svg, "<svg"), 1u);
  EXPECT_EQ(count(svg, "<polyline"), 4u);
  EXPECT_NE(svg.find("<title>grpo-n4 seed 2</title>"), std::string::npos);
  EXPECT_NE(svg.find(">target 0.400</text>"), std::string::npos);
  EXPECT_EQ(lower(svg).find("nan"), std::string::npos);
  // The page's first chart is the same plot.
  EXPECT_NE(report_html(fixture()).find(svg), std::string::npos);
}

TEST(ReportTest, AccuracyCoordinatesFollowTheDataInsideTheViewBox) {
  const std::string svg = accuracy_svg(fixture());
  std::smatch m;
  ASSERT_TRUE(
      std::regex_search(svg, m, std::regex(R"re(viewBox="0 0 ([0-9.]+) ([0-9.]+)")re")));
  const double width = std::stod(m[1]), height = std::stod(m[2]);
  const auto lines = polylines(svg);
  ASSERT_EQ(lines.size(), 4u);
  for (const auto& l : lines)
    for (const auto& p : l) {
      EXPECT_GT(p.x, 0);
      EXPECT_LT(p.x, width);
      EXPECT_GT(p.y, 0);
      EXPECT_LT(p.y, height);
    }
  // Seed 1: accuracy rises with samples, so x grows and y (downwards) falls.
  const auto& seed1 = lines[0];
  ASSERT_EQ(seed1.size(), 5u);
  for (size_t i = 1; i < seed1.size(); ++i) {
    EXPECT_GT(seed1[i].x, seed1[i - 1].x);
    EXPECT_LT(seed1[i].y, seed1[i - 1].y);
  }
  // The dashed target (0.40) lies between the evals at 0.35 and 0.41.
  ASSERT_TRUE(std::regex_search(
      svg, m,
      std::regex(R"re(<line x1="[0-9.]+" y1="([0-9.]+)"[^>]*stroke-dasharray)re")));
  const double target_y = std::stod(m[1]);
  EXPECT_LT(target_y, seed1[2].y);
  EXPECT_GT(target_y, seed1[3].y);
}

TEST(ReportTest, RealRewardIsATrailingMeanOverFiveSteps) {
  json j = fixture();
  auto& steps = j["strategies"][0]["runs"][0]["steps"];
  steps = json::array();
  for (int k = 0; k < 11; ++k)
    steps.push_back({{"step", k},
                     {"cumulative_samples", 64 * (k + 1)},
                     {"real_reward", k < 5 ? 0.0 : 1.0},
                     {"zero_gradient_fraction", 0.1}});
  const auto lines =
      polylines(svg_titled(report_html(j), "Real reward (mean of 5 steps) against samples"));
  ASSERT_FALSE(lines.empty());
  const auto& r = lines[0];
  ASSERT_EQ(r.size(), 11u);
  // Means 0 (x5), 0.2, 0.4, 0.6, 0.8, 1, 1: equal steps up, then flat.
  for (size_t i = 1; i < 5; ++i) EXPECT_NEAR(r[i].y, r[0].y, 0.05);
  const double rise = r[4].y - r[5].y;
  EXPECT_GT(rise, 1.0);
  for (size_t i = 6; i <= 9; ++i) EXPECT_NEAR(r[i - 1].y - r[i].y, rise, 0.15);
  EXPECT_NEAR(r[10].y, r[9].y, 0.05);
}

TEST(ReportTest, SamplesPerPromptPoolsRunsAndSkipsEmptyBins) {
  const std::string svg =
      svg_titled(report_html(fixture()), "Samples per prompt against estimated pass rate");
  const auto lines = polylines(svg);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].size(), 3u);  // grpo-n4: bins 1, 2 and 9.
  EXPECT_EQ(lines[1].size(), 2u);  // ada: bins 0 and 1.
  // grpo-n4, bin 2: (12 + 4) samples over (3 + 1) prompts.
  EXPECT_NE(svg.find("grpo-n4: pass rate 0.20-0.30, 4.00 samples per prompt (4 prompts)"),
            std::string::npos);
  // ada, bin 0: (16 + 32) / (1 + 3), not the mean of the runs' means (16 and 10.67).
  EXPECT_NE(
      svg.find(ada_key + ": pass rate 0.00-0.10, 12.00 samples per prompt (4 prompts)"),
      std::string::npos);
  // x is the bin center: bin 9 (0.95) right of bin 2 (0.25).
  EXPECT_GT(lines[0][2].x, lines[0][1].x);
}

TEST(ReportTest, NullTargetsDrawNoTargetLine) {
  json j = fixture();
  j["targets"]["heldout"] = nullptr;
  j["targets"]["real_reward"] = nullptr;
  const std::string html = report_html(j);
  EXPECT_EQ(html.find("stroke-dasharray"), std::string::npos);
  EXPECT_EQ(html.find(">target "), std::string::npos);
  EXPECT_NE(html.find("<th>samples to held-out (no target)"), std::string::npos);
  EXPECT_NE(
      html.find(
          "Target held-out accuracy (greedy): none set; target real reward: none set."),
      std::string::npos);
  EXPECT_EQ(count(html, "<svg"), 10u);
}

TEST(ReportTest, NullMetricValuesAreLeftOutOfCurves) {
  json j = fixture();
  j["strategies"][0]["runs"][0]["evals"][1]["accuracy"] = nullptr;
  j["strategies"][0]["runs"][0]["final_accuracy"] = nullptr;
  const auto lines = polylines(accuracy_svg(j));
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[0].size(), 4u);
  EXPECT_EQ(cells(report_html(j)).at("grpo-n4.runs.0.final_accuracy"), "-");
}

// The reader picks the x axis of the curves: four radio buttons, one block of charts per
// axis, CSS that shows the block of the checked button; steps first in the equal-steps
// protocol, samples otherwise.
TEST(ReportTest, CurvesCanBeReadAgainstStepsSamplesTokensOrSeconds) {
  json j = fixture();
  std::string html = report_html(j);
  for (const std::string axis : {"steps", "samples", "tokens", "seconds"}) {
    EXPECT_EQ(count(html, "<input type=\"radio\" name=\"x-axis\" id=\"x-" + axis + "\""), 1u)
        << axis;
    EXPECT_EQ(count(html, "<div class=\"curves on-" + axis + "\""), 1u) << axis;
    EXPECT_NE(html.find("#x-" + axis + ":checked~.on-" + axis), std::string::npos) << axis;
    const std::string block = axis_block(html, axis);
    EXPECT_NE(block.find("Held-out accuracy (greedy) against " + axis), std::string::npos)
        << axis;
    EXPECT_NE(block.find("Real reward (mean of 5 steps) against " + axis), std::string::npos)
        << axis;
  }
  EXPECT_EQ(count(html, " checked>"), 1u);
  EXPECT_NE(html.find("id=\"x-samples\" checked>"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  j["equal_steps"] = 10;
  html = report_html(j);
  EXPECT_EQ(count(html, " checked>"), 1u);
  EXPECT_NE(html.find("id=\"x-steps\" checked>"), std::string::npos);
}

// Each axis places the same evaluations at its own x: equal steps apart, seconds that
// jump between the first and the second evaluation.
TEST(ReportTest, EachAxisUsesItsOwnX) {
  json j = fixture();
  const double seconds[] = {0, 1, 30, 31, 32};
  for (auto& st : j["strategies"])
    for (auto& r : st["runs"]) {
      auto& evals = r["evals"];
      for (size_t v = 0; v < evals.size(); ++v) {
        evals[v]["step"] = 2 * v;
        evals[v]["seconds"] = seconds[v];
      }
    }
  const std::string html = report_html(j);
  const auto by_steps = polylines(svg_titled(html, "Held-out accuracy (greedy) against steps"));
  const auto by_seconds =
      polylines(svg_titled(html, "Held-out accuracy (greedy) against seconds"));
  ASSERT_EQ(by_steps.size(), 4u);
  ASSERT_EQ(by_seconds.size(), 4u);
  const auto& a = by_steps[0];
  const auto& b = by_seconds[0];
  ASSERT_EQ(a.size(), 5u);
  ASSERT_EQ(b.size(), 5u);
  EXPECT_NEAR(a[1].x - a[0].x, a[2].x - a[1].x, 0.5);      // steps 0, 2, 4: even
  EXPECT_GT(b[2].x - b[1].x, 10 * (b[1].x - b[0].x));      // seconds 0, 1, 30
  EXPECT_NEAR(a[2].y, b[2].y, 1e-9);                        // the same accuracies
  EXPECT_THROW(accuracy_svg(j, "minutes"), std::invalid_argument);
  EXPECT_EQ(polylines(accuracy_svg(j, "seconds"))[0].size(), 5u);
  // With an equal-steps table the step curves stop at its step cap (steps 0, 2, 4 of
  // 0..8), in the page and in the standalone plot; the other axes keep every point.
  j["equal_steps"] = 4;
  const std::string capped = report_html(j);
  const auto steps_capped =
      polylines(svg_titled(capped, "Held-out accuracy (greedy) against steps (to step 4)"));
  ASSERT_EQ(steps_capped.size(), 4u);
  EXPECT_EQ(steps_capped[0].size(), 3u);
  EXPECT_EQ(polylines(svg_titled(capped, "Held-out accuracy (greedy) against seconds"))[0].size(),
            5u);
  EXPECT_NE(svg_titled(capped, "Real reward (mean of 5 steps) against steps (to step 4)"), "");
  EXPECT_EQ(polylines(accuracy_svg(j))[0].size(), 3u);
  EXPECT_EQ(polylines(accuracy_svg(j, "samples"))[0].size(), 5u);
}

// With the equal-steps protocol's keys, the paired table shows each strategy's
// held-out accuracy at the step cap and at the budget, and its difference from the
// baseline on the same seeds with the 95% interval; without them there is no table.
TEST(ReportTest, PairedTableShowsTheMeanDifferenceAndItsInterval) {
  json j = fixture();
  EXPECT_EQ(report_html(j).find("<table id=\"paired\">"), std::string::npos);
  j["equal_steps"] = 250;
  auto& sum = j["strategies"][1]["summary"];
  sum["heldout_at_steps"] = stat(0.455, 0.41, 0.5);
  sum["paired_heldout_at_steps"] = {{"mean", 0.03}, {"low", 0.0103676}, {"high", 0.0496324},
                                     {"n", 5}};
  sum["paired_heldout_at_samples"] = {{"mean", -0.012}, {"low", -0.04}, {"high", 0.016},
                                       {"n", 5}};
  const std::string html = report_html(j);
  EXPECT_NE(html.find("<table id=\"paired\">"), std::string::npos);
  EXPECT_NE(html.find("held-out at 250 steps"), std::string::npos);
  const auto c = cells(html);
  EXPECT_EQ(c.at(ada_key + ".paired_heldout_at_steps.mean"), "+0.030");
  EXPECT_EQ(c.at(ada_key + ".paired_heldout_at_steps.low"), "+0.010");
  EXPECT_EQ(c.at(ada_key + ".paired_heldout_at_steps.high"), "+0.050");
  EXPECT_EQ(c.at(ada_key + ".paired_heldout_at_samples.mean"), "-0.012");
  EXPECT_EQ(c.at(ada_key + ".heldout_at_steps.median"), "0.455");
  EXPECT_EQ(c.at("grpo-n4.paired_heldout_at_steps.mean"), "-");
}

TEST(ReportTest, MalformedInputThrowsNamingTheKeyPath) {
  json j = fixture();
  j["strategies"][1]["runs"][0].erase("evals");
  EXPECT_EQ(error_of(j), "strategies[1].runs[0].evals: missing");
  EXPECT_THROW(accuracy_svg(j), std::invalid_argument);

  j = fixture();
  j["budget_samples"] = "lots";
  EXPECT_EQ(error_of(j), "budget_samples: expected a number, got string");

  j = fixture();
  j["strategies"][0]["summary"]["bucket_accuracy"].erase(3);
  EXPECT_EQ(error_of(j),
            "strategies[0].summary.bucket_accuracy: expected 4 entries, got 3");

  j = fixture();
  j["strategies"][0]["runs"][1]["pass_rate_bins"]["prompts"][2] = -1;
  EXPECT_EQ(
      error_of(j),
      "strategies[0].runs[1].pass_rate_bins.prompts[2]: expected a non-negative integer");

  j = fixture();
  j["strategies"][1]["runs"][1]["steps"][3]["cumulative_samples"] = nullptr;
  EXPECT_EQ(
      error_of(j),
      "strategies[1].runs[1].steps[3].cumulative_samples: expected a number, got null");

  j = fixture();
  j["strategies"][0]["summary"]["final_accuracy"] = 0.4;
  EXPECT_EQ(error_of(j),
            "strategies[0].summary.final_accuracy: expected an object, got number");

  j = fixture();
  j["strategies"] = json::object();
  EXPECT_EQ(error_of(j), "strategies: expected an array, got object");

  EXPECT_EQ(error_of(json::array()), "(top level): expected an object, got array");
  EXPECT_EQ(error_of(json()), "(top level): expected an object, got null");
}

}  // namespace
}  // namespace adarl
