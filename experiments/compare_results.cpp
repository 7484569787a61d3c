#include "experiments/compare_results.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <numeric>
#include <optional>

#include <nlohmann/json.hpp>

#include "algorithms/convergence.hpp"
#include "algorithms/paired_stats.hpp"
#include "algorithms/step_summary.hpp"
#include "base/json_lines.hpp"
#include "report/run_facts.hpp"

namespace adarl {

namespace {

using json = nlohmann::json;

constexpr size_t rate_bins = step_summary::rate_bins;

double number(const json& j, const char* key, double fallback = 0) {
  auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : fallback;
}

json opt(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

json summary_json(const reach_summary& s, bool with_counts) {
  json j{{"median", opt(s.median)}, {"min", opt(s.min)}, {"max", opt(s.max)}};
  if (with_counts) {
    j["reached"] = s.reached;
    j["runs"] = s.runs;
  }
  return j;
}

std::optional<double> opt_of(const json& j) {
  return j.is_number() ? std::optional<double>(j.get<double>()) : std::nullopt;
}

/// Where a run stood after some steps, on each x axis, and a metric there.
struct axis_point {
  double steps = 0, samples = 0, tokens = 0, seconds = 0;
  double y = 0;
  double updates = 0;  ///< Optimizer updates to this point (not an axis).
  /// pass@k of the evaluation (not an axis): the share of held-out prompts with a
  /// rewarded sample among eval.samples; nullopt for greedy evaluations.
  std::optional<double> pass_at_k{};
  double x(size_t axis) const {
    const double v[] = {steps, samples, tokens, seconds};
    return v[axis];
  }
};

/// The x axes of the curves and of "to target", in axis_point::x order.
constexpr const char* axes[] = {"steps", "samples", "tokens", "seconds"};

std::vector<curve_point> curve_of(const std::vector<axis_point>& p, size_t axis) {
  std::vector<curve_point> c;
  for (const auto& q : p) c.push_back({q.x(axis), q.y});
  return c;
}

std::vector<xy> curve_on(const std::vector<axis_point>& p, size_t axis) {
  std::vector<xy> c;
  for (const auto& q : p) c.push_back({q.x(axis), q.y});
  return c;
}

json reach_on(const std::vector<axis_point>& p, size_t axis, double target) {
  return target >= 0 ? opt(first_reach(curve_of(p, axis), target)) : json(nullptr);
}

/// The per-prompt values of an evaluation line: sampled pass rates when there are any.
std::vector<double> prompt_values(const json& eval, bool sampled) {
  const char* key = sampled ? "prompt_sampled" : "prompt_greedy";
  std::vector<double> v;
  if (auto it = eval.find(key); it != eval.end() && it->is_array())
    for (const auto& x : *it) v.push_back(x.is_number() ? x.get<double>() : 0.0);
  return v;
}

/// pass@k of an evaluation line: the share of its prompts whose sampled mean reward is
/// above 0 (with 0/1 rewards, at least one of the eval.samples completions right);
/// nullopt without sampled per-prompt values.
std::optional<double> pass_at_k_of(const json& eval) {
  const auto v = prompt_values(eval, /*sampled=*/true);
  if (v.empty()) return std::nullopt;
  return double(std::count_if(v.begin(), v.end(), [](double x) { return x > 0; })) /
         double(v.size());
}

/// What collect_run takes from a run's step lines, in one pass.
struct step_tally {
  json rows = json::array();  ///< The step rows of compare.json.
  /// Per policy version: where the run stood on each axis (version v = after v steps).
  std::map<uint64_t, axis_point> at_version{{0, {}}};
  std::vector<axis_point> reward_at;  ///< Smoothed real_reward on every axis.
  /// Learning signal: the mean share of a step's prompts with all-equal rewards (zero
  /// advantages), over the steps to the equal-steps reading (every step without one).
  double zero_sum = 0;
  size_t zero_steps = 0;
};

/// The line's optimizer updates: its "updates", or 1 for a line written before the
/// field whose step trained samples.
double updates_of(const json& l) {
  if (l.contains("updates")) return number(l, "updates");
  return number(l, "trained_samples") > 0 && !l.contains("nonfinite") ? 1.0 : 0.0;
}

step_tally tally_steps(const std::vector<json>& steps, const compare_settings& s) {
  step_tally t;
  std::vector<double> rewards;
  double updates = 0;
  for (const auto& l : steps) {
    updates += updates_of(l);
    const double cs = number(l, "cumulative_samples"), ct = number(l, "cumulative_tokens");
    const double v = number(l, "policy_version"), el = number(l, "elapsed");
    t.rows.push_back({{"step", number(l, "step")},
                      {"cumulative_samples", cs},
                      {"cumulative_tokens", ct},
                      {"elapsed", el},
                      {"real_reward", number(l, "real_reward")},
                      {"zero_gradient_fraction", number(l, "zero_gradient_fraction")},
                      {"samples_per_prompt_mean", number(l, "samples_per_prompt_mean")}});
    t.at_version[uint64_t(v)] = {v, cs, ct, el, 0, updates};
    if (!s.equal_steps || v <= double(s.equal_steps)) {
      t.zero_sum += number(l, "zero_gradient_fraction");
      ++t.zero_steps;
    }
    rewards.push_back(number(l, "real_reward"));
    t.reward_at.push_back({v, cs, ct, el});
  }
  const auto smoothed = moving_average(rewards, s.smooth);
  for (size_t i = 0; i < smoothed.size(); ++i) t.reward_at[i].y = smoothed[i];
  return t;
}

/// The held-out accuracy of each evaluation whose version the step lines reach, on
/// every axis, and its rows of compare.json.
std::vector<axis_point> accuracy_points(const std::vector<json>& evals, const step_tally& t,
                                        bool greedy, json& rows) {
  std::vector<axis_point> acc_at;
  for (const auto& e : evals) {
    const uint64_t v = uint64_t(number(e, "version"));
    auto it = t.at_version.find(v);
    if (it == t.at_version.end()) continue;  // an evaluation of a step not in the metrics
    axis_point p = it->second;
    p.y = number(e, greedy ? "greedy" : "sampled");
    p.pass_at_k = pass_at_k_of(e);
    rows.push_back({{"version", v},
                    {"step", p.steps},
                    {"cumulative_samples", p.samples},
                    {"cumulative_tokens", p.tokens},
                    {"seconds", p.seconds},
                    {"accuracy", p.y},
                    {"pass_at_k", opt(p.pass_at_k)}});
    acc_at.push_back(p);
  }
  return acc_at;
}

/// The equal-steps and equal-samples readings of the held-out curve and its means
/// under the curve; `trained` is the run's last policy version.
void add_readings(const std::vector<axis_point>& acc_at, double trained,
                  const compare_settings& s, json& run) {
  // Equal steps: the last evaluation at or before the step cap, if the run got there.
  std::optional<double> at_steps, at_samples, updates_at_steps, updates_at_samples;
  std::optional<double> pass_at_steps, pass_at_samples;
  if (s.equal_steps && trained >= double(s.equal_steps))
    for (const auto& p : acc_at)
      if (p.steps <= double(s.equal_steps)) {
        at_steps = p.y;
        updates_at_steps = p.updates;
        pass_at_steps = p.pass_at_k;
      }
  for (const auto& p : acc_at)
    if (p.samples >= double(s.sample_budget)) {
      at_samples = p.y;
      updates_at_samples = p.updates;
      pass_at_samples = p.pass_at_k;
      break;
    }
  run["pass_at_k_at_steps"] = opt(pass_at_steps);
  run["pass_at_k_at_samples"] = opt(pass_at_samples);
  run["heldout_at_steps"] = opt(at_steps);
  run["heldout_at_samples"] = opt(at_samples);
  // The optimizer updates each reading stands on (learner.updates_per_step).
  run["updates_at_steps"] = opt(updates_at_steps);
  run["updates_at_samples"] = opt(updates_at_samples);
  run["auc_steps"] =
      opt(s.equal_steps ? mean_under_curve(curve_on(acc_at, 0), double(s.equal_steps))
                        : std::nullopt);
  run["auc_samples"] = opt(mean_under_curve(curve_on(acc_at, 1), double(s.sample_budget)));
}

}  // namespace

result<json> collect_run(const std::string& dir, const compare_settings& s) {
  auto steps = read_json_lines(dir + "/metrics.jsonl", /*missing_ok=*/false);
  if (!steps) return steps.err();
  auto evals = read_json_lines(dir + "/eval.jsonl", /*missing_ok=*/false);
  if (!evals) return evals.err();
  if (evals->empty()) return error{dir + "/eval.jsonl: no evaluation"};
  // The evaluator writes each evaluation when it completes, and a later version's can
  // complete first: order them by version so the base, the curve and the final one agree.
  std::stable_sort(evals->begin(), evals->end(), [](const json& a, const json& b) {
    return number(a, "version") < number(b, "version");
  });
  if (!evals->front().contains(s.heldout_metric))
    return error{dir + "/eval.jsonl: no " + s.heldout_metric +
                 " accuracy (eval.greedy / eval.samples of the runs)"};
  step_tally t = tally_steps(*steps, s);
  // What the run adds up to, as its report page has it (report/run_facts.hpp).
  run_report_options facts_options;
  facts_options.metric = s.heldout_metric;
  const json facts = run_facts(*steps, *evals, facts_options);
  const bool greedy = s.heldout_metric == "greedy";
  json run;
  run["dir"] = dir;
  run["steps"] = std::move(t.rows);
  run["heldout_metric"] = greedy ? "greedy" : "sampled";
  json eval_rows = json::array();
  const std::vector<axis_point> acc_at = accuracy_points(*evals, t, greedy, eval_rows);
  run["evals"] = std::move(eval_rows);
  for (size_t a = 0; a < std::size(axes); ++a) {
    const std::string axis = axes[a];
    run[axis + "_to_heldout"] = reach_on(acc_at, a, s.target_heldout);
    run[axis + "_to_reward"] = reach_on(t.reward_at, a, s.target_reward);
  }
  const json* last_step = steps->empty() ? nullptr : &steps->back();
  const auto last_number = [&](const char* key) {
    return last_step ? number(*last_step, key) : 0.0;
  };
  add_readings(acc_at, last_number("policy_version"), s, run);
  const double total = last_number("cumulative_samples");
  run["fallback_share"] = total > 0 ? facts["never_exited"]["samples"].get<double>() / total : 0.0;
  run["zero_gradient_share"] =
      t.zero_steps ? json(t.zero_sum / double(t.zero_steps)) : json(nullptr);
  run["seconds"] = last_number("elapsed");
  run["seconds_per_step"] = steps->empty() ? json(nullptr)
                                           : json(last_number("elapsed") / double(steps->size()));
  const json& last = evals->back();
  run["final_version"] = number(last, "version");
  run["final_accuracy"] = number(last, greedy ? "greedy" : "sampled");
  run["pass_at_k_final"] = opt(pass_at_k_of(last));
  run["prompt_final"] = prompt_values(last, !greedy);
  run["prompt_base"] = prompt_values(evals->front(), number(evals->front(), "sampled", -1) >= 0);
  run["base_version"] = number(evals->front(), "version");
  json bins = json::object();  // as counts, as the step lines have them
  for (const char* part : {"prompts", "samples"}) {
    std::vector<uint64_t> counts;
    for (const auto& n : facts["pass_rate_bins"][part]) counts.push_back(uint64_t(n.get<double>()));
    bins[part] = std::move(counts);
  }
  run["pass_rate_bins"] = std::move(bins);
  run["cumulative_samples"] = total;
  for (const auto& [key, mean] : facts["diagnostics"].items()) run["mean_" + key] = mean;
  run["steps_trained"] = steps->size();
  // What the visits spent: null when the run's lines do not record them.
  const json& visits = facts["visits"];
  run["visit_mixed_share"] = visits["mixed_share"];
  run["visit_skipped_share"] = visits["skipped_share"];
  run["samples_all_wrong_share"] = visits["all_wrong_samples_share"];
  run["samples_all_right_share"] = visits["all_right_samples_share"];
  return run;
}

namespace {

/// The last evaluation of `run` at or before step `cap`, when the run trained that far
/// (heldout_at_steps is set); nullptr otherwise.
const json* eval_at_cap(const json& run, double cap) {
  if (!run["heldout_at_steps"].is_number()) return nullptr;
  const json* at = nullptr;
  for (const auto& e : run["evals"])
    if (e["step"].get<double>() <= cap) at = &e;
  return at;
}

/// How soon `run` reaches the reference's held-out accuracy at the step cap (same
/// seed): its first evaluation at or before the cap at or above it, that step as a
/// fraction of the cap, and its samples and seconds there over the reference's at the
/// cap. null without a reference value; step null when never reached.
json reach_reference(const json& run, const json* ref, double cap) {
  const json* goal = ref ? eval_at_cap(*ref, cap) : nullptr;
  if (!goal || !run["heldout_at_steps"].is_number()) return nullptr;
  const double target = (*goal)["accuracy"].get<double>();
  json out = {{"goal", target}, {"step", nullptr}, {"fraction", nullptr},
              {"samples_ratio", nullptr}, {"seconds_ratio", nullptr}};
  for (const auto& e : run["evals"]) {
    if (e["step"].get<double>() > cap || e["accuracy"].get<double>() < target) continue;
    const auto ratio = [&](const char* key) {
      const double r = (*goal)[key].get<double>();
      return r > 0 ? json(e[key].get<double>() / r) : json(nullptr);
    };
    out["step"] = e["step"];
    out["fraction"] = e["step"].get<double>() / cap;
    out["samples_ratio"] = ratio("cumulative_samples");
    out["seconds_ratio"] = ratio("seconds");
    break;
  }
  return out;
}

}  // namespace

result<json> collect_compare(const compare_settings& s, const std::vector<std::string>& strategies,
                             const std::vector<compare_run>& runs) {
  json out;
  out["title"] = s.title;
  out["baseline"] = s.baseline;
  out["budget_samples"] = s.sample_budget;
  out["equal_steps"] = s.equal_steps ? json(s.equal_steps) : json(nullptr);
  out["targets"] = {{"heldout", s.target_heldout >= 0 ? json(s.target_heldout) : json(nullptr)},
                    {"real_reward", s.target_reward >= 0 ? json(s.target_reward) : json(nullptr)}};
  out["pass_rate_bins"] = rate_bins;
  out["smooth"] = s.smooth;
  std::map<std::string, std::vector<json>> by_strategy;
  for (const auto& r : runs) {
    auto j = collect_run(r.config.out, s);
    if (!j) return j.err();
    (*j)["seed"] = r.seed;
    by_strategy[r.strategy].push_back(std::move(*j));
  }
  // Buckets from the base model: the mean over runs of the version 0 per-prompt rates.
  std::vector<double> base;
  size_t base_runs = 0;
  for (const auto& [name, list] : by_strategy)
    for (const auto& r : list) {
      if (r["base_version"].get<double>() != 0) continue;
      const auto v = r["prompt_base"].get<std::vector<double>>();
      if (base.empty()) base.assign(v.size(), 0.0);
      if (v.size() != base.size()) continue;
      for (size_t i = 0; i < v.size(); ++i) base[i] += v[i];
      ++base_runs;
    }
  for (double& b : base) b /= double(std::max<size_t>(1, base_runs));
  out["buckets"] = {{"labels", {"0", "(0, 0.2]", "(0.2, 0.5]", "(0.5, 1]"}},
                    {"prompts", bucket_counts(base)}};
  out["heldout_metric"] = s.heldout_metric;
  auto reach_of = [&](const std::vector<json>& list, const std::string& key) {
    std::vector<std::optional<double>> v;
    for (const auto& r : list) v.push_back(opt_of(r[key]));
    return summarize_reach(v);
  };
  // A run's value by seed (for the pairs).
  auto by_seed = [](const std::vector<json>& list, const char* key) {
    std::map<uint64_t, std::optional<double>> m;
    for (const auto& r : list) m[r["seed"].get<uint64_t>()] = opt_of(r[key]);
    return m;
  };
  const auto& baseline_runs = by_strategy[s.baseline];
  json list = json::array();
  for (const auto& name : strategies) {
    auto& rs = by_strategy[name];
    json summary;
    for (const char* axis : axes)
      for (const char* target : {"heldout", "reward"}) {
        const std::string key = std::string(axis) + "_to_" + target;
        const auto mine = reach_of(rs, key);
        summary[key] = summary_json(mine, true);
        summary["ratio_" + std::string(target) + "_" + axis] =
            opt(speedup(reach_of(baseline_runs, key), mine));
      }
    for (const char* key : {"heldout_at_steps", "heldout_at_samples", "auc_steps",
                            "auc_samples", "fallback_share", "zero_gradient_share", "seconds",
                            "updates_at_steps", "updates_at_samples", "seconds_per_step",
                            "mean_grad_norm", "mean_clip_fraction", "mean_entropy",
                            "mean_lag_mean", "mean_updates", "pass_at_k_at_steps",
                            "pass_at_k_at_samples", "pass_at_k_final", "visit_mixed_share",
                            "visit_skipped_share", "samples_all_wrong_share",
                            "samples_all_right_share"}) {
      std::vector<double> v;
      for (const auto& r : rs)
        if (auto x = opt_of(r[key])) v.push_back(*x);
      summary[key] = summary_json(summarize(v), false);
      summary[key]["mean"] =
          v.empty() ? json(nullptr) : json(std::accumulate(v.begin(), v.end(), 0.0) / double(v.size()));
      summary[key]["runs"] = v.size();
    }
    for (const char* key : {"heldout_at_steps", "heldout_at_samples", "auc_steps", "auc_samples",
                            "pass_at_k_at_samples"}) {
      const auto mine = by_seed(rs, key), ref = by_seed(baseline_runs, key);
      std::vector<std::optional<double>> a, b;
      json seeds = json::array();
      for (const auto& [seed, v] : mine) {
        auto it = ref.find(seed);
        seeds.push_back(seed);
        a.push_back(v);
        b.push_back(it == ref.end() ? std::nullopt : it->second);
      }
      const auto p = paired_differences(a, b);
      json diffs = json::array();
      for (const auto& d : p.differences) diffs.push_back(opt(d));
      summary[std::string("paired_") + key] = {{"seeds", seeds},        {"differences", diffs},
                                               {"n", p.n},              {"mean", opt(p.mean)},
                                               {"low", opt(p.low)},     {"high", opt(p.high)}};
    }
    if (s.equal_steps) {
      const double cap = double(s.equal_steps);
      std::vector<std::optional<double>> fractions;
      std::vector<double> samples_ratios, seconds_ratios;
      for (auto& r : rs) {
        const json* ref = nullptr;
        for (const auto& b : baseline_runs)
          if (b["seed"] == r["seed"]) ref = &b;
        r["reach_reference"] = reach_reference(r, ref, cap);
        const json& rr = r["reach_reference"];
        if (rr.is_null()) continue;
        fractions.push_back(opt_of(rr["fraction"]));
        if (auto v = opt_of(rr["samples_ratio"])) samples_ratios.push_back(*v);
        if (auto v = opt_of(rr["seconds_ratio"])) seconds_ratios.push_back(*v);
      }
      summary["reach_reference_fraction"] = summary_json(summarize_reach(fractions), true);
      summary["reach_reference_samples_ratio"] = summary_json(summarize(samples_ratios), false);
      summary["reach_reference_seconds_ratio"] = summary_json(summarize(seconds_ratios), false);
    }
    std::vector<double> finals;
    std::vector<std::vector<double>> per_bucket(difficulty_buckets);
    for (auto& r : rs) {
      finals.push_back(r["final_accuracy"].get<double>());
      const auto f = r["prompt_final"].get<std::vector<double>>();
      json ba = json::array();
      if (f.size() == base.size()) {
        const auto m = bucket_means(base, f);
        for (int b = 0; b < difficulty_buckets; ++b) {
          ba.push_back(opt(m[b]));
          if (m[b]) per_bucket[b].push_back(*m[b]);
        }
      } else {
        for (int b = 0; b < difficulty_buckets; ++b) ba.push_back(nullptr);
      }
      r["bucket_accuracy"] = std::move(ba);
      r.erase("prompt_base");  // large, and the same for every run
    }
    summary["final_accuracy"] = summary_json(summarize(finals), false);
    json buckets = json::array();
    for (const auto& v : per_bucket)
      buckets.push_back(v.empty() ? json(nullptr) : summary_json(summarize(v), false));
    summary["bucket_accuracy"] = std::move(buckets);
    list.push_back({{"name", name}, {"runs", rs}, {"summary", std::move(summary)}});
  }
  out["strategies"] = std::move(list);
  out["base_pass_rates"] = base;
  return out;
}

}  // namespace adarl
