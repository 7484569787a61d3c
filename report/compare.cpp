#include "report/compare.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <numeric>
#include <ostream>
#include <set>
#include <thread>

#include <nlohmann/json.hpp>

#include "algorithms/convergence.hpp"
#include "algorithms/step_summary.hpp"
#include "base/atomic_file.hpp"
#include "base/clock.hpp"
#include "base/json_lines.hpp"
#include "config/config_reader.hpp"
#include "config/pipeline_reader.hpp"
#include "report/paired_stats.hpp"

namespace adarl {

namespace {

using json = nlohmann::json;

constexpr size_t rate_bins = step_summary::rate_bins;

// The six strategies of the paper's comparison, when compare.strategies is absent.
const char* const default_strategies = R"(
- {name: grpo-n4, strategy: {kind: grpo, group_size: 4}}
- {name: grpo-n8, strategy: {kind: grpo, group_size: 8}}
- {name: dapo, strategy: {kind: dapo, group_size: 4}}
- {name: ada-seq-pos, strategy: {kind: ada-seq, exit: pos}}
- {name: ada-seq-balance, strategy: {kind: ada-seq, exit: balance}}
- {name: ada-est, strategy: {kind: ada-est}}
)";

bool safe_name(const std::string& s) {
  return !s.empty() && s != "." && s != ".." &&
         std::all_of(s.begin(), s.end(), [](char c) {
           return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' ||
                  c == '.';
         });
}

void read_settings(config_map m, compare_settings& s) {
  m.get("title", s.title);
  m.get("out", s.out);
  m.get("seeds", s.seeds);
  m.get("sample_budget", s.sample_budget, 1);
  m.get("max_steps", s.max_steps, 1);
  m.get("jobs", s.jobs, 1);
  m.get("baseline", s.baseline);
  m.get("heldout_metric", s.heldout_metric);
  if (s.heldout_metric != "greedy" && s.heldout_metric != "sampled")
    m.fail("heldout_metric", "expected greedy or sampled, got \"" + s.heldout_metric + "\"");
  m.get("target_heldout", s.target_heldout);
  m.get("target_reward", s.target_reward);
  m.get("smooth", s.smooth, 1);
  m.get("equal_steps", s.equal_steps, 0, uint64_t{1} << 40);
  if (m.has("select")) {
    auto sel = m.child("select");
    auto& x = s.select;
    x.enabled = true;
    sel.get("k", x.k, 1, 1024);
    sel.get("min_correct", x.min_correct, 0, 1024);
    sel.get("max_correct", x.max_correct, 0, 1024);
    sel.get("train_pool", x.train_pool, 1, 10'000'000);
    sel.get("held_out_pool", x.held_out_pool, 1, 10'000'000);
    if (x.max_correct > x.k)
      sel.fail("max_correct", "expected at most k (" + std::to_string(x.k) + "), got " +
                                  std::to_string(x.max_correct));
    if (x.min_correct > x.max_correct)
      sel.fail("min_correct", "expected at most max_correct (" + std::to_string(x.max_correct) +
                                  "), got " + std::to_string(x.min_correct));
    sel.finish();
  }
  m.allow("strategies");
  if (!m.has("sample_budget"))
    m.fail("sample_budget", "required: the cumulative samples every run gets");
  if (s.seeds.empty()) m.fail("seeds", "expected at least one seed");
  if (std::set<uint64_t>(s.seeds.begin(), s.seeds.end()).size() != s.seeds.size())
    m.fail("seeds", "expected distinct seeds");
  if (s.out.empty()) m.fail("out", "expected an output directory");
  m.finish();
}

std::string seed_dir(const std::string& out, const std::string& name, uint64_t seed) {
  return out + "/" + name + "/seed-" + std::to_string(seed);
}

}  // namespace

result<compare_plan> load_compare_config(const std::string& file,
                                         const std::vector<std::string>& overrides) {
  auto loaded = load_yaml_file(file);
  if (!loaded) return loaded.err();
  YAML::Node root = *loaded;
  if (auto ok = apply_overrides(root, overrides, file); !ok) return ok.err();
  if (!root.IsMap()) return error{file + ": expected a mapping at the top level"};
  auto errors = std::make_shared<config_errors>();
  errors->file = file;
  compare_plan plan;
  plan.settings.title = "adarl compare: " + file;
  YAML::Node section = root["compare"];
  if (!section.IsDefined() || !section.IsMap())
    return error{file + ": compare: expected a mapping (see configs/compare.yaml)"};
  if (section["select"].IsDefined() && section["select"].IsNull()) section.remove("select");  // off
  read_settings(config_map(section, "compare", errors), plan.settings);
  YAML::Node entries = section["strategies"];
  if (!entries.IsDefined() || entries.IsNull()) entries = YAML::Load(default_strategies);
  if (!entries.IsSequence() || entries.size() == 0)
    errors->add(entries.Mark(), "compare.strategies",
                "expected a list of {name, strategy, set} entries");
  root.remove("compare");
  const std::string stem = std::filesystem::path(file).stem().string();
  {
    auto base = read_pipeline_config(root, file, stem);
    if (!base) return error{errors->joined() + base.err().message};
    plan.base = *base;
  }
  const auto& s = plan.settings;
  // The equal-steps table reads every run at that step: it must be evaluated there.
  if (s.equal_steps && (plan.base.eval.every == 0 || s.equal_steps % plan.base.eval.every))
    config_map(section, "compare", errors)
        .fail("equal_steps", "expected a multiple of eval.every (" +
                                 std::to_string(plan.base.eval.every) +
                                 ") so that every run is evaluated at that step, got " +
                                 std::to_string(s.equal_steps));
  for (size_t i = 0; entries.IsSequence() && i < entries.size(); ++i) {
    const std::string at = "compare.strategies[" + std::to_string(i) + "]";
    config_map e(entries[i], at, errors);
    std::string name;
    std::vector<std::string> set;
    e.get("name", name);
    e.allow("strategy");
    YAML::Node strategy = entries[i].IsMap() ? entries[i]["strategy"] : YAML::Node();
    if (entries[i].IsMap() && entries[i]["set"].IsDefined()) {
      e.allow("set");
      for (const auto& o : entries[i]["set"]) {
        if (!o.IsScalar()) {
          e.fail("set", "expected a list of key.path=value strings");
          break;
        }
        set.push_back(o.Scalar());
      }
    }
    e.finish();
    if (!safe_name(name)) {
      e.fail("name", "expected a name of letters, digits, '-', '_' or '.', got \"" + name + "\"");
      continue;
    }
    if (std::find(plan.strategies.begin(), plan.strategies.end(), name) !=
        plan.strategies.end()) {
      e.fail("name", "duplicate strategy name \"" + name + "\"");
      continue;
    }
    if (!strategy.IsDefined() || !strategy.IsMap()) {
      e.fail("strategy", "expected the strategy section of this entry (a mapping with kind)");
      continue;
    }
    plan.strategies.push_back(name);
    for (uint64_t seed : s.seeds) {
      YAML::Node doc = YAML::Clone(root);
      // A copy: an entry's `set` may write into strategy.*, and the node may be shared
      // (a YAML alias used by several entries, the entry itself for the next seed).
      doc["strategy"] = YAML::Clone(strategy);
      if (auto ok = apply_overrides(doc, set, file); !ok) {
        e.fail("set", ok.err().message);
        break;
      }
      auto c = read_pipeline_config(doc, file, stem);
      if (!c) {
        errors->messages.push_back(at + " (" + name + "):\n" + c.err().message);
        break;
      }
      compare_run r;
      r.strategy = name;
      r.seed = seed;
      r.config = *c;
      r.config.name = name;
      r.config.seed = seed;
      r.config.tracker.seed = seed;
      r.config.out = seed_dir(s.out, name, seed);
      r.config.progress = false;
      r.config.tracker.sample_budget = s.sample_budget;
      r.config.tracker.steps = s.max_steps;
      // Every run reaches both readings: equal steps and equal samples.
      r.config.tracker.min_steps = std::min(s.equal_steps, s.max_steps);
      // config.json in the run's directory names this run, not the document's defaults.
      for (const auto& [key, value] :
           {std::pair<std::string, std::string>{"name", name}, {"seed", std::to_string(seed)},
            {"out", r.config.out}, {"tracker.sample_budget", std::to_string(s.sample_budget)},
            {"tracker.steps", std::to_string(s.max_steps)},
            {"tracker.min_steps", std::to_string(r.config.tracker.min_steps)}})
        if (!r.config.effective.empty()) r.config.effective[key] = value;
      doc["seed"] = seed;
      doc["compare"]["sample_budget"] = s.sample_budget;
      doc["compare"]["max_steps"] = s.max_steps;
      // The prompts a selection picks depend on it: a changed selection re-runs.
      if (s.select.enabled) doc["compare"]["select"] = YAML::Clone(section["select"]);
      r.document = YAML::Dump(doc);
      plan.runs.push_back(std::move(r));
    }
  }
  if (errors->empty() &&
      std::find(plan.strategies.begin(), plan.strategies.end(), s.baseline) ==
          plan.strategies.end())
    config_map(section, "compare", errors)
        .fail("baseline", "expected one of the strategies' names, got \"" + s.baseline + "\"");
  if (!errors->empty()) {
    std::string out = errors->joined();
    if (!out.empty() && out.back() == '\n') out.pop_back();
    return error{out};
  }
  return plan;
}

compare_outcome run_compare(const compare_plan& plan, prompt_table_ptr prompts,
                            const engines_for_run& engines, const std::atomic<bool>* stop,
                            std::ostream& log) {
  compare_outcome outcome;
  std::mutex mu;
  size_t next = 0;
  auto say = [&](const std::string& line) {
    std::lock_guard<std::mutex> lock(mu);
    log << line << std::endl;
  };
  auto one = [&](const compare_run& r) {
    const std::string label = r.strategy + " seed " + std::to_string(r.seed);
    const std::string done_file = r.config.out + "/done.json";
    if (std::ifstream f(done_file); f) {
      json done = json::parse(f, nullptr, /*allow_exceptions=*/false);
      if (!done.is_object()) {
        // Never delete a finished run because its marker cannot be read.
        std::lock_guard<std::mutex> lock(mu);
        outcome.failed.push_back(label + ": " + done_file + " is unreadable");
        log << "compare: " << label << ": FAILED: " << done_file
            << " is unreadable; remove " << r.config.out << " to run it again" << std::endl;
        return;
      }
      if (done.value("document", "") == r.document) {
        std::lock_guard<std::mutex> lock(mu);
        ++outcome.kept;
        log << "compare: " << label << ": kept (finished before, same config)" << std::endl;
        return;
      }
    }
    std::error_code ec;
    std::filesystem::remove_all(r.config.out, ec);
    const auto t0 = steady_clock::now();
    auto fail = [&](const std::string& why) {
      std::lock_guard<std::mutex> lock(mu);
      outcome.failed.push_back(label + ": " + why);
      log << "compare: " << label << ": FAILED: " << why << std::endl;
    };
    auto e = engines(r.config);
    if (!e) return fail(e.err().message);
    run_options o;
    o.stop = stop;
    auto run = run_pipeline(r.config, prompts, *e, o);
    if (!run) return fail(run.err().message);
    const double seconds = seconds_since(t0);
    if (run->interrupted) {
      std::lock_guard<std::mutex> lock(mu);
      outcome.interrupted = true;
      log << "compare: " << label << ": stopped at version " << run->version << std::endl;
      return;
    }
    const auto marked = write_file_atomic(
        done_file,
        json{{"document", r.document}, {"version", run->version}, {"seconds", seconds}}.dump() +
            "\n");
    if (!marked) return fail(marked.err().message);
    std::lock_guard<std::mutex> lock(mu);
    ++outcome.ran;
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.0f s", seconds);
    log << "compare: " << label << ": " << run->version << " steps in " << buf
        << (run->warnings ? " (" + std::to_string(run->warnings) + " warnings)" : "")
        << std::endl;
  };
  auto worker = [&] {
    for (;;) {
      size_t i;
      {
        std::lock_guard<std::mutex> lock(mu);
        if (next >= plan.runs.size() || (stop && stop->load())) return;
        i = next++;
      }
      one(plan.runs[i]);
    }
  };
  say("compare: " + std::to_string(plan.runs.size()) + " runs (" +
      std::to_string(plan.strategies.size()) + " strategies x " +
      std::to_string(plan.settings.seeds.size()) + " seeds), " +
      std::to_string(plan.settings.jobs) + " at a time, " +
      std::to_string(plan.settings.sample_budget) + " samples each");
  std::vector<std::thread> threads;
  const uint32_t jobs = std::max<uint32_t>(1, plan.settings.jobs);
  for (uint32_t j = 1; j < jobs; ++j) threads.emplace_back(worker);
  worker();
  for (auto& t : threads) t.join();
  if (stop && stop->load()) outcome.interrupted = true;
  return outcome;
}

namespace {

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
  json run;
  run["dir"] = dir;
  json step_rows = json::array();
  // Per policy version: where the run stood on each axis (version v = after v steps).
  std::map<uint64_t, axis_point> at_version{{0, {}}};
  std::vector<double> rewards;
  std::vector<axis_point> reward_at;
  std::vector<uint64_t> bin_prompts(rate_bins, 0), bin_samples(rate_bins, 0);
  double fallback_samples = 0;
  // Learning signal: the mean share of a step's prompts with all-equal rewards (zero
  // advantages), over the steps to the equal-steps reading (every step without one).
  double zero_sum = 0;
  size_t zero_steps = 0;
  for (const auto& l : *steps) {
    const double cs = number(l, "cumulative_samples"), ct = number(l, "cumulative_tokens");
    const double v = number(l, "policy_version"), el = number(l, "elapsed");
    step_rows.push_back({{"step", number(l, "step")},
                         {"cumulative_samples", cs},
                         {"cumulative_tokens", ct},
                         {"elapsed", el},
                         {"real_reward", number(l, "real_reward")},
                         {"zero_gradient_fraction", number(l, "zero_gradient_fraction")},
                         {"samples_per_prompt_mean", number(l, "samples_per_prompt_mean")}});
    at_version[uint64_t(v)] = {v, cs, ct, el};
    if (!s.equal_steps || v <= double(s.equal_steps)) {
      zero_sum += number(l, "zero_gradient_fraction");
      ++zero_steps;
    }
    rewards.push_back(number(l, "real_reward"));
    reward_at.push_back({v, cs, ct, el});
    // Exact where the line counts samples per exit; older lines: an upper bound (every
    // fallback prompt at the step's largest pool).
    if (auto x = l.find("exit_samples"); x != l.end() && x->is_object())
      fallback_samples +=
          number(*x, "fallback_missing_positives") + number(*x, "fallback_missing_negatives");
    else if (auto e = l.find("exits"); e != l.end() && e->is_object())
      fallback_samples += (number(*e, "fallback_missing_positives") +
                           number(*e, "fallback_missing_negatives")) *
                          number(l, "samples_per_prompt_max");
    if (auto b = l.find("samples_by_pass_rate"); b != l.end() && b->is_object()) {
      const auto& p = (*b)["prompts"];
      const auto& n = (*b)["samples"];
      for (size_t i = 0; p.is_array() && n.is_array() && i < p.size() && i < n.size() &&
                         i < rate_bins;
           ++i) {
        bin_prompts[i] += p[i].is_number_unsigned() ? p[i].get<uint64_t>() : 0;
        bin_samples[i] += n[i].is_number_unsigned() ? n[i].get<uint64_t>() : 0;
      }
    }
  }
  const auto smoothed = moving_average(rewards, s.smooth);
  for (size_t i = 0; i < smoothed.size(); ++i) reward_at[i].y = smoothed[i];
  run["steps"] = std::move(step_rows);
  const bool greedy = s.heldout_metric == "greedy";
  if (!evals->front().contains(s.heldout_metric))
    return error{dir + "/eval.jsonl: no " + s.heldout_metric +
                 " accuracy (eval.greedy / eval.samples of the runs)"};
  run["heldout_metric"] = greedy ? "greedy" : "sampled";
  json eval_rows = json::array();
  std::vector<axis_point> acc_at;
  for (const auto& e : *evals) {
    const uint64_t v = uint64_t(number(e, "version"));
    auto it = at_version.find(v);
    if (it == at_version.end()) continue;  // an evaluation of a step not in the metrics
    axis_point p = it->second;
    p.y = number(e, greedy ? "greedy" : "sampled");
    eval_rows.push_back({{"version", v},
                         {"step", p.steps},
                         {"cumulative_samples", p.samples},
                         {"cumulative_tokens", p.tokens},
                         {"seconds", p.seconds},
                         {"accuracy", p.y}});
    acc_at.push_back(p);
  }
  run["evals"] = std::move(eval_rows);
  for (size_t a = 0; a < std::size(axes); ++a) {
    const std::string axis = axes[a];
    run[axis + "_to_heldout"] = reach_on(acc_at, a, s.target_heldout);
    run[axis + "_to_reward"] = reach_on(reward_at, a, s.target_reward);
  }
  // Equal steps: the last evaluation at or before the step cap, if the run got there.
  const double trained = steps->empty() ? 0.0 : number(steps->back(), "policy_version");
  std::optional<double> at_steps, at_samples;
  if (s.equal_steps && trained >= double(s.equal_steps))
    for (const auto& p : acc_at)
      if (p.steps <= double(s.equal_steps)) at_steps = p.y;
  for (const auto& p : acc_at)
    if (p.samples >= double(s.sample_budget)) {
      at_samples = p.y;
      break;
    }
  run["heldout_at_steps"] = opt(at_steps);
  run["heldout_at_samples"] = opt(at_samples);
  run["auc_steps"] = opt(s.equal_steps ? mean_under_curve(curve_on(acc_at, 0), double(s.equal_steps))
                                       : std::nullopt);
  run["auc_samples"] = opt(mean_under_curve(curve_on(acc_at, 1), double(s.sample_budget)));
  const double total = steps->empty() ? 0.0 : number(steps->back(), "cumulative_samples");
  run["fallback_share"] = total > 0 ? fallback_samples / total : 0.0;
  run["zero_gradient_share"] = zero_steps ? json(zero_sum / double(zero_steps)) : json(nullptr);
  run["seconds"] = steps->empty() ? 0.0 : number(steps->back(), "elapsed");
  const json& last = evals->back();
  run["final_version"] = number(last, "version");
  run["final_accuracy"] = number(last, greedy ? "greedy" : "sampled");
  run["prompt_final"] = prompt_values(last, !greedy);
  run["prompt_base"] = prompt_values(evals->front(), number(evals->front(), "sampled", -1) >= 0);
  run["base_version"] = number(evals->front(), "version");
  run["pass_rate_bins"] = {{"prompts", bin_prompts}, {"samples", bin_samples}};
  run["cumulative_samples"] = total;
  run["steps_trained"] = steps->size();
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
                            "auc_samples", "fallback_share", "zero_gradient_share", "seconds"}) {
      std::vector<double> v;
      for (const auto& r : rs)
        if (auto x = opt_of(r[key])) v.push_back(*x);
      summary[key] = summary_json(summarize(v), false);
      summary[key]["mean"] =
          v.empty() ? json(nullptr) : json(std::accumulate(v.begin(), v.end(), 0.0) / double(v.size()));
      summary[key]["runs"] = v.size();
    }
    for (const char* key : {"heldout_at_steps", "heldout_at_samples", "auc_steps", "auc_samples"}) {
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
