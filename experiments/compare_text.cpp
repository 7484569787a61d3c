// compare.json as text: the tables of `adarl compare` and its closing sentence.
#include "experiments/compare_results.hpp"

#include <cstdio>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace adarl {

using json = nlohmann::json;

namespace {

std::string num(const json& v, const char* fmt) {
  if (!v.is_number()) return std::string("-");
  char buf[32];
  std::snprintf(buf, sizeof buf, fmt, v.get<double>());
  return std::string(buf);
}

/// "median [min, max] reached/runs" of a reach summary.
std::string reach_text(const json& s, const char* fmt = "%.0f") {
  if (!s.is_object()) return std::string("-");
  const std::string counts =
      std::to_string(s.value("reached", 0)) + "/" + std::to_string(s.value("runs", 0));
  if (!s["median"].is_number()) return "never (" + counts + ")";
  return num(s["median"], fmt) + " [" + num(s["min"], fmt) + ", " +
         (s["max"].is_number() ? num(s["max"], fmt) : std::string("never")) + "] " + counts;
}

std::string stat_text(const json& f, const char* fmt) {
  if (!f.is_object()) return "-";
  return num(f["median"], fmt) + " [" + num(f["min"], fmt) + ", " + num(f["max"], fmt) + "]";
}

/// "+0.012 [-0.003, +0.027]": the mean paired difference and its 95% interval.
std::string paired_text(const json& p) {
  if (!p.is_object() || !p["mean"].is_number()) return "-";
  if (!p["low"].is_number()) return num(p["mean"], "%+.3f");  // one pair: no interval
  return num(p["mean"], "%+.3f") + " [" + num(p["low"], "%+.3f") + ", " +
         num(p["high"], "%+.3f") + "]";
}

}  // namespace

std::string compare_table(const json& c) {
  char line[768];
  std::string out;
  const auto strategies = c.value("strategies", json::array());
  if (c.contains("equal_steps") && c["equal_steps"].is_number()) {
    out += "equal steps (" + num(c["equal_steps"], "%.0f") + "), held-out vs " +
           c.value("baseline", std::string("?")) + " paired over seeds (mean [95% CI])\n";
    std::snprintf(line, sizeof line, "%-18s %-24s %-26s %-24s %-18s %-22s %-22s %-10s %-8s\n",
                  "strategy", "held-out at step", "paired diff", "steps to ref (fraction)",
                  "wall-clock there", "steps to held-out", "steps to reward", "seconds",
                  "s/step");
    out += line;
    for (const auto& st : strategies) {
      const json& s = st["summary"];
      std::snprintf(line, sizeof line, "%-18s %-24s %-26s %-24s %-18s %-22s %-22s %-10s %-8s\n",
                    st.value("name", "?").c_str(), stat_text(s["heldout_at_steps"], "%.3f").c_str(),
                    paired_text(s["paired_heldout_at_steps"]).c_str(),
                    reach_text(s["reach_reference_fraction"], "%.2f").c_str(),
                    stat_text(s["reach_reference_seconds_ratio"], "%.2fx").c_str(),
                    reach_text(s["steps_to_heldout"]).c_str(),
                    reach_text(s["steps_to_reward"]).c_str(),
                    num(s["seconds"]["median"], "%.0f").c_str(),
                    s.contains("seconds_per_step")
                        ? num(s["seconds_per_step"]["median"], "%.2f").c_str()
                        : "-");
      out += line;
    }
    out += "\n";
  }
  out += "equal samples (" + num(c["budget_samples"], "%.0f") + ")\n";
  std::snprintf(line, sizeof line, "%-18s %-30s %-6s %-30s %-6s %-22s %-26s %-8s %-8s %-8s\n",
                "strategy", "samples to held-out target", "ratio", "samples to reward target",
                "ratio", "final held-out acc", "paired diff at budget", "pass@k", "fallback",
                "updates");
  out += line;
  for (const auto& st : strategies) {
    const json& s = st["summary"];
    std::snprintf(line, sizeof line, "%-18s %-30s %-6s %-30s %-6s %-22s %-26s %-8s %-8s %-8s\n",
                  st.value("name", "?").c_str(), reach_text(s["samples_to_heldout"]).c_str(),
                  num(s["ratio_heldout_samples"], "%.2f").c_str(),
                  reach_text(s["samples_to_reward"]).c_str(),
                  num(s["ratio_reward_samples"], "%.2f").c_str(),
                  stat_text(s["final_accuracy"], "%.3f").c_str(),
                  paired_text(s["paired_heldout_at_samples"]).c_str(),
                  s.contains("pass_at_k_at_samples")
                      ? num(s["pass_at_k_at_samples"]["median"], "%.3f").c_str()
                      : "-",
                  s.contains("fallback_share") ? num(s["fallback_share"]["median"], "%.3f").c_str()
                                               : "-",
                  s.contains("updates_at_samples")
                      ? num(s["updates_at_samples"]["median"], "%.0f").c_str()
                      : "-");
    out += line;
  }
  return out;
}

namespace {

/// Where a paired interval puts a strategy against the baseline.
std::string side_of(const json& p) {
  if (!p.is_object() || !p["mean"].is_number()) return "not read in every seed";
  if (!p["low"].is_number()) return "one seed: no interval";
  if (p["low"].get<double>() > 0) return "above";
  if (p["high"].get<double>() < 0) return "below";
  return "within noise";
}

/// The mean over `runs` of their last evaluation's `key` at or before step `cap` (runs
/// that trained fewer steps left out); null when none did.
json mean_at_cap(const json& runs, double cap, const char* key) {
  double sum = 0;
  int n = 0;
  for (const auto& r : runs) {
    if (!r["heldout_at_steps"].is_number()) continue;
    const json* at = nullptr;
    for (const auto& e : r["evals"])
      if (e["step"].get<double>() <= cap) at = &e;
    if (!at) continue;
    sum += (*at)[key].get<double>();
    ++n;
  }
  return n ? json(sum / n) : json(nullptr);
}

/// The mean held-out accuracy of the base model: every run's version-0 evaluation.
json base_accuracy(const json& strategies) {
  double sum = 0;
  int n = 0;
  for (const auto& st : strategies)
    for (const auto& r : st["runs"])
      if (!r["evals"].empty() && r["evals"][0]["version"].get<double>() == 0) {
        sum += r["evals"][0]["accuracy"].get<double>();
        ++n;
      }
  return n ? json(sum / n) : json(nullptr);
}

/// One strategy against the baseline: "0.452 at step 100, +0.011 [+0.006, +0.016]
/// (above) with 4.4x the samples; at 4800 samples -0.031 [-0.060, -0.002] (below)".
std::string against_baseline(const json& c, const json& st, const json& ref) {
  const json& s = st["summary"];
  const json& ref_runs = ref["runs"];
  std::string out;
  if (c["equal_steps"].is_number()) {
    const double cap = c["equal_steps"].get<double>();
    const json mine = mean_at_cap(st["runs"], cap, "cumulative_samples");
    const json base = mean_at_cap(ref_runs, cap, "cumulative_samples");
    out += num(s["heldout_at_steps"]["mean"], "%.3f") + " at step " + num(c["equal_steps"], "%.0f") +
           ", " + paired_text(s["paired_heldout_at_steps"]) + " (" +
           side_of(s["paired_heldout_at_steps"]) + ")";
    if (mine.is_number() && base.is_number() && base.get<double>() > 0)
      out += " with " + num(json(mine.get<double>() / base.get<double>()), "%.1f") +
             "x the samples";
    const json& zero = s["zero_gradient_share"]["mean"];
    const json& ref_zero = ref["summary"]["zero_gradient_share"]["mean"];
    if (zero.is_number() && ref_zero.is_number())
      out += ", no learning signal on " + num(json(100 * zero.get<double>()), "%.0f") +
             "% of its prompts against " + num(json(100 * ref_zero.get<double>()), "%.0f") + "%";
    out += "; ";
  }
  out += "at " + num(c["budget_samples"], "%.0f") + " samples " +
         paired_text(s["paired_heldout_at_samples"]) + " (" +
         side_of(s["paired_heldout_at_samples"]) + ")";
  // The optimizer updates behind the equal-samples reading (learner.updates_per_step).
  const json mine_updates = s.value("updates_at_samples", json::object()).value("median", json());
  const json ref_updates =
      ref["summary"].value("updates_at_samples", json::object()).value("median", json());
  if (mine_updates.is_number() && ref_updates.is_number() && mine_updates.get<double>() > 0 &&
      ref_updates.get<double>() > 0)
    out += " after " + num(mine_updates, "%.0f") + " optimizer updates against " +
           num(ref_updates, "%.0f");
  return out;
}

}  // namespace

size_t paired_seeds(const json& c) {
  const json strategies = c.value("strategies", json::array());
  const std::string baseline = c.value("baseline", std::string("?"));
  size_t seeds = 0;
  bool first = true;
  for (const auto& st : strategies) {
    if (st.value("name", "") == baseline) continue;
    for (const char* key : {"paired_heldout_at_steps", "paired_heldout_at_samples"}) {
      const json& p = st["summary"][key];
      const size_t n = p.is_object() ? p.value("n", size_t{0}) : 0;
      if (first || n < seeds) seeds = n;
      first = false;
    }
  }
  return seeds;
}

std::string compare_verdict(const json& c, const std::string& report) {
  const json strategies = c.value("strategies", json::array());
  const std::string baseline = c.value("baseline", std::string("?"));
  const json* ref = nullptr;
  for (const auto& st : strategies)
    if (st.value("name", "") == baseline) ref = &st;
  std::vector<const json*> others;
  for (const auto& st : strategies)
    if (st.value("name", "") != baseline) others.push_back(&st);
  if (!ref || others.empty()) return "The report: " + report + "\n";
  const json& rs = (*ref)["summary"];
  const size_t seeds = paired_seeds(c);
  std::string out = "In short (" + std::to_string(seeds) +
                    (seeds == 1 ? " seed" : " paired seeds, 95% intervals") + "): ";
  out += "held-out accuracy went from " + num(base_accuracy(strategies), "%.3f") +
         " (the base model) to ";
  if (c["equal_steps"].is_number())
    out += num(rs["heldout_at_steps"]["mean"], "%.3f") + " with " + baseline + " at step " +
           num(c["equal_steps"], "%.0f");
  else
    out += num(rs["heldout_at_samples"]["mean"], "%.3f") + " with " + baseline + " at " +
           num(c["budget_samples"], "%.0f") + " samples";
  if (others.size() == 1) {
    out += "; " + (*others[0]).value("name", std::string("?")) + " against it: " +
           against_baseline(c, *others[0], *ref) + ".\n";
  } else {
    out += ". Against " + baseline + " on the same seeds:\n";
    for (const json* st : others)
      out += "  " + st->value("name", std::string("?")) + ": " +
             against_baseline(c, *st, *ref) + "\n";
  }
  return out + "The report: " + report + "\n";
}

}  // namespace adarl
