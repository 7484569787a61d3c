#include "experiments/run_summary.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <utility>

#include <nlohmann/json.hpp>

namespace adarl {

namespace {

using json = nlohmann::json;

/// The number at `key` of an object; `fallback` when it is absent, null or not a number.
double number(const json& j, const char* key, double fallback = 0) {
  if (!j.is_object()) return fallback;
  auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : fallback;
}

/// The object at `key`; null when it is absent or not an object.
const json& object_at(const json& j, const char* key) {
  static const json none;
  if (!j.is_object()) return none;
  auto it = j.find(key);
  return it != j.end() && it->is_object() ? *it : none;
}

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string count(double v) { return fixed(v, 0); }

std::string reward_line(const json& facts) {
  const json& t = object_at(facts, "tenths");
  if (t.is_null()) return "no step trained";
  const double k = number(t, "steps", 1);
  const std::string of = k == 1 ? "step" : count(k) + " steps";
  return fixed(number(t, "reward_first"), 3) + " (first " + of + ") -> " +
         fixed(number(t, "reward_last"), 3) + " (last " + of + ")";
}

std::string heldout_line(const json& facts) {
  const json& h = object_at(facts, "heldout");
  const auto metric = facts.is_object() ? facts.find("heldout_metric") : facts.end();
  if (h.is_null() || metric == facts.end() || !metric->is_string())
    return "no evaluation";
  auto at = [&](const char* which) {
    const json& e = object_at(h, which);
    return fixed(number(e, "accuracy"), 3) + " (version " + count(number(e, "version")) +
           ")";
  };
  return metric->get<std::string>() + " " + at("first") + " first, " + at("best") +
         " best, " + at("last") + " last";
}

std::string spent_line(const json& facts, double wall_seconds) {
  std::string s;
  const json& t = object_at(facts, "totals");
  if (number(t, "steps") > 0)
    s = count(number(t, "samples")) + " samples, " + count(number(t, "tokens")) +
        " tokens; " + duration_text(number(t, "seconds")) + " of RL, ";
  return s + duration_text(wall_seconds) + " in all";
}

/// A warning when the policy collapsed over the last tenth of at least 10 steps: the
/// token entropy near 0 and no reward (it writes one thing, always wrong); else "".
std::string collapse_line(const json& facts) {
  const json& t = object_at(facts, "tenths");
  if (number(object_at(facts, "totals"), "steps") < 10 || t.is_null()) return "";
  const double entropy = number(t, "entropy_last", 1), reward = number(t, "reward_last");
  if (entropy >= 0.01 || reward > 0) return "";
  return "\n  warning      the policy collapsed: over the last " +
         count(number(t, "steps")) + " steps its entropy is " + fixed(entropy, 4) +
         " nats per token and no sample was rewarded (lower learner.lr, or start from a "
         "better warm start)";
}

/// A warning when the policy lost the answer format over the run (at least 10 steps):
/// over the last tenth at least a quarter of the samples scored 0 without a readable
/// answer, at least 0.15 more than over the first tenth and at least twice its share
/// (completions that run on past their answer, or end without one); else "".
std::string format_line(const json& facts) {
  const json& t = object_at(facts, "tenths");
  if (number(object_at(facts, "totals"), "steps") < 10 || t.is_null()) return "";
  const double first = number(t, "format_failures_first", -1),
               last = number(t, "format_failures_last", -1);
  if (first < 0 || last < 0.25 || last - first < 0.15 || last < 2 * first) return "";
  const std::string of = count(number(t, "steps")) + " steps";
  std::string s = "\n  warning      the completions lost their answer format: " +
                  fixed(100.0 * last, 1) + "% of the samples of the last " + of +
                  " scored 0 without a readable answer (no_answer, unparsable, "
                  "too_long), against " +
                  fixed(100.0 * first, 1) + "% of the first " + of;
  const double tokens_first = number(t, "tokens_per_sample_first", -1),
               tokens_last = number(t, "tokens_per_sample_last", -1);
  if (tokens_first >= 0 && tokens_last >= 0)
    s += "; completions went from " + fixed(tokens_first, 1) + " to " +
         fixed(tokens_last, 1) + " tokens";
  return s + " (lower learner.lr; metrics.jsonl zero_reward_reasons by step)";
}

/// The broken-set-up reasons above their share over the whole run, one line each.
std::string alarm_lines(const json& facts, const reason_watch_config& alarm) {
  const json& z = object_at(facts, "zero_rewards");
  std::vector<std::pair<std::string, uint32_t>> zeros;
  if (const auto r = z.is_object() ? z.find("reasons") : z.end();
      r != z.end() && r->is_array())
    for (const json& reason : *r) {
      const double n = number(reason, "count", -1);
      if (n >= 0 && n <= double(UINT32_MAX) && reason.value("reason", json()).is_string())
        zeros.emplace_back(reason["reason"].get<std::string>(), uint32_t(n));
    }
  reason_watch watch(alarm);
  watch.add(zeros, uint64_t(std::max(0.0, number(z, "samples"))));
  std::string s;
  for (const auto& r : watch.over())
    s += "\n  warning      " + std::to_string(r.count) + " of " + std::to_string(r.samples) +
         " rewards (" + fixed(100.0 * r.share(), 1) + "%) were 0 with reason " + r.reason +
         ", above metrics.alarm_share " + fixed(100.0 * alarm.share, 1) +
         "%: check the references and tests (adarl tasks check FILE)";
  return s;
}

/// A warning when a step's log-prob gap passed learner.logprob_tolerance; else "".
std::string gap_line(const json& facts, double tolerance) {
  const json& g = object_at(facts, "logprob_gap");
  if (tolerance <= 0 || !g.is_object() || !(number(g, "max") > tolerance)) return "";
  return "\n  warning      the generators' log-probs differ from the learner's: " +
         fixed(number(g, "mean"), 4) + " nats per token on average, " +
         fixed(number(g, "max"), 4) + " in the worst step (learner.logprob_tolerance " +
         fixed(tolerance, 4) + "): the samples were not drawn from the distribution the "
         "importance ratio assumes (metrics.jsonl logprob_gap; docs/guides/engines.md)";
}

std::string warning_lines(const json& facts, const reason_watch_config& alarm) {
  std::string s;
  const std::string steps = count(number(object_at(facts, "totals"), "steps"));
  if (const double n = number(facts, "nonfinite_steps"); n > 0)
    s += "\n  warning      " + count(n) + " of " + steps +
         " steps had a non-finite loss or gradient: their updates were not applied "
         "(metrics.jsonl \"nonfinite\")";
  if (const double n = number(facts, "empty_steps"); n > 0)
    s += "\n  warning      " + count(n) + " of " + steps +
         " steps drew no sample: the strategy skipped every prompt (exits.skipped), so "
         "they trained nothing";
  return s + collapse_line(facts) + format_line(facts) + alarm_lines(facts, alarm);
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

std::string run_summary(const nlohmann::json& facts, const run_summary_input& in) {
  std::string files;
  for (const auto& f : in.files) files += " " + f;
  return "  real_reward  " + reward_line(facts) + "\n  held-out     " +
         heldout_line(facts) + "\n  spent        " + spent_line(facts, in.wall_seconds) +
         "\n  files        " + in.out + ":" + (files.empty() ? " (none)" : files) +
         warning_lines(facts, in.alarm) + gap_line(facts, in.logprob_tolerance);
}

}  // namespace adarl
