#include "engines/sim/sim_engines.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <random>
#include <span>
#include <sstream>
#include <thread>

#include "algorithms/step_types.hpp"
#include "base/atomic_file.hpp"
#include "base/random_keys.hpp"

namespace adarl {

namespace fs = std::filesystem;

namespace {

// Keys of a row's two independent uniforms, drawn from its stream.
constexpr uint64_t answer_key = 0;  // keyed_uniform(stream, 0, 0, 0): correct or not.
constexpr uint64_t length_key = 1;  // keyed_uniform(stream, 1, 7, 0): extra steps.
constexpr uint64_t length_salt = 7;
// Log-probs are clamped here rather than -inf, so that ratios stay finite.
constexpr double min_probability = 1e-30;

constexpr const char* policy_file = "sim_policy.txt";
constexpr std::string_view learner_magic = "adarl-sim-learner";

/// Held-out prompts of a world (ids train..answers.size()-1).
uint32_t held_out_count(const sim_world& world) {
  return world.answers.size() > world.train
             ? static_cast<uint32_t>(world.answers.size() - world.train)
             : 0;
}

/// Decoding steps of a row: min_steps * X with X ~ Pareto(index tail, scale 1), so the
/// extra steps are min_steps * (X - 1); capped at max_steps, and at least 1 (a row
/// finishes at the earliest at the step after its admission).
uint32_t drawn_steps(const sim_latency& lat, uint64_t stream) {
  double steps = lat.min_steps;
  if (lat.tail > 0) {
    const double u = keyed_uniform(stream, length_key, length_salt, 0);  // [0, 1)
    steps = std::floor(lat.min_steps * std::pow(1.0 - u, -1.0 / lat.tail));
  }
  steps = std::min(steps, static_cast<double>(lat.max_steps));
  return std::max<uint32_t>(1, static_cast<uint32_t>(steps));
}

class sim_generator final : public generation_engine {
 public:
  sim_generator(const sim_world& world, const sim_latency& latency, const tokenizer& tok)
      : train_(world.train), latency_(latency), weights_(sim_initial_weights(world)) {
    // Encoded once: admit() is O(1) apart from copying the completion.
    answers_.reserve(world.answers.size());
    for (const auto& a : world.answers) answers_.push_back(completion(tok, a));
    wrong_ = completion(tok, world.wrong_answer);
  }

  uint32_t capacity() const override { return latency_.capacity; }
  uint32_t active() const override { return static_cast<uint32_t>(rows_.size()); }

  void admit(generation_job job) override {
    if (rows_.size() >= latency_.capacity) {
      std::fprintf(stderr, "sim_generator: admit() with %zu of %u rows active\n",
                   rows_.size(), latency_.capacity);
      std::abort();
    }
    row r;
    r.res.ticket = job.ticket;
    r.res.version = weights_->version;
    r.steps_left = 1;  // A prompt outside the world finishes at the next step.
    const auto& policy = weights_->policy;
    const uint64_t id = job.prompt_id;
    const bool known =
        id < answers_.size() && id < uint64_t{policy.prompts()} + policy.held_out();
    if (known && answers_[id]) {
      const double p =
          id < train_ ? policy.pass_rate(id)
                      : policy.held_out_pass_rate(static_cast<uint32_t>(id - train_));
      const bool correct =
          job.greedy ? p > 0.5 : keyed_uniform(job.stream, answer_key, 0, 0) < p;
      const auto& tokens = correct ? answers_[id] : wrong_;
      if (tokens) {
        r.res.tokens = *tokens;
        r.res.logprobs.assign(tokens->size(), 0.f);
        const double q = std::max(correct ? p : 1.0 - p, min_probability);
        r.res.logprobs.front() = static_cast<float>(std::log(q));
        r.res.ended = true;
        r.steps_left = drawn_steps(latency_, job.stream);
      }
    }
    rows_.push_back(std::move(r));
  }

  void step(std::vector<generation_result>& out) override {
    if (latency_.step_seconds > 0)
      std::this_thread::sleep_for(std::chrono::duration<double>(latency_.step_seconds));
    // Finished rows leave in admission order; the others keep theirs.
    auto keep = rows_.begin();
    for (auto it = rows_.begin(); it != rows_.end(); ++it) {
      if (--it->steps_left == 0) {
        out.push_back(std::move(it->res));
      } else {
        if (keep != it) *keep = std::move(*it);  // Never a self-move: it empties vectors.
        ++keep;
      }
    }
    rows_.erase(keep, rows_.end());
  }

  result<weights_ptr> weights_from_bytes(std::string_view bytes, uint64_t version) const override {
    auto policy = simulated_policy::parse(bytes);
    if (!policy) return error{"sim generator: weights: " + policy.err().message};
    auto w = std::make_shared<sim_weights>(std::move(*policy));
    w->version = version;
    return weights_ptr(std::move(w));
  }

  result<bool> load(const weights_ptr& weights) override {
    if (!weights) return error{"sim generator: load(): null weights"};
    auto sim = std::dynamic_pointer_cast<const sim_weights>(weights);
    if (!sim)
      return error{"sim generator: load(): the weights are not simulated-policy weights"};
    if (sim->policy.prompts() != weights_->policy.prompts() ||
        sim->policy.held_out() != weights_->policy.held_out())
      return error{"sim generator: load(): weights of " +
                   std::to_string(sim->policy.prompts()) + "+" +
                   std::to_string(sim->policy.held_out()) + " prompts, expected " +
                   std::to_string(weights_->policy.prompts()) + "+" +
                   std::to_string(weights_->policy.held_out())};
    weights_ = std::move(sim);
    return true;
  }

  uint64_t version() const override { return weights_->version; }

 private:
  struct row {
    generation_result res;  ///< Complete from admission; returned when steps_left hits 0.
    uint32_t steps_left = 1;  ///< Invariant: >= 1 while the row is active.
  };

  /// Tokens of `text` followed by the end token; nullopt when it does not encode.
  static std::optional<std::vector<int32_t>> completion(const tokenizer& tok,
                                                        const std::string& text) {
    auto ids = tok.encode(text, "sim_world answer");
    if (!ids) return std::nullopt;
    ids->push_back(tokenizer::eos);
    return std::move(*ids);
  }

  uint64_t train_;
  sim_latency latency_;
  std::shared_ptr<const sim_weights> weights_;  ///< Invariant: never null.
  std::vector<std::optional<std::vector<int32_t>>> answers_;
  std::optional<std::vector<int32_t>> wrong_;
  std::vector<row> rows_;  ///< Admission order. Invariant: size() <= capacity.
};

class sim_learner final : public learner_engine {
 public:
  sim_learner(const sim_world& world, uint32_t updates_per_step)
      : world_train_(world.train),
        world_held_out_(held_out_count(world)),
        feature_noise_(world.model.feature_noise),
        updates_per_step_(std::max<uint32_t>(updates_per_step, 1)),
        policy_(sim_initial_weights(world)->policy) {}

  result<train_stats> train(const std::vector<train_sample>& batch) override {
    train_stats stats;
    if (batch.empty()) {  // nothing to train: a no-op step that still counts
      ++version_;
      return stats;
    }
    // One update per contiguous part of the batch (learner.updates_per_step).
    const size_t parts = std::min<size_t>(updates_per_step_, batch.size());
    double loss = 0, entropy = 0, grad = 0;
    uint64_t trained = 0;
    for (size_t k = 0; k < parts; ++k) {
      const size_t begin = batch.size() * k / parts, end = batch.size() * (k + 1) / parts;
      grad += update_on(std::span(batch).subspan(begin, end - begin), loss, entropy, trained);
    }
    for (const auto& s : batch) {
      ++stats.samples;
      stats.tokens += s.completion.size();
    }
    ++version_;
    stats.updates = uint32_t(parts);
    if (trained > 0) {
      stats.loss = loss / static_cast<double>(trained);
      stats.entropy = entropy / static_cast<double>(trained);
    }
    stats.grad_norm = grad / double(parts);
    return stats;
  }

  // One update on `part`: adds its loss and entropy terms and its trained samples;
  // returns |change of the shared skill|.
  double update_on(std::span<const train_sample> part, double& loss, double& entropy,
                   uint64_t& trained) {
    // One group per training prompt, in prompt-id order (deterministic sums).
    std::map<uint64_t, finished_group> groups;
    for (const auto& s : part) {
      if (s.prompt_id >= world_train_) continue;  // Held-out or unknown: never trained.
      auto& g = groups[s.prompt_id];
      g.prompt_id = s.prompt_id;
      g.exit = exit_kind::uniform;
      g.kept.push_back(static_cast<uint32_t>(g.kept.size()));
      g.rewards.push_back(s.reward);
      g.advantages.push_back(s.advantage);
      const double p = policy_.pass_rate(s.prompt_id);
      const double q = std::max(s.reward > 0.5f ? p : 1.0 - p, min_probability);
      loss -= static_cast<double>(s.advantage) * std::log(q);
      entropy -= p * std::log(std::max(p, min_probability)) +
                 (1 - p) * std::log(std::max(1 - p, min_probability));
      ++trained;
    }
    std::vector<finished_group> list;
    list.reserve(groups.size());
    for (auto& [id, g] : groups) {
      g.samples_used = static_cast<uint32_t>(g.kept.size());
      list.push_back(std::move(g));
    }
    return std::abs(policy_.update(list).skill_delta);
  }

  weights_ptr snapshot() override {
    auto w = std::make_shared<sim_weights>(policy_);
    w->version = version_;
    return w;
  }

  uint64_t version() const override { return version_; }

  result<prompt_features> features(const std::vector<std::vector<int32_t>>& prompts,
                                   const std::vector<uint64_t>& ids) override {
    (void)prompts;
    prompt_features out;
    for (uint64_t id : ids) {
      if (id >= world_train_) return error{"prompt " + std::to_string(id) + " is not a training prompt"};
      // Box-Muller on two uniforms keyed by the prompt: the same noise in every run.
      const double u1 = (double(mix_keys(mix_keys(feature_key, id), 1) >> 11) + 0.5) * 0x1p-53;
      const double u2 = (double(mix_keys(mix_keys(feature_key, id), 2) >> 11) + 0.5) * 0x1p-53;
      const double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
      out.push_back({float(policy_.difficulty(id) + feature_noise_ * z)});
    }
    return out;
  }

  result<bool> save(const std::string& dir) override {
    const fs::path final_dir(dir), tmp(staging_path(dir));
    std::error_code ec;
    fs::remove_all(tmp, ec);
    if (!fs::create_directories(tmp, ec) && ec)
      return error{tmp.string() + ": cannot create the directory: " + ec.message()};
    std::ostringstream text;
    text << learner_magic << " 1\nversion " << version_ << "\n" << policy_.serialize();
    auto ok = write_file_atomic((tmp / policy_file).string(), text.str());  // checked
    if (ok) ok = sync_tree(tmp.string());
    if (ok) ok = replace_directory(tmp.string(), final_dir.string());
    if (!ok) fs::remove_all(tmp, ec);
    return ok;
  }

  result<bool> restore(const std::string& dir) override {
    const std::string path = (fs::path(dir) / policy_file).string();
    std::ifstream in(path);
    if (!in) return error{path + ": cannot open"};
    std::stringstream text;
    text << in.rdbuf();
    if (in.bad()) return error{path + ": read failed"};
    // Header: "adarl-sim-learner 1" and "version N", then the policy's own text.
    std::string magic, format, key;
    uint64_t version = 0;
    text >> magic >> format >> key;
    if (magic != learner_magic || format != "1")
      return error{path + ": expected the header \"" + std::string(learner_magic) +
                   " 1\""};
    if (key != "version" || !(text >> version))
      return error{path + ": expected \"version\" and a step count after the header"};
    const auto at = text.tellg();
    const std::string all = text.str();
    auto policy = simulated_policy::parse(
        at < 0 ? std::string_view{}
               : std::string_view(all).substr(static_cast<size_t>(at)));
    if (!policy) return error{path + ": " + policy.err().message};
    if (policy->prompts() != world_train_ || policy->held_out() != world_held_out_)
      return error{path + ": a policy of " + std::to_string(policy->prompts()) + "+" +
                   std::to_string(policy->held_out()) + " prompts, expected " +
                   std::to_string(world_train_) + "+" + std::to_string(world_held_out_)};
    policy_ = std::move(*policy);
    version_ = version;
    return true;
  }

 private:
  static constexpr uint64_t feature_key = 0xfea7'0000'5eedull;  ///< Keys the features' noise.
  uint64_t world_train_;
  uint32_t world_held_out_;
  double feature_noise_;
  uint32_t updates_per_step_;
  simulated_policy policy_;
  uint64_t version_ = 0;  ///< Non-empty train() calls, or the restored step.
};

}  // namespace

std::shared_ptr<const sim_weights> sim_initial_weights(const sim_world& world) {
  std::mt19937_64 rng(world.seed);
  auto w = std::make_shared<sim_weights>(simulated_policy(
      world.model, world.train, held_out_count(world), rng, /*sample_seed=*/world.seed));
  w->version = 0;
  return w;
}

std::unique_ptr<generation_engine> make_sim_generator(const sim_world& world,
                                                      const sim_latency& latency,
                                                      const tokenizer& tok) {
  return std::make_unique<sim_generator>(world, latency, tok);
}

std::unique_ptr<learner_engine> make_sim_learner(const sim_world& world,
                                                 uint32_t updates_per_step) {
  return std::make_unique<sim_learner>(world, updates_per_step);
}

}  // namespace adarl
