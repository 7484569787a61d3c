#include "algorithms/strategy_config.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

namespace adarl {

std::string_view strategy_name(strategy_kind k) {
  switch (k) {
    case strategy_kind::grpo:
      return "grpo";
    case strategy_kind::dr_grpo:
      return "dr-grpo";
    case strategy_kind::dapo:
      return "dapo";
    case strategy_kind::ada_seq:
      return "ada-seq";
    case strategy_kind::ada_est:
      return "ada-est";
    case strategy_kind::ada_est_online:
      return "ada-est-online";
    case strategy_kind::ada_budget:
      return "ada-budget";
  }
  return "?";
}

result<strategy_kind> parse_strategy_kind(std::string_view name) {
  for (auto k : {strategy_kind::grpo, strategy_kind::dr_grpo, strategy_kind::dapo,
                 strategy_kind::ada_seq, strategy_kind::ada_est,
                 strategy_kind::ada_est_online, strategy_kind::ada_budget})
    if (strategy_name(k) == name) return k;
  return error{"unknown strategy \"" + std::string(name) +
               "\" (known: grpo, dr-grpo, dapo, ada-seq, ada-est, ada-est-online, ada-budget)"};
}

std::string_view allocation_rule_name(allocation_rule r) {
  switch (r) {
    case allocation_rule::uniform:
      return "uniform";
    case allocation_rule::sqrt:
      return "sqrt";
    case allocation_rule::knapsack:
      return "knapsack";
  }
  return "?";
}

result<allocation_rule> parse_allocation_rule(std::string_view name) {
  for (auto r : {allocation_rule::uniform, allocation_rule::sqrt, allocation_rule::knapsack})
    if (allocation_rule_name(r) == name) return r;
  return error{"unknown allocation rule \"" + std::string(name) +
               "\" (known: uniform, sqrt, knapsack)"};
}

uint64_t budget_config::step_budget(uint32_t prompts) const {
  if (budget > 0) return budget;
  return uint64_t(std::llround(std::clamp(samples_per_prompt, 0.0, 1e9) * prompts));
}

std::string_view exit_rule_name(exit_rule r) {
  return r == exit_rule::pos ? "pos" : "balance";
}

result<exit_rule> parse_exit_rule(std::string_view name) {
  if (name == "pos") return exit_rule::pos;
  if (name == "balance") return exit_rule::balance;
  return error{"unknown exit rule \"" + std::string(name) + "\" (known: pos, balance)"};
}

uint32_t seq_config::effective_k_pos() const {
  if (k_pos > 0) return k_pos;
  return exit == exit_rule::pos ? 1 : group_size / 2;
}

uint32_t seq_config::effective_k_neg() const {
  if (exit == exit_rule::pos) return 0;
  return k_neg > 0 ? k_neg : group_size - group_size / 2;
}

namespace {

void check(std::vector<config_issue>& out, bool ok, std::string key, std::string msg) {
  if (!ok) out.push_back({std::move(key), std::move(msg)});
}

// The exponent's config key is "objective_alpha" (next to "objective", the kind).
void check_objective(std::vector<config_issue>& out, const objective& o) {
  check(out, o.kind != objective_kind::power || (o.alpha > 0 && o.alpha < 1),
        "objective_alpha", "expected 0 < alpha < 1 for the power objective");
}

void check_threshold(std::vector<config_issue>& out, float t) {
  check(out, std::isfinite(t), "threshold", "expected a finite number");
}

}  // namespace

uint64_t max_samples_per_step(const strategy_config& c, uint32_t prompts) {
  switch (c.kind) {
    case strategy_kind::ada_seq:  // replacements of skipped prompts included
      return uint64_t(c.seq.round_size) * c.seq.max_rounds *
             (prompts + (c.seq.skip_below > 0
                             ? uint64_t(std::ceil(c.seq.skip_extra_factor * prompts))
                             : 0));
    case strategy_kind::ada_est:
    case strategy_kind::ada_est_online:
      return std::max<uint64_t>(c.est.budget, uint64_t(c.est.n_max) * prompts);
    case strategy_kind::dapo:
      return uint64_t(c.uniform.group_size) *
             (prompts + uint64_t(std::ceil(c.uniform.dapo_extra_factor * prompts)));
    case strategy_kind::ada_budget:
      return c.budget.step_budget(prompts);
    case strategy_kind::grpo:
    case strategy_kind::dr_grpo:
      break;
  }
  return uint64_t(c.uniform.group_size) * prompts;
}

std::vector<config_issue> validate(const strategy_config& c) {
  std::vector<config_issue> out;
  const std::string most = std::to_string(max_pool_samples);
  switch (c.kind) {
    case strategy_kind::ada_seq: {
      const auto& s = c.seq;
      check(out, s.group_size >= 2 && s.group_size <= max_pool_samples, "group_size",
            "expected an integer in [2, " + most + "]");
      check(out, s.round_size >= s.group_size, "round_size",
            "expected round_size >= group_size (M >= n)");
      check(out, s.max_rounds >= 1, "max_rounds", "expected a positive integer");
      check(out, uint64_t(s.round_size) * s.max_rounds <= max_pool_samples, "round_size",
            "expected round_size * max_rounds <= " + most + " (samples of one prompt)");
      check(out, s.effective_k_pos() >= 1 && s.effective_k_pos() <= s.group_size,
            "k_pos", "expected 1 <= k_pos <= group_size");
      check(out, s.exit == exit_rule::pos || s.effective_k_neg() >= 1, "k_neg",
            "expected k_neg >= 1 for the balance exit");
      check(out, s.effective_k_pos() + s.effective_k_neg() <= s.round_size * s.max_rounds,
            "k_pos", "the exit needs more samples than max_rounds * round_size");
      check_threshold(out, s.threshold);
      check_objective(out, s.weight_objective);
      for (const auto& [key, v] : {std::pair<const char*, double>{"min_signal_chance", s.min_signal_chance},
                                   {"skip_below", s.skip_below}, {"explore", s.explore}})
        check(out, v >= 0 && v <= 1, key, "expected a number in [0, 1]");
      check(out, s.skip_extra_factor >= 0 && s.skip_extra_factor <= 100, "skip_extra_factor",
            "expected a number in [0, 100]");
      break;
    }
    case strategy_kind::ada_est:
    case strategy_kind::ada_est_online: {
      const auto& e = c.est;
      check(out, e.n_min >= 1, "n_min", "expected a positive integer");
      check(out, e.n_max >= e.n_min, "n_max", "expected n_max >= n_min");
      check(out, e.n_max <= max_pool_samples, "n_max", "expected n_max <= " + most);
      check(out, e.budget <= max_step_samples, "budget",
            "expected at most " + std::to_string(max_step_samples) + " samples per step");
      check(out, e.budget > 0 || (e.samples_per_prompt >= e.n_min &&
                                  e.samples_per_prompt <= e.n_max),
            "samples_per_prompt", "expected n_min <= samples_per_prompt <= n_max");
      check(out, e.eps > 0 && std::isfinite(e.eps), "eps", "expected a positive number");
      check(out, e.sample_share >= 0 && e.sample_share <= 1, "sample_share",
            "expected a number in [0, 1]");
      check(out, e.wave >= 1, "wave", "expected a positive integer");
      check_threshold(out, e.threshold);
      check_objective(out, e.weight_objective);
      break;
    }
    case strategy_kind::grpo:
    case strategy_kind::dr_grpo:
    case strategy_kind::dapo: {
      const auto& u = c.uniform;
      check(out, u.group_size >= 2 && u.group_size <= max_pool_samples, "group_size",
            "expected an integer in [2, " + most + "]");
      check(out, u.std_eps > 0, "std_eps", "expected a positive number");
      check(out, u.dapo_extra_factor >= 0 && u.dapo_extra_factor <= 100, "extra_factor",
            "expected a number in [0, 100]");
      check_threshold(out, u.threshold);
      break;
    }
    case strategy_kind::ada_budget: {
      const auto& b = c.budget;
      check(out, b.n_min >= 2, "n_min", "expected an integer >= 2 (a group needs two samples)");
      check(out, b.n_max >= b.n_min, "n_max", "expected n_max >= n_min");
      check(out, b.n_max <= max_pool_samples, "n_max", "expected n_max <= " + most);
      check(out, b.budget <= max_step_samples, "budget",
            "expected at most " + std::to_string(max_step_samples) + " samples per step");
      check(out, b.budget > 0 || (b.samples_per_prompt >= b.n_min &&
                                  b.samples_per_prompt <= b.n_max),
            "samples_per_prompt", "expected n_min <= samples_per_prompt <= n_max");
      check(out, b.reserve > 0 && b.reserve < 1, "reserve",
            "expected a share of the budget in (0, 1)");
      check(out, b.reserve_wave >= 1 && b.reserve_wave <= b.n_max, "reserve_wave",
            "expected an integer in [1, n_max]");
      for (const auto& [key, v] : {std::pair<const char*, double>{"hard_below", b.hard_below},
                                   {"hard_share", b.hard_share}, {"skip_below", b.skip_below},
                                   {"explore", b.explore}})
        check(out, v >= 0 && v <= 1, key, "expected a number in [0, 1]");
      check(out, b.skip_extra_factor >= 0 && b.skip_extra_factor <= 100, "skip_extra_factor",
            "expected a number in [0, 100]");
      check_threshold(out, b.threshold);
      check_objective(out, b.weight_objective);
      break;
    }
  }
  return out;
}

std::vector<config_issue> validate_for_step(const strategy_config& c, uint32_t prompts) {
  std::vector<config_issue> out;
  if (c.kind == strategy_kind::ada_budget) {
    const auto& b = c.budget;
    const uint64_t need = uint64_t(b.n_min) * prompts;
    check(out, b.step_budget(prompts) >= need, b.budget > 0 ? "budget" : "samples_per_prompt",
          "a step of " + std::to_string(prompts) + " prompts needs at least " +
              std::to_string(need) + " samples (prompts x n_min); the budget is " +
              std::to_string(b.step_budget(prompts)));
  }
  return out;
}

}  // namespace adarl
