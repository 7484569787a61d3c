#include "report/run_facts.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "algorithms/answer_format.hpp"
#include "algorithms/convergence.hpp"
#include "algorithms/paired_stats.hpp"
#include "algorithms/step_summary.hpp"

namespace adarl {

namespace {

using json = nlohmann::json;
using opt = std::optional<double>;

constexpr size_t rate_bins = step_summary::rate_bins;  ///< Bins of samples_by_pass_rate.

double num(const json& j, const char* key, double fallback = 0) {
  const auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : fallback;
}

opt maybe(const json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_number() ? opt(it->get<double>()) : std::nullopt;
}

json to_json(opt v) {
  return v ? json(*v) : json(nullptr);
}

double share(double part, double whole) {
  return whole > 0 ? part / whole : 0.0;
}

/// A step's rounds histogram read as samples: prompts using r rounds drew r rounds of
/// samples each (samples / rounds drawn per round), and the prompts that never exited
/// drew the most rounds of the step; exit_samples, where the line has it, gives their
/// samples exactly.
struct round_use {
  std::vector<double> prompts;  ///< prompts[r] = prompts that used r rounds.
  double units = 0;             ///< Rounds drawn, all prompts.
  double samples = 0;           ///< The step's samples, when it has rounds.
  double never_prompts = 0, never_samples = 0, round1_samples = 0;
};

/// The fallback exit kinds' counts in `group` (a line's exits or exit_samples); nullopt
/// when the line has no such object.
std::optional<double> never_count(const json& line, const char* group) {
  const auto e = line.find(group);
  if (e == line.end() || !e->is_object()) return std::nullopt;
  double n = 0;
  for (exit_kind k : {exit_kind::fallback_missing_positives, exit_kind::fallback_missing_negatives})
    n += num(*e, std::string(exit_key(k)).c_str());
  return n;
}

round_use rounds_of(const json& line) {
  round_use u;
  if (const auto r = line.find("rounds"); r != line.end() && r->is_array())
    for (const auto& v : *r) u.prompts.push_back(v.is_number() ? v.get<double>() : 0.0);
  double most = 0;
  for (size_t r = 0; r < u.prompts.size(); ++r) {
    u.units += double(r) * u.prompts[r];
    if (u.prompts[r] > 0) most = double(r);
  }
  if (u.units <= 0) return u;
  u.samples = num(line, "samples");
  const double per_round = u.samples / u.units;
  u.never_prompts = never_count(line, "exits").value_or(0);
  u.never_samples =
      never_count(line, "exit_samples").value_or(u.never_prompts * most * per_round);
  u.round1_samples = u.prompts.size() > 1 ? u.prompts[1] * per_round : 0.0;
  return u;
}

/// Sums over the steps.
struct run_sums {
  std::vector<double> rounds;
  std::map<std::string, double> exits;
  double units = 0, round_samples = 0, never_prompts = 0, never_samples = 0,
         round1_samples = 0;
  std::array<double, rate_bins> bin_prompts{}, bin_samples{};
  /// The prior's reliability bins: sums of predictions and successes, and samples.
  std::array<double, rate_bins> rel_predicted{}, rel_observed{}, rel_samples{};
  std::map<std::string, double> zero;
  bool zero_recorded = false;
  double samples = 0, prompts = 0, time_step = 0;
  size_t timed_steps = 0;
  size_t nonfinite_steps = 0, empty_steps = 0;
  /// The log-prob gap: sum of gap x tokens, the tokens, the largest step's gap.
  double gap_sum = 0, gap_tokens = 0, gap_max = 0;
  /// Per line: its samples that scored 0 without a readable answer; nullopt when the
  /// line lacks zero_reward_reasons (the tenths pool them).
  std::vector<opt> format_failures;
  /// Learner and pipeline diagnostics: per key of diagnostic_keys, the sum over the
  /// lines that have it and their count.
  std::map<std::string, std::pair<double, size_t>> diagnostics;
  /// The per-prompt visits of the lines that record them (metrics.jsonl "visits"):
  /// drawn and skipped visits, drawn visits whose pool was mixed (some right, some
  /// wrong), and the samples of drawn visits that came back all wrong or all right.
  double visits = 0, skipped_visits = 0, mixed_visits = 0;
  double visit_samples = 0, all_wrong_samples = 0, all_right_samples = 0;
};

/// The per-step numbers kept with a run's results so that a difference can be explained
/// from the record: their means over the lines that have them (`diagnostics`).
constexpr const char* diagnostic_keys[] = {"grad_norm", "clip_fraction", "entropy", "lag_mean",
                                           "updates"};

/// Adds the line's per-prompt visits, when it has them: a visit of 0 samples was skipped.
void add_visits(const json& line, run_sums& s) {
  const auto v = line.find("visits");
  if (v == line.end() || !v->is_object()) return;
  const json& n = v->value("samples", json::array());
  const json& k = v->value("positives", json::array());
  for (size_t i = 0; n.is_array() && k.is_array() && i < n.size() && i < k.size(); ++i) {
    const double samples = n[i].is_number() ? n[i].get<double>() : 0;
    const double right = k[i].is_number() ? k[i].get<double>() : 0;
    if (samples == 0) {
      ++s.skipped_visits;
      continue;
    }
    ++s.visits;
    s.visit_samples += samples;
    if (right == 0)
      s.all_wrong_samples += samples;
    else if (right >= samples)
      s.all_right_samples += samples;
    else
      ++s.mixed_visits;
  }
}

void add_bins(const json& line, run_sums& s) {
  const auto b = line.find("samples_by_pass_rate");
  if (b == line.end() || !b->is_object()) return;
  const json& p = b->value("prompts", json::array());
  const json& n = b->value("samples", json::array());
  for (size_t i = 0;
       p.is_array() && n.is_array() && i < p.size() && i < n.size() && i < rate_bins;
       ++i) {
    s.bin_prompts[i] += p[i].is_number() ? p[i].get<double>() : 0.0;
    s.bin_samples[i] += n[i].is_number() ? n[i].get<double>() : 0.0;
  }
}

// A step line's reliability bins, [mean predicted, mean observed, samples] for each
// non-empty bin of predicted p (step_summary's tenths): summed by the bin the mean
// prediction falls in.
void add_reliability(const json& line, run_sums& s) {
  const auto r = line.find("reliability");
  if (r == line.end() || !r->is_array()) return;
  for (const auto& b : *r) {
    if (!b.is_array() || b.size() != 3 || !b[0].is_number() || !b[1].is_number() ||
        !b[2].is_number())
      continue;
    const double p = std::clamp(b[0].get<double>(), 0.0, 1.0), n = b[2].get<double>();
    const size_t i = std::min(rate_bins - 1, static_cast<size_t>(p * double(rate_bins)));
    s.rel_predicted[i] += p * n;
    s.rel_observed[i] += b[1].get<double>() * n;
    s.rel_samples[i] += n;
  }
}

void add_counts(const json& line, run_sums& s) {
  if (const auto e = line.find("exits"); e != line.end() && e->is_object())
    for (const std::string_view v : exit_keys) {
      const std::string k(v);
      s.exits[k] += num(*e, k.c_str());
    }
  opt format;  // the line's format failures, when it has its reasons
  if (const auto z = line.find("zero_reward_reasons");
      z != line.end() && z->is_object()) {
    s.zero_recorded = true;
    format = 0.0;
    for (const auto& [reason, count] : z->items())
      if (count.is_number()) {
        s.zero[reason] += count.get<double>();
        if (is_format_failure(reason)) *format += count.get<double>();
      }
  }
  s.format_failures.push_back(format);
  for (const char* key : diagnostic_keys)
    if (const opt x = maybe(line, key)) {
      auto& [sum, count] = s.diagnostics[key];
      sum += *x;
      ++count;
    }
  add_visits(line, s);
  add_bins(line, s);
  add_reliability(line, s);
  s.samples += num(line, "samples");
  s.prompts += num(line, "prompts");
  s.nonfinite_steps += line.contains("nonfinite") ? 1 : 0;
  if (const double n = num(line, "logprob_gap_tokens"); n > 0) {
    const double gap = num(line, "logprob_gap");
    s.gap_sum += gap * n;
    s.gap_tokens += n;
    s.gap_max = std::max(s.gap_max, gap);
  }
  const auto e = line.find("exits");
  const bool skipped = e != line.end() && e->is_object() && num(*e, "skipped") > 0;
  s.empty_steps += skipped && num(line, "samples") == 0 ? 1 : 0;
  if (const opt t = maybe(line, "time_step")) {
    s.time_step += *t;
    ++s.timed_steps;
  }
}

json step_row(const json& l, run_sums& s) {
  const round_use u = rounds_of(l);
  if (s.rounds.size() < u.prompts.size()) s.rounds.resize(u.prompts.size(), 0.0);
  double counted = 0;
  for (size_t r = 0; r < u.prompts.size(); ++r) {
    s.rounds[r] += u.prompts[r];
    counted += u.prompts[r];
  }
  s.units += u.units;
  s.round_samples += u.samples;
  s.never_prompts += u.never_prompts;
  s.never_samples += never_exited_samples(l);
  s.round1_samples += u.round1_samples;
  add_counts(l, s);
  const bool seq = u.units > 0;
  json row = {{"step", num(l, "policy_version", num(l, "step"))}};
  for (const char* k : {"samples", "prompts", "cumulative_samples", "cumulative_tokens",
                        "elapsed", "real_reward", "zero_gradient_fraction",
                        "samples_per_prompt_mean", "samples_per_prompt_max"})
    row[k] = num(l, k);
  for (const char* k : {"time_step", "time_generation", "time_train", "prior_brier"})
    row[k] = to_json(maybe(l, k));
  row["rounds_mean"] = seq ? json(u.units / counted) : json(nullptr);
  row["never_exited_share"] =
      seq ? json(share(u.never_samples, u.samples)) : json(nullptr);
  row["round1_share"] = seq ? json(share(u.round1_samples, u.samples)) : json(nullptr);
  return row;
}

/// The decisions of the whole run: exits, rounds, pass-rate bins, zero rewards.
void add_sums(const run_sums& s, json& out) {
  json exits = json::object();
  for (const std::string_view v : exit_keys) {
    const std::string k(v);
    exits[k] = s.exits.count(k) ? s.exits.at(k) : 0.0;
  }
  out["exits"] = exits;
  out["rounds"] = s.rounds;
  json by_rounds = json::array();
  for (size_t r = 0; r < s.rounds.size(); ++r)
    by_rounds.push_back(share(double(r) * s.rounds[r], s.units));
  out["rounds_samples"] = by_rounds;
  out["never_exited"] = {{"prompts", s.never_prompts},
                         {"samples", s.never_samples},
                         {"samples_share", share(s.never_samples, s.samples)}};
  out["round1"] = {{"prompts", s.rounds.size() > 1 ? s.rounds[1] : 0.0},
                   {"samples_share", share(s.round1_samples, s.round_samples)}};
  out["pass_rate_bins"] = {{"prompts", s.bin_prompts}, {"samples", s.bin_samples}};
  json reliability = json::array();
  for (size_t i = 0; i < rate_bins; ++i)
    if (s.rel_samples[i] > 0)
      reliability.push_back({{"bin", i},
                             {"predicted", s.rel_predicted[i] / s.rel_samples[i]},
                             {"observed", s.rel_observed[i] / s.rel_samples[i]},
                             {"samples", s.rel_samples[i]}});
  out["reliability"] = reliability;
  const auto part = [](double p, double whole) {
    return whole > 0 ? json(p / whole) : json(nullptr);
  };
  json diagnostics = json::object();
  for (const char* key : diagnostic_keys) {
    const auto it = s.diagnostics.find(key);
    diagnostics[key] =
        it == s.diagnostics.end() ? json(nullptr) : part(it->second.first, double(it->second.second));
  }
  out["diagnostics"] = std::move(diagnostics);
  out["visits"] = {{"drawn", s.visits},
                   {"skipped", s.skipped_visits},
                   {"mixed_share", part(s.mixed_visits, s.visits)},
                   {"skipped_share", part(s.skipped_visits, s.visits + s.skipped_visits)},
                   {"all_wrong_samples_share", part(s.all_wrong_samples, s.visit_samples)},
                   {"all_right_samples_share", part(s.all_right_samples, s.visit_samples)}};
  out["nonfinite_steps"] = s.nonfinite_steps;
  out["empty_steps"] = s.empty_steps;
  // Null when no step had a fresh sample to measure it on (docs/guides/engines.md).
  out["logprob_gap"] = s.gap_tokens > 0 ? json{{"mean", s.gap_sum / s.gap_tokens},
                                               {"max", s.gap_max},
                                               {"tokens", s.gap_tokens}}
                                        : json(nullptr);
  double total = 0;
  std::vector<std::pair<std::string, double>> reasons(s.zero.begin(), s.zero.end());
  for (const auto& r : reasons) total += r.second;
  std::stable_sort(reasons.begin(), reasons.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  json list = json::array();
  for (const auto& [reason, count] : reasons)
    list.push_back(
        {{"reason", reason}, {"count", count}, {"share", share(count, total)}});
  out["zero_rewards"] = {{"recorded", s.zero_recorded},
                         {"total", total},
                         {"samples", s.samples},
                         {"samples_share", share(total, s.samples)},
                         {"reasons", std::move(list)}};
}

/// Means over the first and the last tenth of the steps; `lines` are the step lines
/// the rows came from (the entropy is not a row's), `s` their sums (each line's format
/// failures).
json tenths(const json& rows, const std::vector<json>& lines, const run_sums& s) {
  if (rows.empty()) return nullptr;
  const size_t n = rows.size(), w = std::max<size_t>(1, n / 10);
  const auto mean = [&](size_t from, const char* key) {
    double sum = 0;
    for (size_t i = from; i < from + w; ++i) sum += rows.at(i).at(key).get<double>();
    return sum / double(w);
  };
  opt entropy = 0.0;
  for (size_t i = n - w; i < n && entropy; ++i)
    if (const opt e = maybe(lines.at(i), "entropy"))
      *entropy += *e / double(w);
    else
      entropy.reset();
  // Pooled over the tenth's samples: the share that scored 0 without a readable answer
  // (null when a line lacks its reasons or the tenth drew nothing), and the tokens per
  // completion (null when it drew nothing).
  const auto pooled = [&](size_t from) {
    double samples = 0, tokens = 0, format = 0;
    bool reasons = true;
    for (size_t i = from; i < from + w; ++i) {
      const json& l = lines.at(i);
      samples += num(l, "samples");
      tokens += num(l, "tokens");
      if (const opt f = s.format_failures.at(i))
        format += *f;
      else
        reasons = false;
    }
    const bool drew = samples > 0;
    return std::pair{to_json(reasons && drew ? opt(format / samples) : std::nullopt),
                     to_json(drew ? opt(tokens / samples) : std::nullopt)};
  };
  auto [format_first, tokens_first] = pooled(0);
  auto [format_last, tokens_last] = pooled(n - w);
  return {{"steps", w},
          {"reward_first", mean(0, "real_reward")},
          {"reward_last", mean(n - w, "real_reward")},
          {"zero_grad_first", mean(0, "zero_gradient_fraction")},
          {"zero_grad_last", mean(n - w, "zero_gradient_fraction")},
          {"entropy_last", to_json(entropy)},
          {"format_failures_first", std::move(format_first)},
          {"format_failures_last", std::move(format_last)},
          {"tokens_per_sample_first", std::move(tokens_first)},
          {"tokens_per_sample_last", std::move(tokens_last)}};
}

/// The metric the page shows: the one asked for, else the one the evaluations have.
json pick_metric(const std::vector<json>& evals, const std::string& wanted) {
  const std::string other = wanted == "greedy" ? "sampled" : "greedy";
  for (const auto& m : {wanted, other})
    for (const auto& e : evals)
      if (maybe(e, m.c_str())) return m;
  return nullptr;
}

std::vector<std::optional<double>> prompt_values(const json& e,
                                                 const std::string& metric) {
  std::vector<std::optional<double>> v;
  const auto it = e.find("prompt_" + metric);
  if (it == e.end() || !it->is_array()) return v;
  for (const auto& x : *it)
    v.push_back(x.is_number() ? opt(x.get<double>()) : std::nullopt);
  return v;
}

json at(const json& e) {
  return {{"version", e.at("version")}, {"accuracy", e.at("accuracy")}};
}

/// First, last and best evaluation, and the change with its paired interval; `raw`
/// are the evaluations the rows came from, in the same order.
json heldout_change(const json& rows, const std::vector<json>& raw,
                    const std::string& metric) {
  if (rows.empty()) return nullptr;
  const json* best = &rows.front();
  for (const auto& e : rows)
    if (e.at("accuracy").get<double>() > (*best).at("accuracy").get<double>()) best = &e;
  const json& first = rows.front();
  const json& last = rows.back();
  json h = {
      {"first", at(first)},
      {"last", at(last)},
      {"best", at(*best)},
      {"change", last.at("accuracy").get<double>() - first.at("accuracy").get<double>()},
      {"low", nullptr},
      {"high", nullptr},
      {"prompts", nullptr}};
  const auto a = prompt_values(raw.back(), metric),
             b = prompt_values(raw.front(), metric);
  if (rows.size() < 2 || a.size() != b.size() || a.size() < 2) return h;
  const paired_summary p = paired_differences(a, b);
  h["low"] = to_json(p.low);
  h["high"] = to_json(p.high);
  h["prompts"] = p.n;
  return h;
}

/// Where a run stood after v steps (version v): cumulative samples and elapsed seconds.
using standing = std::map<double, std::pair<double, double>>;

json eval_rows(const std::vector<json>& evals, const std::string& metric,
               const standing& at_version) {
  const std::string other = metric == "greedy" ? "sampled" : "greedy";
  json rows = json::array();
  for (const auto& e : evals) {
    const opt acc = maybe(e, metric.c_str());
    const double v = num(e, "version");
    const auto it = at_version.find(v);
    rows.push_back(
        {{"version", v},
         {"accuracy", acc.value_or(0.0)},
         {"other", to_json(maybe(e, other.c_str()))},
         {"prompts", to_json(maybe(e, "prompts"))},
         {"cumulative_samples", it == at_version.end() ? json() : json(it->second.first)},
         {"elapsed", it == at_version.end() ? json() : json(it->second.second)}});
  }
  return rows;
}

json reach_at(const json& row, const char* step_key) {
  return {{"reached", true},
          {"step", row.at(step_key)},
          {"samples", row.at("cumulative_samples")},
          {"seconds", row.at("elapsed")}};
}

/// The first evaluation at the held-out target, the first step whose trailing mean
/// reward is at the reward target.
json reach(const json& out, const run_report_options& o) {
  json r = {{"heldout", nullptr}, {"real_reward", nullptr}};
  if (o.target_heldout >= 0) {
    r["heldout"] = json::object({{"reached", false}});
    for (const auto& e : out.at("evals"))
      if (e.at("accuracy").get<double>() >= o.target_heldout) {
        r["heldout"] = reach_at(e, "version");
        break;
      }
  }
  if (o.target_reward >= 0) {
    std::vector<double> y;
    for (const auto& s : out.at("steps")) y.push_back(s.at("real_reward").get<double>());
    const auto m = moving_average(y, o.smooth);
    r["real_reward"] = json::object({{"reached", false}});
    for (size_t i = 0; i < m.size(); ++i)
      if (m[i] >= o.target_reward) {
        r.at("real_reward") = reach_at(out.at("steps").at(i), "step");
        break;
      }
  }
  return r;
}

json totals(const json& rows, const run_sums& s) {
  const double n = double(rows.size());
  const json& last = rows.empty() ? json::object() : rows.back();
  return {{"steps", rows.size()},
          {"samples", last.value("cumulative_samples", 0.0)},
          {"tokens", last.value("cumulative_tokens", 0.0)},
          {"seconds", last.value("elapsed", 0.0)},
          {"prompts", s.prompts},
          {"samples_per_step", n > 0 ? json(s.samples / n) : json(nullptr)},
          {"seconds_per_step",
           s.timed_steps ? json(s.time_step / double(s.timed_steps)) : json(nullptr)}};
}

}  // namespace

json run_facts(const std::vector<json>& steps, std::vector<json> evals,
               const run_report_options& o) {
  std::stable_sort(evals.begin(), evals.end(), [](const json& a, const json& b) {
    return num(a, "version") < num(b, "version");
  });
  json out;
  run_sums sums;
  json rows = json::array();
  standing at_version{{0.0, {0.0, 0.0}}};
  for (const auto& l : steps) {
    rows.push_back(step_row(l, sums));
    const json& r = rows.back();
    at_version[r.at("step").get<double>()] = {r.at("cumulative_samples").get<double>(),
                                              r.at("elapsed").get<double>()};
  }
  const json metric = pick_metric(evals, o.metric);
  out["heldout_metric"] = metric;
  out["evals"] = json::array();
  out["heldout"] = nullptr;
  if (!metric.is_null()) {
    const std::string m = metric.get<std::string>();
    std::erase_if(evals, [&](const json& e) { return !maybe(e, m.c_str()); });
    out["evals"] = eval_rows(evals, m, at_version);
    out["heldout"] = heldout_change(out["evals"], evals, m);
  }
  out["targets"] = {
      {"heldout", o.target_heldout >= 0 ? json(o.target_heldout) : json(nullptr)},
      {"real_reward", o.target_reward >= 0 ? json(o.target_reward) : json(nullptr)}};
  out["smooth"] = std::max<uint32_t>(1, o.smooth);
  out["totals"] = totals(rows, sums);
  out["tenths"] = tenths(rows, steps, sums);
  out["steps"] = std::move(rows);
  out["reach"] = reach(out, o);
  add_sums(sums, out);
  return out;
}

double never_exited_samples(const json& line) {
  if (auto exact = never_count(line, "exit_samples")) return *exact;
  if (const round_use u = rounds_of(line); u.units > 0) return u.never_samples;
  return never_count(line, "exits").value_or(0) * num(line, "samples_per_prompt_max");
}

std::string run_strategy_kind(const json& config, const json& exits) {
  if (config.is_object())
    if (const auto k = config.find("strategy.kind"); k != config.end() && k->is_string())
      return k->get<std::string>();
  const auto n = [&](const char* k) { return num(exits, k); };
  if (n("pos") + n("balance") + n("fallback_missing_positives") +
          n("fallback_missing_negatives") >
      0)
    return "ada-seq";
  if (n("allocated") > 0) return "ada-est";
  if (n("dropped") > 0) return "dapo";
  if (n("uniform") > 0) return "grpo";
  return "";
}

}  // namespace adarl
