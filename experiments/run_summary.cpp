#include "experiments/run_summary.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include <nlohmann/json.hpp>

namespace adarl {

namespace {

double number(const nlohmann::json& j, const char* key, double fallback = 0) {
  auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : fallback;
}

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string reward_line(const std::vector<nlohmann::json>& steps) {
  if (steps.empty()) return "no step trained";
  const size_t n = steps.size(), k = std::max<size_t>(1, (n + 9) / 10);
  double first = 0, last = 0;
  for (size_t i = 0; i < k; ++i) {
    first += number(steps[i], "real_reward");
    last += number(steps[n - 1 - i], "real_reward");
  }
  const std::string of = k == 1 ? "step" : std::to_string(k) + " steps";
  return fixed(first / double(k), 3) + " (first " + of + ") -> " + fixed(last / double(k), 3) +
         " (last " + of + ")";
}

std::string heldout_line(const std::vector<nlohmann::json>& evals) {
  bool greedy = false;
  for (const auto& e : evals) greedy = greedy || e.contains("greedy");
  const char* key = greedy ? "greedy" : "sampled";
  std::map<uint64_t, double> by_version;  // the latest line of a version wins (a resume)
  for (const auto& e : evals)
    if (e.contains(key) && e.contains("version") && e["version"].is_number_integer() &&
        e["version"].get<int64_t>() >= 0)
      by_version[e["version"].get<uint64_t>()] = number(e, key);
  if (by_version.empty()) return "no evaluation";
  auto best = by_version.begin();
  for (auto it = by_version.begin(); it != by_version.end(); ++it)
    if (it->second > best->second) best = it;
  auto at = [](const std::pair<const uint64_t, double>& p) {
    return fixed(p.second, 3) + " (version " + std::to_string(p.first) + ")";
  };
  return std::string(key) + " " + at(*by_version.begin()) + " first, " + at(*best) + " best, " +
         at(*by_version.rbegin()) + " last";
}

std::string spent_line(const run_summary_input& in) {
  std::string s;
  if (!in.steps.empty()) {
    const auto& last = in.steps.back();
    s = std::to_string(last.value("cumulative_samples", uint64_t(0))) + " samples, " +
        std::to_string(last.value("cumulative_tokens", uint64_t(0))) + " tokens; " +
        duration_text(number(last, "elapsed")) + " of RL, ";
  }
  return s + duration_text(in.wall_seconds) + " in all";
}

/// A warning when the policy collapsed over the last tenth of the steps: the token
/// entropy near 0 and no reward (it writes one thing, always wrong); else "".
std::string collapse_line(const std::vector<nlohmann::json>& steps) {
  if (steps.size() < 10) return "";
  const size_t n = steps.size(), k = std::max<size_t>(1, n / 10);
  double entropy = 0, reward = 0;
  for (size_t i = n - k; i < n; ++i) {
    entropy += number(steps[i], "entropy", 1);
    reward += number(steps[i], "real_reward", 1);
  }
  entropy /= double(k);
  reward /= double(k);
  if (entropy >= 0.01 || reward > 0) return "";
  return "\n  warning      the policy collapsed: over the last " + std::to_string(k) +
         " steps its entropy is " + fixed(entropy, 4) + " nats per token and no sample was "
         "rewarded (lower learner.lr, or start from a better warm start)";
}

/// The broken-set-up reasons above their share over the whole run, one line each.
std::string warning_lines(const run_summary_input& in) {
  reason_watch watch(in.alarm);
  for (const auto& step : in.steps) {
    std::vector<std::pair<std::string, uint32_t>> zeros;
    if (auto it = step.find("zero_reward_reasons"); it != step.end() && it->is_object())
      for (const auto& [reason, n] : it->items())
        if (n.is_number_integer() && n.get<int64_t>() >= 0)
          zeros.emplace_back(reason, n.get<uint32_t>());
    watch.add(zeros, step.value("samples", uint64_t(0)));
  }
  std::string s;
  uint64_t nonfinite = 0, empty = 0;
  for (const auto& step : in.steps) {
    nonfinite += step.contains("nonfinite") ? 1 : 0;
    const auto exits = step.find("exits");
    const bool skipped = exits != step.end() && exits->is_object() &&
                         number(*exits, "skipped") > 0;
    empty += skipped && number(step, "samples") == 0 ? 1 : 0;
  }
  if (nonfinite > 0)
    s += "\n  warning      " + std::to_string(nonfinite) + " of " +
         std::to_string(in.steps.size()) +
         " steps had a non-finite loss or gradient: their updates were not applied "
         "(metrics.jsonl \"nonfinite\")";
  if (empty > 0)
    s += "\n  warning      " + std::to_string(empty) + " of " + std::to_string(in.steps.size()) +
         " steps drew no sample: the strategy skipped every prompt (exits.skipped), so "
         "they trained nothing";
  s += collapse_line(in.steps);
  for (const auto& r : watch.over())
    s += "\n  warning      " + std::to_string(r.count) + " of " + std::to_string(r.samples) +
         " rewards (" + fixed(100.0 * r.share(), 1) + "%) were 0 with reason " + r.reason +
         ", above metrics.alarm_share " + fixed(100.0 * in.alarm.share, 1) +
         "%: check the references and tests (adarl tasks check FILE)";
  return s;
}

}  // namespace

std::string duration_text(double seconds) {
  if (!(seconds >= 0)) seconds = 0;
  if (seconds < 60) return fixed(seconds, 1) + " s";
  const auto whole = static_cast<uint64_t>(std::llround(seconds));
  char buf[64];
  if (whole < 3600)
    std::snprintf(buf, sizeof buf, "%llum%02llus", (unsigned long long)(whole / 60),
                  (unsigned long long)(whole % 60));
  else
    std::snprintf(buf, sizeof buf, "%lluh%02llum", (unsigned long long)(whole / 3600),
                  (unsigned long long)(whole / 60 % 60));
  return buf;
}

std::string run_summary(const run_summary_input& in) {
  std::string files;
  for (const auto& f : in.files) files += " " + f;
  return "  real_reward  " + reward_line(in.steps) + "\n  held-out     " +
         heldout_line(in.evals) + "\n  spent        " + spent_line(in) + "\n  files        " +
         in.out + ":" + (files.empty() ? " (none)" : files) + warning_lines(in);
}

}  // namespace adarl
