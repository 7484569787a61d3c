// The built-in default of `adarl simulate`: a verbatim copy of configs/simulate.yaml.
// Edit both together; SimulateConfigTest.EmbeddedDefaultEqualsConfigFile fails when
// they differ.
#include "experiments/simulate_config.hpp"

namespace adarl {

std::string_view default_simulate_yaml() {
  static constexpr std::string_view text = R"yaml(
# adarl simulate: strategies on a simulated policy, at the same total sample budget.
# This is the built-in default of `adarl simulate` (the binary holds a verbatim copy;
# a test keeps the two equal). Override any key from the command line, for example
#   adarl simulate simulate.total_samples=100000 simulate.model.optimizer=sgd
# docs/guides/running.md describes the model and how to read the table.

simulate:
  # One run per seed and strategy. A seed fixes the prompt difficulties, the epoch
  # order of the prompts and every sample draw, the same for all strategies.
  seeds: [1, 2, 3]
  # Training prompts; each has a difficulty logit b drawn from the model below.
  prompts: 1024
  # Held-out prompts from the same distribution, never trained on (u = 0): they
  # improve only through the shared skill s.
  held_out: 256
  # Prompts per training step (DAPO draws more to replace the groups it drops).
  batch_prompts: 64
  # Samples every run may draw; a run stops after the step that reaches it.
  total_samples: 200000
  # A run "reaches the target" after the first step whose exact mean pass rate over
  # the training prompts is at least this.
  target_pass_rate: 0.5
  # The strategy the ratio column compares to (a name from the list below).
  baseline: grpo-n4
  # The simulated policy: p_x = sigmoid(s + u_x + b_x).
  model:
    # b_x ~ Normal(mean_logit, sd_logit). -1.5 and 2.0 give a mean pass rate of about
    # 0.28 at the start, with many prompts near 0 and some near 1.
    mean_logit: -1.5
    sd_logit: 2.0
    # How the policy gradient becomes a step: adam or sgd.
    #   adam: dense Adam over s and every u_x (beta1 0.9, beta2 0.999, eps 1e-8, bias
    #     correction; a prompt outside the step gets a zero gradient and still moves
    #     with its momentum), like torch.optim.Adam. The default because it matches
    #     the real learner (AdamW): its step does not grow with the size of the
    #     advantages, so strategies whose advantages are larger (GRPO's std-normalised
    #     ones are about twice Dr.GRPO's) do not simply learn faster.
    #   sgd: plain gradient ascent; the advantages' size acts as a learning rate.
    optimizer: adam
    # Each optimizer has its own two step sizes, chosen from GRPO-n4 alone, never from
    # Ada: it reaches a 0.5 mean pass rate after about a third of the default budget,
    # and its held-out gain is about half its train gain.
    # Adam step size of the shared skill s (moves every prompt, held-out ones included).
    adam_shared_lr: 0.00275
    # Adam step size of each prompt's own adjustment u_x (moves that prompt only).
    adam_prompt_lr: 0.0175
    # SGD step size of the shared skill s.
    shared_lr: 0.0125
    # SGD step size of a prompt's own adjustment u_x.
    prompt_lr: 0.2
  # Persistent per-prompt pass-rate statistics (Ada-EMA); Est and online Est allocate
  # from them. p_hat = (N_pos + alpha) / (N_tot + alpha + beta), counts discounted by
  # lambda per update of the prompt.
  estimator:
    lambda: 0.9
    alpha: 1
    beta: 1

# Each entry: a `name` for the table and the keys of a strategy section (`kind` and
# that kind's parameters, docs/reference/strategies.md "Strategy parameters"); unset parameters keep their
# defaults (Seq: n = 4, M = 8, N = 4; Est: 8 samples per prompt on average, 2..32).
strategies:
  - name: grpo-n4
    kind: grpo
    group_size: 4
  - name: grpo-n8
    kind: grpo
    group_size: 8
  - name: dr-grpo-n4
    kind: dr-grpo
    group_size: 4
  - name: dapo-n4
    kind: dapo
    group_size: 4
  - name: ada-seq-pos
    kind: ada-seq
    exit: pos
  - name: ada-seq-balance
    kind: ada-seq
    exit: balance
  - name: ada-est
    kind: ada-est
  - name: ada-est-online
    kind: ada-est-online
)yaml";
  return text.substr(1);  // drop the newline after the opening delimiter
}

}  // namespace adarl
