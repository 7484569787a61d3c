// metrics_text: the Prometheus text exposition of a run's figures (the metrics endpoint's
// page): names, HELP and TYPE lines, labels and their escaping, what is left out when.
#include "runtime/metrics_text.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

namespace adarl {
namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

/// The sample lines of the page by series (name and labels), with their values.
std::map<std::string, std::string> samples_of(const std::string& text) {
  std::map<std::string, std::string> out;
  for (const auto& l : lines_of(text))
    if (!l.empty() && l[0] != '#') out[l.substr(0, l.rfind(' '))] = l.substr(l.rfind(' ') + 1);
  return out;
}

nlohmann::json step_line() {
  return {{"step", 2},
          {"policy_version", 3},
          {"real_reward", 0.25},
          {"zero_gradient_fraction", 0.5},
          {"samples", 120},
          {"tokens", 2400},
          {"cumulative_samples", 360},
          {"cumulative_tokens", 7200},
          {"lag_mean", 0.75},
          {"lag_max", 1},
          {"generator_busy", 0.875},
          {"time_step", 2.0},
          {"elapsed", 6.5},
          {"cluster",
           {{"workers", 2}, {"workers_joined", 3}, {"workers_lost", 1}, {"orders_reissued", 7}}}};
}

run_figures full_figures() {
  run_figures f;
  f.run = "quickstart";
  f.steps_planned = 150;
  add_step_line(f, step_line());
  eval_report e;
  e.version = 3;
  e.greedy_accuracy = 0.375;
  e.sampled_accuracy = 0.3125;
  add_eval(f, e);
  tracker_status s;
  s.results = 999;
  s.in_flight = 12;
  s.queued = 4;
  add_tracker(f, s);
  return f;
}

TEST(MetricsTextTest, EverySeriesHasItsValueAndTheRunLabel) {
  const auto s = samples_of(exposition_text(full_figures()));
  const std::map<std::string, std::string> expected = {
      {"adarl_steps_total{run=\"quickstart\"}", "3"},
      {"adarl_steps_planned{run=\"quickstart\"}", "150"},
      {"adarl_samples_total{run=\"quickstart\"}", "360"},
      {"adarl_tokens_total{run=\"quickstart\"}", "7200"},
      {"adarl_elapsed_seconds{run=\"quickstart\"}", "6.5"},
      {"adarl_real_reward{run=\"quickstart\"}", "0.25"},
      {"adarl_zero_gradient_fraction{run=\"quickstart\"}", "0.5"},
      {"adarl_samples_per_second{run=\"quickstart\"}", "60"},   // 120 samples / 2 s
      {"adarl_tokens_per_second{run=\"quickstart\"}", "1200"},  // 2400 tokens / 2 s
      {"adarl_lag_mean{run=\"quickstart\"}", "0.75"},
      {"adarl_lag_max{run=\"quickstart\"}", "1"},
      {"adarl_generator_busy_ratio{run=\"quickstart\"}", "0.875"},
      {"adarl_results_total{run=\"quickstart\"}", "999"},
      {"adarl_orders_in_flight{run=\"quickstart\"}", "12"},
      {"adarl_orders_queued{run=\"quickstart\"}", "4"},
      {"adarl_workers{run=\"quickstart\"}", "2"},
      {"adarl_workers_joined_total{run=\"quickstart\"}", "3"},
      {"adarl_workers_lost_total{run=\"quickstart\"}", "1"},
      {"adarl_orders_reissued_total{run=\"quickstart\"}", "7"},
      {"adarl_heldout_accuracy{run=\"quickstart\",mode=\"greedy\"}", "0.375"},
      {"adarl_heldout_accuracy{run=\"quickstart\",mode=\"sampled\"}", "0.3125"},
      {"adarl_heldout_version{run=\"quickstart\"}", "3"},
  };
  EXPECT_EQ(s, expected);
}

TEST(MetricsTextTest, EachFamilyHasHelpThenTypeBeforeItsSamplesAndCountersEndInTotal) {
  const auto lines = lines_of(exposition_text(full_figures()));
  std::map<std::string, std::string> types;
  std::set<std::string> helped;
  std::string current;
  for (const auto& l : lines) {
    if (l.rfind("# HELP ", 0) == 0) {
      current = l.substr(7, l.find(' ', 7) - 7);
      EXPECT_TRUE(helped.insert(current).second) << "two HELP lines for " << current;
      EXPECT_GT(l.size(), 7 + current.size() + 10) << "an empty HELP text: " << l;
    } else if (l.rfind("# TYPE ", 0) == 0) {
      const auto name = l.substr(7, l.find(' ', 7) - 7);
      EXPECT_EQ(name, current) << "TYPE without its HELP just before: " << l;
      types[name] = l.substr(l.rfind(' ') + 1);
    } else {
      const auto name = l.substr(0, l.find('{'));
      EXPECT_EQ(name, current) << "a sample outside its family: " << l;
      EXPECT_EQ(name.rfind("adarl_", 0), 0u) << l;
    }
  }
  ASSERT_EQ(types.size(), 21u);
  for (const auto& [name, type] : types) {
    const bool total = name.size() > 6 && name.substr(name.size() - 6) == "_total";
    EXPECT_EQ(type, total ? "counter" : "gauge") << name;
  }
  EXPECT_EQ(types["adarl_samples_total"], "counter");
  EXPECT_EQ(types["adarl_real_reward"], "gauge");
}

TEST(MetricsTextTest, LabelValuesAndHelpTextsAreEscaped) {
  EXPECT_EQ(escape_label_value("plain-run_1"), "plain-run_1");
  EXPECT_EQ(escape_label_value("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
  EXPECT_EQ(escape_help("x \\ y\nz \"q\""), "x \\\\ y\\nz \"q\"");  // quotes stay in HELP
  run_figures f;
  f.run = "my \"run\"\\\n";
  const auto text = exposition_text(f);
  EXPECT_NE(text.find("adarl_steps_total{run=\"my \\\"run\\\"\\\\\\n\"} 0\n"), std::string::npos)
      << text;
}

TEST(MetricsTextTest, SeriesWithNothingToShowYetAreLeftOut) {
  run_figures f;
  f.run = "r";
  auto s = samples_of(exposition_text(f));
  EXPECT_EQ(s.at("adarl_steps_total{run=\"r\"}"), "0");
  EXPECT_EQ(s.at("adarl_workers_joined_total{run=\"r\"}"), "0");
  for (const char* absent : {"adarl_real_reward{run=\"r\"}", "adarl_orders_in_flight{run=\"r\"}",
                             "adarl_generator_busy_ratio{run=\"r\"}",
                             "adarl_heldout_version{run=\"r\"}"})
    EXPECT_EQ(s.count(absent), 0u) << absent;
  EXPECT_EQ(exposition_text(f).find("adarl_heldout_accuracy"), std::string::npos);
  // A step line without generator_busy keeps the last measured value.
  add_step_line(f, step_line());
  auto line = step_line();
  line.erase("generator_busy");
  line["real_reward"] = 0.5;
  add_step_line(f, line);
  s = samples_of(exposition_text(f));
  EXPECT_EQ(s.at("adarl_generator_busy_ratio{run=\"r\"}"), "0.875");
  EXPECT_EQ(s.at("adarl_real_reward{run=\"r\"}"), "0.5");
}

TEST(MetricsTextTest, AnOlderEvaluationFinishingLateDoesNotReplaceANewerOne) {
  run_figures f;
  eval_report newer, older;
  newer.version = 5;
  newer.greedy_accuracy = 0.5;
  older.version = 4;
  older.greedy_accuracy = 0.25;
  older.sampled_accuracy = 0.125;
  add_eval(f, newer);
  add_eval(f, older);
  EXPECT_EQ(*f.heldout_version, 5u);
  EXPECT_DOUBLE_EQ(*f.heldout_greedy, 0.5);
  EXPECT_FALSE(f.heldout_sampled);
  const auto s = samples_of(exposition_text(f));
  EXPECT_EQ(s.count("adarl_heldout_accuracy{run=\"\",mode=\"sampled\"}"), 0u);
  EXPECT_EQ(s.at("adarl_heldout_accuracy{run=\"\",mode=\"greedy\"}"), "0.5");
}

TEST(MetricsTextTest, SampleValuesReadBackExactly) {
  EXPECT_EQ(sample_value(0.1), "0.1");
  EXPECT_EQ(sample_value(3), "3");
  EXPECT_EQ(sample_value(-2.5e-9), "-2.5e-09");
  EXPECT_EQ(std::stod(sample_value(1.0 / 3)), 1.0 / 3);
  EXPECT_EQ(sample_value(std::numeric_limits<double>::quiet_NaN()), "NaN");
  EXPECT_EQ(sample_value(std::numeric_limits<double>::infinity()), "+Inf");
  EXPECT_EQ(sample_value(-std::numeric_limits<double>::infinity()), "-Inf");
}

}  // namespace
}  // namespace adarl
