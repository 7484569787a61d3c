#include "engines/sim/simulated_policy.hpp"

#include <cctype>
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

// serialize()/parse(): whitespace-separated "key value" pairs in a fixed order; a
// vector is "key count v1 ... vcount". The text ends with "end", so truncation shows.
namespace {

constexpr std::string_view policy_magic = "adarl-sim-policy";
constexpr uint64_t policy_format = 1;

void put(std::string& out, std::string_view key, double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  out.append(key).append(" ").append(buf).append("\n");
}

void put(std::string& out, std::string_view key, uint64_t v) {
  out.append(key).append(" ").append(std::to_string(v)).append("\n");
}

void put(std::string& out, std::string_view key, const std::vector<double>& v) {
  out.append(key).append(" ").append(std::to_string(v.size()));
  char buf[40];
  for (double x : v) {
    std::snprintf(buf, sizeof buf, " %.17g", x);
    out.append(buf);
  }
  out.append("\n");
}

/// Reads the tokens of serialize()'s text in order; the first failure sticks.
class policy_reader {
 public:
  explicit policy_reader(std::string_view text) : text_(text) {}

  const std::string& failure() const { return failure_; }
  bool ok() const { return failure_.empty(); }

  /// Expects the literal `word` next.
  void expect(std::string_view word) {
    if (!ok()) return;
    const auto t = next();
    if (t != word) fail("expected \"" + std::string(word) + "\", got " + shown(t));
  }

  double real(std::string_view key) {
    expect(key);
    if (!ok()) return 0;
    const std::string t(next());
    char* end = nullptr;
    const double v = t.empty() ? 0 : std::strtod(t.c_str(), &end);
    if (t.empty() || end != t.c_str() + t.size())
      fail(std::string(key) + ": expected a number, got " + shown(t));
    return v;
  }

  uint64_t count(std::string_view key) {
    if (!ok()) return 0;
    const std::string t(next());
    char* end = nullptr;
    const bool digits =
        !t.empty() && t.find_first_not_of("0123456789") == std::string::npos;
    const uint64_t v = digits ? std::strtoull(t.c_str(), &end, 10) : 0;
    if (!digits || end != t.c_str() + t.size() || t.size() > 19)
      fail(std::string(key) + ": expected a non-negative integer, got " + shown(t));
    return v;
  }

  uint64_t integer(std::string_view key) {
    expect(key);
    return count(key);
  }

  std::vector<double> reals(std::string_view key) {
    expect(key);
    const uint64_t n = count(key);
    std::vector<double> v;
    // A corrupt count must not allocate: each value takes at least two bytes.
    if (!ok() || n > (text_.size() - pos_) / 2 + 1) {
      if (ok()) fail(std::string(key) + ": " + std::to_string(n) + " values do not fit");
      return v;
    }
    v.reserve(n);
    for (uint64_t i = 0; i < n && ok(); ++i) {
      const std::string t(next());
      char* end = nullptr;
      const double x = t.empty() ? 0 : std::strtod(t.c_str(), &end);
      if (t.empty() || end != t.c_str() + t.size())
        fail(std::string(key) + "[" + std::to_string(i) + "]: expected a number, got " +
             shown(t));
      v.push_back(x);
    }
    return v;
  }

  std::string_view word(std::string_view key) {
    expect(key);
    return ok() ? next() : std::string_view{};
  }

  void fail(std::string message) {
    if (ok()) failure_ = std::move(message);
  }

 private:
  std::string_view next() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_])))
      ++pos_;
    const size_t begin = pos_;
    while (pos_ < text_.size() && !std::isspace(static_cast<unsigned char>(text_[pos_])))
      ++pos_;
    return text_.substr(begin, pos_ - begin);
  }

  static std::string shown(std::string_view t) {
    if (t.empty()) return "the end of the text";
    return "\"" + std::string(t.substr(0, 40)) + "\"";
  }

  std::string_view text_;
  size_t pos_ = 0;
  std::string failure_;
};

}  // namespace

std::string simulated_policy::serialize() const {
  std::string out;
  put(out, policy_magic, policy_format);
  out.append("optimizer ").append(sim_optimizer_name(config_.optimizer)).append("\n");
  put(out, "mean_logit", config_.mean_logit);
  put(out, "sd_logit", config_.sd_logit);
  put(out, "shared_lr", config_.shared_lr);
  put(out, "prompt_lr", config_.prompt_lr);
  put(out, "adam_shared_lr", config_.adam_shared_lr);
  put(out, "adam_prompt_lr", config_.adam_prompt_lr);
  put(out, "sample_seed", seed_);
  put(out, "skill", skill_);
  put(out, "difficulty", difficulty_);
  put(out, "adjust", adjust_);
  put(out, "held_out", held_out_);
  put(out, "adam_steps", adam_steps_);
  put(out, "skill_m", skill_m_);
  put(out, "skill_v", skill_v_);
  put(out, "adjust_m", adjust_m_);
  put(out, "adjust_v", adjust_v_);
  out.append("end\n");
  return out;
}

result<simulated_policy> simulated_policy::parse(std::string_view text) {
  policy_reader r(text);
  simulated_policy p;
  if (r.integer(policy_magic) != policy_format && r.ok())
    r.fail(std::string(policy_magic) + ": unsupported format version");
  const auto name = r.word("optimizer");
  if (r.ok()) {
    if (auto o = parse_sim_optimizer(name))
      p.config_.optimizer = *o;
    else
      r.fail("optimizer: expected \"adam\" or \"sgd\", got \"" + std::string(name) +
             "\"");
  }
  p.config_.mean_logit = r.real("mean_logit");
  p.config_.sd_logit = r.real("sd_logit");
  p.config_.shared_lr = r.real("shared_lr");
  p.config_.prompt_lr = r.real("prompt_lr");
  p.config_.adam_shared_lr = r.real("adam_shared_lr");
  p.config_.adam_prompt_lr = r.real("adam_prompt_lr");
  p.seed_ = r.integer("sample_seed");
  p.skill_ = r.real("skill");
  p.difficulty_ = r.reals("difficulty");
  p.adjust_ = r.reals("adjust");
  p.held_out_ = r.reals("held_out");
  p.adam_steps_ = r.integer("adam_steps");
  p.skill_m_ = r.real("skill_m");
  p.skill_v_ = r.real("skill_v");
  p.adjust_m_ = r.reals("adjust_m");
  p.adjust_v_ = r.reals("adjust_v");
  r.expect("end");
  if (!r.ok()) return error{r.failure()};
  // The invariants update() relies on (it indexes these vectors by prompt id).
  const size_t n = p.difficulty_.size();
  if (p.adjust_.size() != n)
    return error{"adjust: expected " + std::to_string(n) +
                 " values (one per prompt), got " + std::to_string(p.adjust_.size())};
  const bool adam = p.config_.optimizer == sim_optimizer::adam;
  for (const auto* moments : {&p.adjust_m_, &p.adjust_v_})
    if (moments->size() != n && (adam || !moments->empty()))
      return error{"adjust_m/adjust_v: expected " + std::to_string(n) +
                   " values (one per prompt), got " + std::to_string(moments->size())};
  return p;
}

}  // namespace adarl
