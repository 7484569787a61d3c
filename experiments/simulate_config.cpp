#include "experiments/simulate_config.hpp"

#include <algorithm>
#include <memory>
#include <string>
#include <utility>

#include "config/config_reader.hpp"
#include "config/sim_reader.hpp"
#include "config/strategy_reader.hpp"

namespace adarl {
namespace {

void read_section(config_map s, simulate_config& c) {
  s.get("seeds", c.seeds);
  if (c.seeds.empty()) s.fail("seeds", "expected at least one seed");
  s.get("prompts", c.prompts, 1);
  s.get("held_out", c.held_out, 1);
  s.get("batch_prompts", c.batch_prompts, 1);
  s.get("total_samples", c.total_samples, 1);
  s.get("target_pass_rate", c.target_pass_rate);
  s.get("baseline", c.baseline);
  if (c.batch_prompts > c.prompts)
    s.fail("batch_prompts",
           "expected batch_prompts <= prompts (" + std::to_string(c.prompts) + ")");
  if (!(c.target_pass_rate > 0 && c.target_pass_rate < 1))
    s.fail("target_pass_rate", "expected a number in (0, 1)");
  read_sim_model(s.child("model"), c.model);
  read_estimator(s.child("estimator"), c.estimator);
  s.finish();
}

named_strategy read_entry(config_map& e) {
  named_strategy ns;
  e.get("name", ns.name);
  if (ns.name.empty()) e.fail("name", "expected a non-empty strategy name");
  // read_strategy defaults a missing kind; here every entry must say what it runs.
  if (!e.has("kind"))
    e.fail("kind",
           "expected a strategy kind (grpo, dr-grpo, dapo, ada-seq, ada-est, "
           "ada-est-online)");
  ns.config = read_strategy(e);
  e.finish();
  return ns;
}

}  // namespace

result<simulate_config> read_simulate_config(const YAML::Node& root,
                                             const std::string& file) {
  auto errors = std::make_shared<config_errors>();
  errors->file = file;
  config_map top(root, "", errors);
  simulate_config c;
  read_section(top.child("simulate"), c);
  auto entries = top.list("strategies");
  if (entries.empty() && !top.has("strategies"))
    top.fail("strategies", "expected a list of strategies");
  for (auto& e : entries) {
    auto ns = read_entry(e);
    const bool seen = std::any_of(c.strategies.begin(), c.strategies.end(),
                                  [&](const auto& o) { return o.name == ns.name; });
    if (seen && !ns.name.empty())
      e.fail("name", "duplicate strategy name \"" + ns.name + "\"");
    c.strategies.push_back(std::move(ns));
  }
  const bool has_baseline =
      std::any_of(c.strategies.begin(), c.strategies.end(),
                  [&](const auto& s) { return s.name == c.baseline; });
  if (!has_baseline && errors->empty()) {
    auto s = top.child("simulate");
    s.fail("baseline",
           "expected the name of a listed strategy, got \"" + c.baseline + "\"");
  }
  top.finish();
  if (!errors->empty()) {
    auto text = errors->joined();
    if (!text.empty() && text.back() == '\n') text.pop_back();
    return error{text};
  }
  return c;
}

result<simulate_config> load_simulate_config(const std::string& file,
                                             const std::vector<std::string>& overrides) {
  YAML::Node root;
  if (file.empty()) {
    root = YAML::Load(std::string(default_simulate_yaml()));
  } else {
    auto loaded = load_yaml_file(file);
    if (!loaded) return loaded.err();
    root = *loaded;
  }
  const std::string name = file.empty() ? std::string(default_simulate_name) : file;
  for (const auto& o : overrides) {
    auto applied = apply_override(root, o);
    if (!applied) return error{name + ": " + applied.err().message};
  }
  return read_simulate_config(root, name);
}

void set_seed_count(simulate_config& config, uint32_t count) {
  if (config.seeds.size() >= count) {
    config.seeds.resize(count);
    return;
  }
  uint64_t next = config.seeds.empty()
                      ? 1
                      : *std::max_element(config.seeds.begin(), config.seeds.end()) + 1;
  while (config.seeds.size() < count) config.seeds.push_back(next++);
}

}  // namespace adarl
