// The run page's sections on the strategy's decisions and on zero rewards.
#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>

#include "report/run_sections.hpp"
#include "report/svg_chart.hpp"

namespace adarl {

namespace {

using json = nlohmann::json;

/// What each exit kind means, in metrics.jsonl's order.
constexpr std::pair<const char*, const char*> exit_labels[] = {
    {"pos", "exited: enough positives"},
    {"balance", "exited: enough positives and negatives"},
    {"fallback_missing_positives", "never exited: too few positives"},
    {"fallback_missing_negatives", "never exited: too few negatives"},
    {"uniform", "fixed group"},
    {"allocated", "allocated samples all verified"},
    {"dropped", "dropped: all rewards equal"},
    {"skipped", "skipped: no signal expected, not drawn"},
};

/// config.json's value of `key`, or "" when the run has no config or not that key.
std::string config_value(const json& d, const std::string& key) {
  const json& c = d.at("config");
  const auto it = c.find(key);
  return it != c.end() && it->is_string() ? it->get<std::string>() : "";
}

/// "312 of 2,400 (13.0%)".
std::string of_text(double part, double whole) {
  return count_text(part) + " of " + count_text(whole) + " (" +
         percent_text(whole > 0 ? part / whole : 0) + ")";
}

std::string item(const std::string& text) {
  return "<li>" + text + "</li>\n";
}

std::string num_td(const std::string& text) {
  return "<td class=\"num\">" + text + "</td>";
}

std::string exits_table(const json& d) {
  double total = 0;
  for (const auto& [key, label] : exit_labels)
    total += number_at(d.at("exits"), key).value_or(0.0);
  std::string t =
      "<table class=\"small\" id=\"exits\">\n<tr><th>how sampling ended</th>"
      "<th>prompts</th><th>share</th></tr>\n";
  for (const auto& [key, label] : exit_labels) {
    const double n = number_at(d.at("exits"), key).value_or(0.0);
    if (n == 0) continue;
    t += std::string("<tr><td>") + label + " <small>(" + key + ")</small></td>" +
         num_td(count_text(n)) + num_td(percent_text(total > 0 ? n / total : 0)) +
         "</tr>\n";
  }
  return t + "</table>\n";
}

std::string rounds_table(const json& d) {
  const json& rounds = d.at("rounds");
  double total = 0;
  for (const auto& r : rounds) total += r.get<double>();
  std::string t =
      "<table class=\"small\" id=\"rounds\">\n<tr><th>rounds used</th>"
      "<th>prompts</th><th>share of prompts</th><th>share of samples</th></tr>\n";
  for (size_t r = 0; r < rounds.size(); ++r) {
    const double n = rounds.at(r).get<double>();
    if (n == 0) continue;
    t += "<tr><td>" + std::to_string(r) + "</td>" + num_td(count_text(n)) +
         num_td(percent_text(total > 0 ? n / total : 0)) +
         num_td(percent_text(d.at("rounds_samples").at(r).get<double>())) + "</tr>\n";
  }
  return t + "</table>\n";
}

std::string seq_decisions(const json& d) {
  const double prompts = d.at("totals").at("prompts").get<double>();
  const json& never = d.at("never_exited");
  const json& first = d.at("round1");
  double counted = 0, weighted = 0;
  for (size_t r = 0; r < d.at("rounds").size(); ++r) {
    counted += d.at("rounds").at(r).get<double>();
    weighted += double(r) * d.at("rounds").at(r).get<double>();
  }
  const std::string m = config_value(d, "strategy.round_size");
  const std::string n = config_value(d, "strategy.max_rounds");
  std::string h = "<p>Seq draws rounds of " + (m.empty() ? "M" : m) +
                  " samples for a prompt until its exit rule holds, for at most " +
                  (n.empty() ? "N" : n) + " rounds (then it falls back).</p>\n<ul>\n";
  h += item("Prompts that never exited: " +
            of_text(never.at("prompts").get<double>(), prompts) + ", on <b>" +
            percent_text(never.at("samples_share").get<double>()) +
            "</b> of the samples.");
  h += item("Prompts that exited in round 1: " +
            of_text(first.at("prompts").get<double>(), prompts) + ", on " +
            percent_text(first.at("samples_share").get<double>()) + " of the samples.");
  h += item("Rounds per prompt: " + fixed(counted > 0 ? weighted / counted : 0, 2) +
            " on average.");
  h += "</ul>\n<div class=\"grid\">\n";
  h += run_step_chart(
      d, "Share of the step's samples", "share of samples",
      {{"never_exited_share", "never exited"}, {"round1_share", "exited in round 1"}},
      /*fraction=*/true,
      "Where each step's samples went: prompts that used "
      "every round without exiting, and prompts done after one round.");
  h += run_step_chart(d, "Rounds per prompt", "rounds", {{"rounds_mean", "mean rounds"}},
                      /*fraction=*/false, "Mean rounds a prompt of the step used.");
  return h + "</div>\n<div class=\"tables\">\n" + rounds_table(d) + exits_table(d) +
         "</div>\n";
}

std::string bins_table(const json& d) {
  const json& b = d.at("pass_rate_bins");
  double total = 0;
  for (const auto& s : b.at("samples")) total += s.get<double>();
  const double n = double(b.at("prompts").size());
  std::string t =
      "<table class=\"small\" id=\"pass-rate-bins\">\n<tr><th>estimated pass "
      "rate</th><th>prompts</th><th>samples per prompt</th><th>share of samples"
      "</th></tr>\n";
  for (size_t i = 0; i < b.at("prompts").size(); ++i) {
    const double p = b.at("prompts").at(i).get<double>(),
                 s = b.at("samples").at(i).get<double>();
    if (p == 0) continue;
    t += "<tr><td>" + fixed(double(i) / n, 1) + " to " + fixed(double(i + 1) / n, 1) +
         "</td>" + num_td(count_text(p)) + num_td(fixed(s / p, 2)) +
         num_td(percent_text(total > 0 ? s / total : 0)) + "</tr>\n";
  }
  return t + "</table>\n";
}

std::string est_decisions(const json& d) {
  const json& b = d.at("pass_rate_bins");
  double total = 0, easy = 0, hard = 0;
  const size_t bins = b.at("samples").size();
  for (size_t i = 0; i < bins; ++i) {
    const double s = b.at("samples").at(i).get<double>();
    total += s;
    if (i == 0) hard += s;
    if (i + 1 == bins) easy += s;
  }
  double mean = 0, most = 0, top = 0;
  for (const auto& s : d.at("steps")) {
    mean += s.at("samples_per_prompt_mean").get<double>();
    most += s.at("samples_per_prompt_max").get<double>();
    top = std::max(top, s.at("samples_per_prompt_max").get<double>());
  }
  const double steps = std::max<double>(1, double(d.at("steps").size()));
  std::string h =
      "<p>Est spreads each step's samples over its prompts by their estimated "
      "pass rate.</p>\n<ul>\n";
  h += item("Samples per prompt: " + fixed(mean / steps, 2) +
            " on average; the largest pool "
            "of a step: " +
            fixed(most / steps, 1) + " on average, " + count_text(top) + " at most.");
  h += item("Samples on prompts estimated below 0.1: " +
            percent_text(total > 0 ? hard / total : 0) +
            "; at 0.9 or above: " + percent_text(total > 0 ? easy / total : 0) + ".");
  h += "</ul>\n<div class=\"grid\">\n";
  h += run_step_chart(
      d, "Allocation spread", "samples per prompt",
      {{"samples_per_prompt_mean", "mean"}, {"samples_per_prompt_max", "largest"}},
      /*fraction=*/false, "Mean and largest pool of a prompt in each step.");
  h += run_pass_rate_chart(d);
  return h + "</div>\n" + bins_table(d);
}

std::string uniform_decisions(const json& d, const std::string& kind) {
  const std::string n = config_value(d, "strategy.group_size");
  std::string h =
      "<p>" + escape(kind) + " draws a fixed group of " + (n.empty() ? "n" : n) +
      " samples per prompt: every step costs the same, and a group whose rewards "
      "are all equal teaches nothing (the zero-gradient fraction above).</p>\n";
  const double dropped = d.at("exits").at("dropped").get<double>();
  if (kind == "dapo" || dropped > 0)
    return h + "<ul>\n" +
           item("Prompts dropped (all rewards equal, not trained on): " +
                of_text(dropped, d.at("totals").at("prompts").get<double>()) + ".") +
           "</ul>\n" + exits_table(d);
  // Equal groups: the share of samples without gradient is that of the groups.
  double wasted = 0, samples = 0;
  for (const auto& st : d.at("steps")) {
    wasted +=
        st.at("zero_gradient_fraction").get<double>() * st.at("samples").get<double>();
    samples += st.at("samples").get<double>();
  }
  return h + "<ul>\n" +
         item("Samples on groups that taught nothing: " +
              percent_text(samples > 0 ? wasted / samples : 0) +
              " (each step's zero-gradient fraction, weighted by its samples).") +
         "</ul>\n";
}

/// The pass-rate prior's reliability bins as a table.
std::string reliability_table(const json& d) {
  std::string t =
      "<table class=\"small\" id=\"reliability\">\n<tr><th>predicted pass rate</th>"
      "<th>mean prediction</th><th>observed</th><th>samples</th></tr>\n";
  const double n = 10;  // tenths of predicted p (step_summary::rate_bins)
  for (const auto& b : d.at("reliability")) {
    const double i = b.at("bin").get<double>();
    t += "<tr><td>" + fixed(i / n, 1) + " to " + fixed((i + 1) / n, 1) + "</td>" +
         num_td(fixed(b.at("predicted").get<double>(), 3)) +
         num_td(fixed(b.at("observed").get<double>(), 3)) +
         num_td(count_text(b.at("samples").get<double>())) + "</tr>\n";
  }
  return t + "</table>\n";
}

/// The pass-rate prior's Brier score per step and its reliability curve, when the step
/// lines have them.
std::string calibration(const json& d) {
  bool any = false;
  for (const auto& s : d.at("steps"))
    any = any || number_at(s, "prior_brier").has_value();
  if (!any) return "";
  const bool curve = !d.at("reliability").empty();
  return "<div class=\"grid\">\n" +
         run_step_chart(
             d, "Calibration of the pass-rate prior", "Brier score per sample",
             {{"prior_brier", "Brier score"}}, /*fraction=*/false,
             "How far each prompt's estimated pass rate at the start of the step "
             "was from its samples' rewards (0 = exact, 0.25 = a coin's guess).") +
         (curve ? run_reliability_chart(d) : "") + "</div>\n" +
         (curve ? "<div class=\"tables\">\n" + reliability_table(d) + "</div>\n" : "");
}

}  // namespace

std::string run_decisions_section(const json& d) {
  const std::string kind = d.at("strategy").get<std::string>();
  std::string h = "<h2 id=\"decisions\">What the strategy's decisions cost</h2>\n";
  if (kind.rfind("ada-seq", 0) == 0) return h + seq_decisions(d) + calibration(d);
  if (kind.rfind("ada-est", 0) == 0) return h + est_decisions(d) + calibration(d);
  if (!kind.empty()) return h + uniform_decisions(d, kind) + calibration(d);
  return h +
         "<p>metrics.jsonl records no exits: nothing to say about the strategy.</p>\n";
}

std::string run_zero_rewards_section(const json& d) {
  const json& z = d.at("zero_rewards");
  std::string h = "<h2 id=\"zero-rewards\">Why rewards were zero</h2>\n";
  if (!z.at("recorded").get<bool>())
    return h +
           "<p>metrics.jsonl has no zero_reward_reasons (runs of older versions).</p>\n";
  const double total = z.at("total").get<double>();
  if (total == 0) return h + "<p>No sample had a zero reward.</p>\n";
  h += "<p>" + count_text(total) + " zero rewards, " +
       percent_text(z.at("samples_share").get<double>()) +
       " of the samples; the verifiers' reasons:</p>\n<table class=\"small\">\n"
       "<tr><th>reason</th><th>count</th><th>share of zero rewards</th></tr>\n";
  for (const auto& r : z.at("reasons")) {
    const double share = r.at("share").get<double>();
    h += "<tr><td><code>" + escape(r.at("reason").get<std::string>()) + "</code></td>" +
         num_td(count_text(r.at("count").get<double>())) +
         "<td class=\"bar\"><span style=\"width:" + fixed(share * 10, 2) +
         "em\"></span>" + percent_text(share) + "</td></tr>\n";
  }
  return h + "</table>\n";
}

}  // namespace adarl
