// resolve_strategy(): the config file's strategy section, then the command-line flags.
#include <algorithm>
#include <memory>
#include <set>

#include "config/config_reader.hpp"
#include "config/strategy_reader.hpp"
#include "experiments/replay.hpp"

namespace adarl {
namespace {

/// Flag name of a config key: group_size -> --group-size.
std::string flag_of(std::string key) {
  std::replace(key.begin(), key.end(), '_', '-');
  return "--" + key;
}

/// Applies the set flags onto a config, recording the config keys they set.
class flag_applier {
 public:
  flag_applier(strategy_config& c, std::set<std::string>& given, std::string& problem)
      : c_(c), given_(given), problem_(problem) {}

  /// Sets `field` from `value` when set; `applies` says whether the kind uses the key.
  template <class T>
  void take(const std::optional<T>& value, const std::string& key, T& field,
            bool applies) {
    if (!value || !problem_.empty()) return;
    if (!applies) {
      problem_ =
          flag_of(key) + ": not a parameter of " + std::string(strategy_name(c_.kind));
      return;
    }
    field = *value;
    given_.insert(key);
  }

 private:
  strategy_config& c_;
  std::set<std::string>& given_;
  std::string& problem_;
};

/// Every flag except --strategy, in the order of strategy_flags. Mirrors read_strategy:
/// a flag applies to exactly the kinds whose config section accepts its key.
std::string apply_flags(const strategy_flags& f, strategy_config& c,
                        std::set<std::string>& given) {
  const auto k = c.kind;
  const bool seq = k == strategy_kind::ada_seq;
  const bool est = k == strategy_kind::ada_est || k == strategy_kind::ada_est_online;
  const bool budget = k == strategy_kind::ada_budget;
  const bool uniform = !seq && !est && !budget;
  std::string problem;
  flag_applier a(c, given, problem);
  a.take(f.group_size, "group_size", seq ? c.seq.group_size : c.uniform.group_size,
         seq || uniform);
  a.take(f.round_size, "round_size", c.seq.round_size, seq);
  a.take(f.max_rounds, "max_rounds", c.seq.max_rounds, seq);
  if (f.exit) {
    auto rule = parse_exit_rule(*f.exit);
    if (!rule) return "--exit: " + rule.err().message;
    a.take(std::optional<exit_rule>(*rule), "exit", c.seq.exit, seq);
  }
  a.take(f.k_pos, "k_pos", c.seq.k_pos, seq);
  a.take(f.k_neg, "k_neg", c.seq.k_neg, seq);
  a.take(f.threshold, "threshold",
         seq ? c.seq.threshold
             : (est ? c.est.threshold : (budget ? c.budget.threshold : c.uniform.threshold)),
         true);
  a.take(f.std_norm, "std_norm", c.seq.std_norm, seq);
  a.take(f.budget, "budget", budget ? c.budget.budget : c.est.budget, est || budget);
  a.take(f.samples_per_prompt, "samples_per_prompt",
         budget ? c.budget.samples_per_prompt : c.est.samples_per_prompt, est || budget);
  a.take(f.n_min, "n_min", budget ? c.budget.n_min : c.est.n_min, est || budget);
  a.take(f.n_max, "n_max", budget ? c.budget.n_max : c.est.n_max, est || budget);
  a.take(f.wave, "wave", c.est.wave, k == strategy_kind::ada_est_online);
  a.take(f.extra_factor, "extra_factor", c.uniform.dapo_extra_factor,
         k == strategy_kind::dapo);
  return problem;
}

/// The config file's document (an empty mapping without one), with strategy.kind
/// replaced by --strategy when given.
result<YAML::Node> config_document(const replay_options& o) {
  YAML::Node root(YAML::NodeType::Map);
  if (!o.config_file.empty()) {
    auto loaded = load_yaml_file(o.config_file);
    if (!loaded) return loaded.err();
    root = *loaded;
  }
  if (o.flags.strategy) {
    auto kind = parse_strategy_kind(*o.flags.strategy);
    if (!kind) return error{"--strategy: " + kind.err().message};
    const YAML::Node& section = static_cast<const YAML::Node&>(root)["strategy"];
    // A strategy section that is not a mapping is left for read_strategy to report.
    if (!section.IsDefined() || section.IsNull() || section.IsMap()) {
      auto set = apply_override(root, "strategy.kind=" + *o.flags.strategy);
      if (!set) return set.err();
    }
  } else {
    const YAML::Node& section = static_cast<const YAML::Node&>(root)["strategy"];
    const bool absent = !section.IsDefined() || section.IsNull();
    // A strategy section that is not a mapping is left for read_strategy to report.
    if (absent ||
        (section.IsMap() && (!section["kind"].IsDefined() || section["kind"].IsNull())))
      return error{"no strategy: give --strategy or strategy.kind in the --config file"};
  }
  return root;
}

}  // namespace

result<strategy_config> resolve_strategy(const replay_options& options) {
  auto doc = config_document(options);
  if (!doc) return doc.err();
  auto errors = std::make_shared<config_errors>();
  errors->file = options.config_file.empty() ? "command line" : options.config_file;
  // Only the strategy section is read: the other sections of a training config are
  // not replay's to check.
  config_map top(*doc, "", errors);
  config_map section = top.child("strategy");
  strategy_config c = read_strategy(section);
  section.finish();
  if (!errors->empty()) {
    auto text = errors->joined();
    text.pop_back();  // the last newline
    return error{text};
  }

  std::set<std::string> given;
  if (auto problem = apply_flags(options.flags, c, given); !problem.empty())
    return error{problem};
  // The config alone was valid; a problem now comes from the flags (or their mix).
  const auto issues = validate(c);
  if (issues.empty()) return c;
  // Name the flag when it was given; otherwise the value is a default or the config's.
  const auto& first = issues.front();
  const std::string name =
      given.count(first.key) > 0
          ? flag_of(first.key)
          : first.key + " (strategy." + first.key + " or " + flag_of(first.key) + ")";
  return error{name + ": " + first.message};
}

}  // namespace adarl
