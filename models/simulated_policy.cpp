#include "models/simulated_policy.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <utility>

namespace adarl {

std::optional<sim_optimizer> parse_sim_optimizer(std::string_view name) {
  if (name == "adam") return sim_optimizer::adam;
  if (name == "sgd") return sim_optimizer::sgd;
  return std::nullopt;
}

std::string_view sim_optimizer_name(sim_optimizer o) {
  return o == sim_optimizer::adam ? "adam" : "sgd";
}

double sigmoid(double z) {
  // Two branches so that exp never overflows.
  if (z >= 0) return 1.0 / (1.0 + std::exp(-z));
  const double e = std::exp(z);
  return e / (1.0 + e);
}

simulated_policy::simulated_policy(const sim_model_config& config, uint32_t prompts,
                                   uint32_t held_out, std::mt19937_64& rng,
                                   uint64_t sample_seed)
    : config_(config), seed_(sample_seed) {
  std::normal_distribution<double> logit(config.mean_logit, config.sd_logit);
  difficulty_.resize(prompts);
  for (auto& b : difficulty_) b = logit(rng);
  adjust_.assign(prompts, 0.0);
  if (config.optimizer == sim_optimizer::adam) {
    adjust_m_.assign(prompts, 0.0);
    adjust_v_.assign(prompts, 0.0);
  }
  held_out_.resize(held_out);
  for (auto& b : held_out_) b = logit(rng);
}

double simulated_policy::pass_rate(uint64_t prompt) const {
  if (prompt >= difficulty_.size()) {
    std::fprintf(stderr, "simulated_policy: prompt %llu out of range (%zu prompts)\n",
                 static_cast<unsigned long long>(prompt), difficulty_.size());
    std::abort();
  }
  return sigmoid(skill_ + adjust_[prompt] + difficulty_[prompt]);
}

double simulated_policy::held_out_pass_rate(uint32_t i) const {
  return sigmoid(skill_ + held_out_.at(i));
}

double simulated_policy::train_mean() const {
  double sum = 0;
  for (uint64_t x = 0; x < difficulty_.size(); ++x) sum += pass_rate(x);
  return difficulty_.empty() ? 0.0 : sum / static_cast<double>(difficulty_.size());
}

double simulated_policy::held_out_mean() const {
  double sum = 0;
  for (uint32_t i = 0; i < held_out_.size(); ++i) sum += held_out_pass_rate(i);
  return held_out_.empty() ? 0.0 : sum / static_cast<double>(held_out_.size());
}

float simulated_policy::draw(uint64_t step, uint64_t prompt, uint32_t index) const {
  return keyed_uniform(seed_, step, prompt, index) < pass_rate(prompt) ? 1.f : 0.f;
}

sim_update_stats simulated_policy::update(std::span<const finished_group> groups) {
  sim_update_stats stats;
  for (const auto& g : groups) {
    if (!g.trainable()) continue;
    ++stats.groups;
    stats.kept_samples += g.kept.size();
  }
  if (stats.kept_samples == 0) return stats;

  // Gradients first, all at the current parameters; then one simultaneous step.
  double shared_sum = 0;
  std::vector<std::pair<uint64_t, double>> per_prompt;
  per_prompt.reserve(stats.groups);
  for (const auto& g : groups) {
    if (!g.trainable()) continue;
    const double p = pass_rate(g.prompt_id);
    double sum = 0;
    for (size_t i = 0; i < g.advantages.size(); ++i) {
      const double y = g.rewards[i] > 0.5f ? 1.0 : 0.0;
      sum += static_cast<double>(g.advantages[i]) * g.weight * (y - p);
    }
    shared_sum += sum;
    per_prompt.emplace_back(g.prompt_id, sum);
  }
  const auto k = static_cast<double>(stats.kept_samples);
  if (config_.optimizer == sim_optimizer::adam) {
    adam_step(shared_sum / k, per_prompt, k, stats);
    return stats;
  }
  stats.skill_delta = config_.shared_lr * shared_sum / k;
  skill_ += stats.skill_delta;
  // Token-mean gives prompt x the share (its kept samples) / K of the step's gradient.
  // The shared skill sums those shares over the batch; a prompt's own direction gets
  // only its share, which would shrink as 1/batch. Scaling by G (the trainable groups)
  // makes prompt_lr independent of the batch size: with uniform groups of n,
  // u_x += prompt_lr * mean_i g_i; a prompt with more kept samples than average (Est)
  // moves proportionally more, as token-mean weighting implies.
  const double scale = config_.prompt_lr * static_cast<double>(stats.groups) / k;
  for (const auto& [prompt, sum] : per_prompt) adjust_[prompt] += scale * sum;
  return stats;
}

void simulated_policy::adam_step(double skill_grad,
                                 std::span<const std::pair<uint64_t, double>> per_prompt,
                                 double kept, sim_update_stats& stats) {
  constexpr double beta1 = 0.9, beta2 = 0.999, eps = 1e-8;
  // The gradient of u_x is the plain token-mean one, (sum of x's g) / K, without the
  // factor G that SGD uses. Adam divides each coordinate by the root of its own running
  // second moment, so a constant factor on a coordinate cancels (up to eps): G, the
  // same at every step for fixed-batch strategies, would change nothing there. Where G
  // varies between steps (DAPO when its bounded extra draws run out) it would reweight
  // steps against each other, which the real learner (AdamW on the token-mean loss,
  // whose gradient for a prompt's own direction is just its share / K) does not do.
  // A prompt may appear in several groups of one step; their sums add up.
  grad_.assign(adjust_.size(), 0.0);
  for (const auto& [prompt, sum] : per_prompt) grad_[prompt] += sum / kept;

  // torch.optim.Adam (maximize): m = b1 m + (1 - b1) g, v = b2 v + (1 - b2) g^2,
  // theta += lr / (1 - b1^t) * m / (sqrt(v) / sqrt(1 - b2^t) + eps). Every
  // coordinate steps, a zero gradient included (dense gradients).
  ++adam_steps_;
  const double t = static_cast<double>(adam_steps_);
  const double correction1 = 1 - std::pow(beta1, t);
  const double root_correction2 = std::sqrt(1 - std::pow(beta2, t));
  const auto step = [&](double g, double& m, double& v, double lr) {
    m = beta1 * m + (1 - beta1) * g;
    v = beta2 * v + (1 - beta2) * g * g;
    return lr / correction1 * m / (std::sqrt(v) / root_correction2 + eps);
  };
  stats.skill_delta = step(skill_grad, skill_m_, skill_v_, config_.adam_shared_lr);
  skill_ += stats.skill_delta;
  for (size_t x = 0; x < adjust_.size(); ++x)
    adjust_[x] += step(grad_[x], adjust_m_[x], adjust_v_[x], config_.adam_prompt_lr);
}

}  // namespace adarl
