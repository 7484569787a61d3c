// describe(): the start-up summary of a pipeline config.
#include <charconv>
#include <concepts>
#include <string>

#include "config/pipeline_reader.hpp"

#include "config/number_text.hpp"

namespace adarl {
namespace {

std::string describe_strategy(const strategy_config& s) {
  std::string out(strategy_name(s.kind));
  switch (s.kind) {
    case strategy_kind::ada_seq:
      return out + " exit " + std::string(exit_rule_name(s.seq.exit)) + " (n " +
             text(s.seq.group_size) + ", round " + text(s.seq.round_size) + ", rounds " +
             text(s.seq.max_rounds) +
             (s.seq.min_signal_chance > 0 ? ", rounds capped below signal chance " +
                                                text(s.seq.min_signal_chance)
                                          : std::string()) +
             (s.seq.skip_below > 0 ? ", visits skipped below " + text(s.seq.skip_below) +
                                         " (explore " + text(s.seq.explore) + ")"
                                   : std::string()) +
             (s.seq.downsample ? std::string() : ", every pool sample trained") +
             ")";
    case strategy_kind::ada_est:
    case strategy_kind::ada_est_online:
      return out + " (" +
             (s.est.budget ? text(s.est.budget) + " samples per step"
                           : text(s.est.samples_per_prompt) + " samples per prompt") +
             ", " + text(s.est.n_min) + ".." + text(s.est.n_max) + " each)";
    case strategy_kind::ada_budget:
      return out + " (" +
             (s.budget.budget ? text(s.budget.budget) + " samples per step"
                              : text(s.budget.samples_per_prompt) + " samples per prompt") +
             " at most, " + std::string(allocation_rule_name(s.budget.allocation)) + " " +
             text(s.budget.n_min) + ".." + text(s.budget.n_max) + " each, reserve " +
             text(s.budget.reserve) +
             (s.budget.skip_below > 0 ? ", visits skipped below " + text(s.budget.skip_below) +
                                            " (explore " + text(s.budget.explore) + ")"
                                      : std::string()) +
             ")";
    case strategy_kind::dapo:
      return out + " (n " + text(s.uniform.group_size) + ", up to " +
             text(s.uniform.dapo_extra_factor) + "x extra prompts)";
    case strategy_kind::grpo:
    case strategy_kind::dr_grpo:
      break;
  }
  return out + " (n " + text(s.uniform.group_size) + ")";
}

std::string describe_policy(const policy_section& p) {
  const engine_kind_traits& kind = kind_traits(p.kind);
  if (!kind.trains_model)
    return std::string(kind.name) + " policy (" +
           std::string(sim_optimizer_name(p.sim.optimizer)) + ")";
  if (kind.model_directory())
    return std::string(kind.name) + " " + p.hf_path + " (context " + text(p.model.max_len) + ", chat template " +
           p.chat_template + ") on " + p.device;
  const auto& m = p.model;
  std::string out = std::string(kind.name) + " d_model " + text(m.d_model) + ", " + text(m.n_layers) +
                    " layers, " + text(m.n_heads) + " heads (" +
                    text(m.parameter_count()) + " parameters) on " + p.device + ", ";
  if (!p.base_checkpoint.empty()) return out + "from " + p.base_checkpoint;
  return out + "SFT warm start " + text(p.sft_steps) + " steps";
}

}  // namespace

std::string describe(const pipeline_config& c) {
  const auto& t = c.tracker;
  const auto& a = c.actors;
  std::string tasks = c.tasks.dataset.empty()
                          ? "suite " + c.tasks.suite + " (" + text(c.tasks.train) +
                                " train, " + text(c.tasks.held_out) + " held out)"
                          : "dataset " + c.tasks.dataset;
  return c.name + ": " + describe_strategy(t.strategy) + ", " + text(t.steps) +
         " steps" +
         (t.sample_budget ? " (or " + text(t.sample_budget) + " samples)" : std::string()) +
         " x " + text(t.prompts_per_step) + " prompts, max lag " +
         text(t.lag.max_lag) + (c.deterministic ? " (exact)" : "") + ", seed " +
         text(c.seed) + "\n  tasks: " + tasks +
         "\n  policy: " + describe_policy(c.policy) +
         "\n  actors: " + text(a.generators) + " generator(s) x " +
         text(a.generator_capacity) + " rows, " + text(a.verifiers) + " verifier(s)" +
         (a.remote_verifiers.bind.empty()
              ? std::string(", ")
              : " (fallback for remote workers at " + a.remote_verifiers.bind + "), ") +
         "learner micro-batch " + text(c.learner.micro_batch) +
         (c.learner.updates_per_step > 1
              ? ", " + text(c.learner.updates_per_step) + " updates per step"
              : std::string()) +
         (c.learner.device.empty() ? std::string() : " on " + c.learner.device) +
         (c.learner.replicas.replicas > 1
              ? " x " + text(c.learner.replicas.replicas) + " replicas (store " +
                    c.learner.replicas.store + ")"
              : std::string()) +
         "\n  out: " + c.out;
}

}  // namespace adarl
