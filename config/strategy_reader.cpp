#include "config/strategy_reader.hpp"

namespace adarl {
namespace {

void read_objective(config_map& m, objective& o) {
  read_enum(m, "objective", o.kind, &parse_objective_kind, +[](objective_kind k) {
    return objective{k, 0.5}.name();
  });
  m.get("objective_alpha", o.alpha);
}

}  // namespace

strategy_config read_strategy(config_map& m, strategy_config c) {
  read_enum(m, "kind", c.kind, &parse_strategy_kind, &strategy_name);
  switch (c.kind) {
    case strategy_kind::ada_seq: {
      auto& s = c.seq;
      m.get("group_size", s.group_size);
      m.get("round_size", s.round_size);
      m.get("max_rounds", s.max_rounds);
      read_enum(m, "exit", s.exit, &parse_exit_rule, &exit_rule_name);
      m.get("k_pos", s.k_pos);
      m.get("k_neg", s.k_neg);
      m.get("threshold", s.threshold);
      m.get("std_norm", s.std_norm);
      m.get("explicit_weight", s.explicit_weight);
      m.get("downsample", s.downsample);
      m.get("min_signal_chance", s.min_signal_chance);
      m.get("skip_below", s.skip_below);
      m.get("explore", s.explore);
      m.get("skip_extra_factor", s.skip_extra_factor);
      read_objective(m, s.weight_objective);
      break;
    }
    case strategy_kind::ada_est:
    case strategy_kind::ada_est_online: {
      auto& e = c.est;
      m.get("budget", e.budget);
      m.get("samples_per_prompt", e.samples_per_prompt);
      m.get("n_min", e.n_min);
      m.get("n_max", e.n_max);
      m.get("eps", e.eps);
      read_objective(m, e.weight_objective);
      m.get("sample_share", e.sample_share);
      m.get("threshold", e.threshold);
      m.get("std_norm", e.std_norm);
      m.get("grad_weight", e.grad_weight);
      if (c.kind == strategy_kind::ada_est_online) m.get("wave", e.wave);
      break;
    }
    case strategy_kind::ada_budget: {
      auto& b = c.budget;
      m.get("budget", b.budget);
      m.get("samples_per_prompt", b.samples_per_prompt);
      m.get("n_min", b.n_min);
      m.get("n_max", b.n_max);
      read_enum(m, "allocation", b.allocation, &parse_allocation_rule, &allocation_rule_name);
      m.get("reserve", b.reserve);
      m.get("reserve_wave", b.reserve_wave);
      m.get("hard_below", b.hard_below);
      m.get("hard_share", b.hard_share);
      m.get("skip_below", b.skip_below);
      m.get("explore", b.explore);
      m.get("skip_extra_factor", b.skip_extra_factor);
      m.get("threshold", b.threshold);
      m.get("std_norm", b.std_norm);
      m.get("grad_weight", b.grad_weight);
      read_objective(m, b.weight_objective);
      break;
    }
    case strategy_kind::grpo:
    case strategy_kind::dr_grpo:
    case strategy_kind::dapo: {
      auto& u = c.uniform;
      m.get("group_size", u.group_size);
      m.get("threshold", u.threshold);
      if (c.kind != strategy_kind::dr_grpo) m.get("std_eps", u.std_eps);
      if (c.kind == strategy_kind::dapo) m.get("extra_factor", u.dapo_extra_factor);
      break;
    }
  }
  if (m.errors()->empty())
    for (const auto& issue : validate(c)) m.fail(issue.key, issue.message);
  return c;
}

}  // namespace adarl
