// write_replay(): the JSONL a replay prints.
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <ostream>

#include "experiments/replay.hpp"

namespace adarl {
namespace {

using ordered_json = nlohmann::ordered_json;

/// A float as a double with the float's shortest decimal form, so that 1 - 1/3 prints
/// as 0.6666666 rather than 0.6666666865348816.
double tidy(float f) {
  char buf[32];
  const auto end = std::to_chars(buf, buf + sizeof buf - 1, f).ptr;
  *end = '\0';
  return std::strtod(buf, nullptr);
}

/// A logged reward as the log would write it: integers without a fraction.
ordered_json logged(double r) {
  if (std::floor(r) == r && std::fabs(r) < 9.0e15) return static_cast<int64_t>(r);
  return r;
}

ordered_json tidy_all(const std::vector<float>& values) {
  ordered_json out = ordered_json::array();
  for (float v : values) out.push_back(tidy(v));
  return out;
}

ordered_json group_line(const replay_group& rg) {
  const auto& g = rg.group;
  ordered_json j;
  j["id"] = rg.id;
  j["samples_used"] = g.samples_used;
  j["rounds"] = g.rounds;
  j["exit"] = exit_name(g.exit);
  if (is_fallback(g.exit))
    j["fallback_reason"] = g.exit == exit_kind::fallback_missing_positives
                               ? "missing_positives"
                               : "missing_negatives";
  // A dropped group (DAPO) is not trained on: nothing of it is kept.
  const bool kept = g.trainable();
  j["kept"] = kept ? ordered_json(g.kept) : ordered_json::array();
  ordered_json rewards = ordered_json::array();
  if (kept)
    for (double r : rg.logged_rewards) rewards.push_back(logged(r));
  j["rewards"] = rewards;
  j["advantages"] = kept ? tidy_all(g.advantages) : ordered_json::array();
  j["baseline"] = tidy(g.baseline);
  j["weight"] = tidy(g.weight);
  j["positives"] = g.positives;
  return j;
}

ordered_json summary_object(const replay_report& r) {
  const auto& s = r.summary;
  ordered_json j;
  j["strategy"] = strategy_name(r.config.kind);
  j["prompts"] = s.prompts;
  j["samples"] = r.spent.samples;
  j["tokens"] = r.spent.tokens;
  j["kept_samples"] = s.kept_samples;
  j["trainable"] = s.trainable;
  j["zero_gradient_fraction"] = s.zero_gradient_fraction();
  j["real_reward"] = tidy(static_cast<float>(s.real_reward()));
  j["mean_samples_per_prompt"] = s.mean_samples_per_prompt();
  j["max_samples"] = s.max_samples;
  ordered_json exits = ordered_json::object();
  for (size_t e = 0; e < s.exits.size(); ++e)
    if (s.exits[e] > 0) exits[std::string(exit_key(static_cast<exit_kind>(e)))] = s.exits[e];
  j["exits"] = exits;
  ordered_json rounds = ordered_json::object();
  for (size_t n = 0; n < s.rounds.size(); ++n)
    if (s.rounds[n] > 0) rounds[std::to_string(n)] = s.rounds[n];
  j["rounds_histogram"] = rounds;
  if (r.config.kind == strategy_kind::dapo) j["unused_prompts"] = r.unused_prompts;
  return j;
}

}  // namespace

void write_replay(const replay_report& report, std::ostream& out) {
  for (const auto& g : report.groups) out << group_line(g).dump() << '\n';
  ordered_json summary;
  summary["summary"] = summary_object(report);
  out << summary.dump() << '\n';
}

}  // namespace adarl
