#include "report/run_page.hpp"

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "report/run_sections.hpp"
#include "report/svg_chart.hpp"

namespace adarl {

using json = nlohmann::json;

std::string count_text(double v) {
  std::string digits = fixed(std::round(std::abs(v)), 0), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return (v <= -0.5 ? "-" : "") + out;
}

std::string percent_text(double share) {
  return fixed(100 * share, 1) + "%";
}

std::string seconds_text(double s) {
  if (!std::isfinite(s)) return "-";
  if (s < 60) return fixed(s, 1) + " s";
  char buf[48];
  const long total = std::lround(s);
  if (total < 3600)
    std::snprintf(buf, sizeof buf, "%ldm%02lds", total / 60, total % 60);
  else
    std::snprintf(buf, sizeof buf, "%ldh%02ldm", total / 3600, (total / 60) % 60);
  return buf;
}

std::optional<double> number_at(const json& j, const char* key) {
  if (!j.is_object()) return std::nullopt;
  const auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return std::nullopt;
  const double v = it->get<double>();
  return std::isfinite(v) ? std::optional<double>(v) : std::nullopt;
}

namespace {

/// One decimal, none for a whole number: "16", "15.5".
std::string short_number(double v) {
  const std::string t = fixed(v, 1);
  return t.size() > 2 && t.compare(t.size() - 2, 2, ".0") == 0 ? t.substr(0, t.size() - 2)
                                                               : t;
}

std::string signed3(double v) {
  const std::string t = fixed(v, 3);
  return t[0] == '-' ? t : "+" + t;
}

/// "0.250 at version 0".
std::string accuracy_at(const json& e) {
  return fixed(e.at("accuracy").get<double>(), 3) + " at version " +
         fixed(e.at("version").get<double>(), 0);
}

/// "real reward went from 0.203 (first 15 steps) to 0.421 (last 15 steps)".
std::string reward_clause(const json& d) {
  const json& t = d.at("tenths");
  if (t.is_null()) return "no step was trained";
  const size_t n = t.at("steps").get<size_t>();
  const std::string steps = n == 1 ? "step" : std::to_string(n) + " steps";
  return "real reward went from " + fixed(t.at("reward_first").get<double>(), 3) +
         " (first " + steps + ") to " + fixed(t.at("reward_last").get<double>(), 3) +
         " (last " + steps + ")";
}

/// The verdict and its tone: rose, flat, fell or none (no verdict on held-out accuracy).
struct verdict {
  std::string text;
  const char* tone = "none";
};

verdict heldout_verdict(const json& d) {
  const json& h = d.at("heldout");
  if (h.is_null()) return {"No held-out evaluation finished; " + reward_clause(d) + "."};
  const std::string what =
      "Held-out accuracy (" + d.at("heldout_metric").get<std::string>() + ")";
  const json &first = h.at("first"), &last = h.at("last");
  if (d.at("evals").size() < 2)
    return {"Only one held-out evaluation finished (" + accuracy_at(first) + "); " +
            reward_clause(d) + "."};
  const double change = h.at("change").get<double>();
  const bool interval = h.at("low").is_number() && h.at("high").is_number();
  const std::string range =
      interval ? "95% interval over " + count_text(h.at("prompts").get<double>()) +
                     " prompts " + signed3(h.at("low").get<double>()) + " to " +
                     signed3(h.at("high").get<double>())
               : "";
  const std::string detail = signed3(change) + (interval ? "; " + range : "");
  const bool zero = fixed(change, 3) == "0.000";
  const bool rose = interval ? h.at("low").get<double>() > 0 : change > 0 && !zero;
  const bool fell = interval ? h.at("high").get<double>() < 0 : change < 0 && !zero;
  const std::string from_to = "from " + accuracy_at(first) + " to " + accuracy_at(last);
  if (rose) return {what + " rose " + from_to + " (" + detail + ").", "rose"};
  if (fell)
    return {what + " did not rise: it fell " + from_to + " (" + detail + ").", "fell"};
  if (zero)
    return {what + " did not rise: " + fixed(first.at("accuracy").get<double>(), 3) +
                " at version " + fixed(first.at("version").get<double>(), 0) +
                " and at version " + fixed(last.at("version").get<double>(), 0) +
                (interval ? " (" + range + ")" : "") + ".",
            "flat"};
  return {what + " did not clearly rise: " + accuracy_at(first) + ", then " +
              accuracy_at(last) + " (" + detail + ", which includes 0).",
          "flat"};
}

/// The held-out verdict, then the steps whose updates were skipped as non-finite (a
/// number that must not be read past: docs/guides/reliability.md "Faults survived").
verdict make_verdict(const json& d) {
  verdict v = heldout_verdict(d);
  const auto n = d.find("nonfinite_steps");
  if (n != d.end() && n->is_number() && n->get<double>() > 0) {
    v.text += " " + fixed(n->get<double>(), 0) + " of its steps had a non-finite loss or "
              "gradient: their updates were not applied.";
    v.tone = "fell";
  }
  return v;
}

std::string fact(const std::string& label, const std::string& value,
                 const std::string& note, const std::string& key) {
  return "<div class=\"fact\"><span>" + label + "</span><b data-key=\"" + key + "\">" +
         value + "</b><small>" + note + "</small></div>\n";
}

/// "reached at step 75" / "not reached" for a target.
std::string target_fact(const json& d, const char* key, const std::string& label) {
  const json& r = d.at("reach")[key];
  const auto target = number_at(d.at("targets"), key);
  if (r.is_null() || !target) return "";
  const std::string name = label + " target " + fixed(*target, 3);
  if (!r.at("reached").get<bool>())
    return fact(name, "not reached", "", std::string("reach.") + key);
  const auto samples = number_at(r, "samples"), seconds = number_at(r, "seconds");
  return fact(name, "step " + fixed(r.at("step").get<double>(), 0),
              (samples ? count_text(*samples) + " samples" : "") +
                  (seconds ? ", " + seconds_text(*seconds) : ""),
              std::string("reach.") + key);
}

/// Real reward and zero-gradient fraction over the first and last tenth of the steps.
std::string tenths_facts(const json& d) {
  const json& t = d.at("tenths");
  if (t.is_null()) return fact("Real reward", "-", "", "reward");
  const size_t n = t.at("steps").get<size_t>();
  const std::string per =
      "first and last " + (n == 1 ? std::string("step") : std::to_string(n) + " steps");
  const auto pair = [&](const char* a, const char* b) {
    return fixed(t.at(a).get<double>(), 3) + " &rarr; " + fixed(t.at(b).get<double>(), 3);
  };
  return fact("Real reward", pair("reward_first", "reward_last"), per, "reward") +
         fact("Zero-gradient fraction", pair("zero_grad_first", "zero_grad_last"), per,
              "zero_grad");
}

std::string facts(const json& d) {
  const json& t = d.at("totals");
  const double steps = t.at("steps").get<double>();
  const double samples = t.at("samples").get<double>(),
               prompts = t.at("prompts").get<double>();
  const auto sps = number_at(t, "seconds_per_step"),
             spp = number_at(t, "samples_per_step");
  std::string h = "<div class=\"facts\" id=\"facts\">\n";
  h += fact("Trained", count_text(steps) + (steps == 1 ? " step" : " steps"),
            count_text(samples) + " samples, " +
                count_text(t.at("tokens").get<double>()) + " tokens",
            "steps");
  h += fact("Wall clock", seconds_text(t.at("seconds").get<double>()),
            sps ? fixed(*sps, 2) + " s per step" : "", "seconds");
  h += fact("Samples per step", spp ? count_text(*spp) : "-",
            steps > 0 && prompts > 0
                ? short_number(prompts / steps) + " prompts, " +
                      fixed(samples / prompts, 1) + " samples per prompt"
                : "",
            "samples_per_step");
  h += tenths_facts(d);
  if (const json& b = d.at("heldout"); !b.is_null())
    h += fact("Best held-out accuracy",
              fixed(b.at("best").at("accuracy").get<double>(), 3),
              "at version " + fixed(b.at("best").at("version").get<double>(), 0), "best");
  h += target_fact(d, "heldout", "Held-out") + target_fact(d, "real_reward", "Reward");
  if (const auto g = d.find("logprob_gap"); g != d.end() && g->is_object())
    h += fact("Log-prob gap", fixed(g->at("mean").get<double>(), 6),
              "nats per token, generators vs learner on " +
                  count_text(g->at("tokens").get<double>()) + " fresh tokens; largest step " +
                  fixed(g->at("max").get<double>(), 6),
              "logprob_gap");
  return h + "</div>\n";
}

std::string who(const json& d) {
  const std::string kind = d.at("strategy").get<std::string>();
  return "<p class=\"who\">Run <b data-key=\"name\">" +
         escape(d.at("name").get<std::string>()) +
         "</b> &middot; strategy <b data-key=\"strategy\">" +
         (kind.empty() ? "unknown" : escape(kind)) +
         "</b> &middot; seed <b data-key=\"seed\">" +
         (d.at("seed").is_number() ? fixed(d.at("seed").get<double>(), 0)
                                   : "unknown (no config.json)") +
         "</b> &middot; directory <code data-key=\"dir\">" +
         escape(d.at("dir").get<std::string>()) + "</code></p>\n";
}

std::string evals_table(const json& d) {
  const json& e = d.at("evals");
  if (e.empty()) return "";
  const std::string metric = d.at("heldout_metric").get<std::string>();
  const std::string other = metric == "greedy" ? "sampled" : "greedy";
  std::string h =
      std::string("<h2>Evaluations</h2>\n<details") + (e.size() <= 12 ? " open" : "") +
      "><summary>" + std::to_string(e.size()) +
      " held-out evaluations</summary>\n"
      "<table class=\"small\" id=\"evals\">\n<tr><th>version</th><th>samples</th>"
      "<th>seconds</th><th>" +
      metric + "</th><th>" + other + "</th></tr>\n";
  const auto cell = [](std::optional<double> v, std::string (*f)(double)) {
    return "<td class=\"num\">" + (v ? f(*v) : std::string("-")) + "</td>";
  };
  const auto acc = [](double v) { return fixed(v, 3); };
  const auto secs = [](double v) { return fixed(v, 1); };
  for (const auto& r : e)
    h += "<tr>" + cell(number_at(r, "version"), count_text) +
         cell(number_at(r, "cumulative_samples"), count_text) +
         cell(number_at(r, "elapsed"), secs) + cell(number_at(r, "accuracy"), acc) +
         cell(number_at(r, "other"), acc) + "</tr>\n";
  return h + "</table>\n</details>\n";
}

}  // namespace

std::string run_verdict(const json& data) {
  return make_verdict(data).text;
}

std::string run_page_html(const json& d) {
  const verdict v = make_verdict(d);
  std::string h =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<title>" +
      escape(d.at("title").get<std::string>()) + "</title>\n<style>\n" +
      run_page_style() + "</style>\n</head>\n<body>\n";
  h += "<h1>" + escape(d.at("title").get<std::string>()) + "</h1>\n" + who(d);
  h += std::string("<p class=\"verdict ") + v.tone + "\" id=\"verdict\">" +
       escape(v.text) + "</p>\n";
  h += facts(d) + run_curves_section(d) + run_cost_section(d) + run_decisions_section(d) +
       run_zero_rewards_section(d) + evals_table(d) + run_config_section(d);
  return h +
         "<p class=\"foot\">Drawn from metrics.jsonl, eval.jsonl and config.json by "
         "<code>adarl report " +
         escape(d.at("dir").get<std::string>()) +
         "</code> (which redraws it; --target-heldout and --target-reward add targets)."
         "</p>\n</body>\n</html>\n";
}

}  // namespace adarl
