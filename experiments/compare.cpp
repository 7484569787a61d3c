#include "experiments/compare.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <ostream>
#include <set>
#include <thread>

#include <nlohmann/json.hpp>

#include "base/atomic_file.hpp"
#include "base/clock.hpp"
#include "base/json_lines.hpp"
#include "config/config_reader.hpp"
#include "config/pipeline_reader.hpp"
#include "experiments/run_tasks.hpp"

namespace adarl {

namespace {

using json = nlohmann::json;

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

/// Gives every node of a (cloned) document the default emitter style, so that the same
/// settings dump the same whether written in flow (`{kind: grpo}`) or block style.
void plain_style(YAML::Node node) {
  node.SetStyle(YAML::EmitterStyle::Default);
  if (node.IsMap())
    for (auto it = node.begin(); it != node.end(); ++it) plain_style(it->second);
  else if (node.IsSequence())
    for (auto it = node.begin(); it != node.end(); ++it) plain_style(*it);
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
      // The run's record keeps of compare: only what changes the run, so that another
      // seed, another entry or another target leaves finished runs current (a run that
      // stopped before equal_steps is told by its step count, in stale_reason).
      YAML::Node kept(YAML::NodeType::Map);
      kept["sample_budget"] = s.sample_budget;
      kept["max_steps"] = s.max_steps;
      // The prompts a selection picks depend on it: a changed selection re-runs.
      if (s.select.enabled) kept["select"] = YAML::Clone(section["select"]);
      doc["compare"] = kept;
      plain_style(doc);
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

namespace {

/// The content hash of the prompts every run trains and is evaluated on (their ids,
/// texts, answers, verifiers and tests), in hex; "" without a table.
std::string prompts_hash(const prompt_table_ptr& prompts) {
  if (!prompts) return "";
  std::vector<task_item> items;
  items.reserve(prompts->rows.size());
  for (const auto& row : prompts->rows) items.push_back(row.item);
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(items_hash(items)));
  return buf;
}

/// Why a finished run (its done.json) no longer answers the plan's question: another
/// config, other data (a dataset edited in place), or it stopped before a reading the
/// plan now asks for; "" when it may be kept.
std::string stale_reason(const json& done, const compare_run& r, const std::string& data) {
  if (done.value("document", "") != r.document) return "its config changed";
  if (!done.contains("data"))
    return "it was recorded before data hashes (its prompts cannot be checked)";
  if (done.value("data", "") != data)
    return "its prompts changed (data hash " + done.value("data", "") + ", now " + data + ")";
  const uint64_t version = done.value("version", uint64_t{0});
  if (version < r.config.tracker.min_steps)
    return "it stopped at step " + std::to_string(version) + ", before step " +
           std::to_string(r.config.tracker.min_steps) + " (compare.equal_steps)";
  return "";
}

}  // namespace

compare_outcome run_compare(const compare_plan& plan, prompt_table_ptr prompts,
                            const engines_for_run& engines, const std::atomic<bool>* stop,
                            std::ostream& log) {
  compare_outcome outcome;
  std::mutex mu;
  size_t next = 0;
  const std::string data_hash = prompts_hash(prompts);
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
      const std::string why = stale_reason(done, r, data_hash);
      if (why.empty()) {
        std::lock_guard<std::mutex> lock(mu);
        ++outcome.kept;
        log << "compare: " << label << ": kept (finished before, same config and data)"
            << std::endl;
        return;
      }
      say("compare: " + label + ": finished before, but " + why + ": running it again");
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
        done_file, json{{"document", r.document},
                        {"data", data_hash},
                        {"min_steps", r.config.tracker.min_steps},
                        {"sample_budget", r.config.tracker.sample_budget},
                        {"version", run->version},
                        {"seconds", seconds}}
                           .dump() +
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

}  // namespace adarl
