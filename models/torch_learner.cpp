// The LibTorch learner engine (models/torch_engines.hpp): one optimizer step per
// train() call, micro-batched, with the token-mean over the whole batch.

#include <algorithm>
#include <filesystem>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "models/checkpoint.hpp"
#include "models/device.hpp"
#include "models/loss.hpp"
#include "models/optimizer.hpp"
#include "models/sampler.hpp"
#include "models/snapshot.hpp"
#include "models/torch_engines.hpp"

namespace adarl {

namespace {

// A torch exception as an error: the message without the C++ backtrace.
error torch_error(const std::string& what, const std::exception& e) {
  if (const auto* c10 = dynamic_cast<const c10::Error*>(&e))
    return error{what + ": " + c10->what_without_backtrace()};
  return error{what + ": " + e.what()};
}

// Problems of one sample that would otherwise surface as an opaque torch error (or
// silently wrong gradients): "" when it can be trained on.
std::string sample_problem(const train_sample& s, size_t i, const model_config& m) {
  std::ostringstream out;
  out << "train sample " << i << " (prompt " << s.prompt_id << "): ";
  if (s.behaviour_logprobs.size() != s.completion.size()) {
    out << s.behaviour_logprobs.size() << " behaviour log-probs for " << s.completion.size()
        << " completion tokens";
    return out.str();
  }
  if (s.prompt.empty()) return out.str() + "empty prompt";
  const size_t len = s.prompt.size() + s.completion.size();
  if (len > size_t(m.max_len)) {
    out << "prompt + completion is " << len << " tokens, the model's max_len " << m.max_len;
    return out.str();
  }
  for (const auto* part : {&s.prompt, &s.completion})
    for (int32_t t : *part)
      if (t < 0 || t >= m.vocab_size) {
        out << "token id " << t << " outside the vocabulary [0, " << m.vocab_size << ")";
        return out.str();
      }
  return "";
}

class torch_learner final : public learner_engine {
 public:
  torch_learner(torch_learner_config c, torch::Device device)
      : config_(std::move(c)), device_(device), model_(config_.policy.model) {
    model_->to(device_);
    opt_ = std::make_unique<policy_optimizer>(model_, config_.optimizer);
  }

  // Loads a checkpoint (weights, and the optimizer when saved); the charset must be
  // the configured one, since token ids mean characters of it.
  /// A base policy (e.g. the SFT warm start): its weights only; the RL run counts its
  /// own versions from 0 with a fresh optimizer.
  result<bool> load_base(const std::string& dir) {
    try {
      auto meta = read_checkpoint_meta(dir);
      if (!meta) return meta.err();
      if (!config_.policy.charset.empty() && meta->charset != config_.policy.charset)
        return error{dir + ": the checkpoint's tokenizer charset differs from the configured one"};
      auto loaded = load_checkpoint(dir, model_, nullptr);
      if (!loaded) return loaded.err();
      version_ = 0;
      return true;
    } catch (const std::exception& e) {
      return torch_error(dir + ": base checkpoint", e);
    }
  }

  result<bool> load(const std::string& dir) {
    try {
      auto meta = read_checkpoint_meta(dir);
      if (!meta) return meta.err();
      if (!config_.policy.charset.empty() && meta->charset != config_.policy.charset)
        return error{dir + ": the checkpoint's tokenizer charset differs from the configured one"};
      // Without saved optimizer state, moments of the previous weights would be wrong.
      const std::filesystem::path d(dir);
      if (!std::filesystem::exists(d / "optimizer.safetensors") &&
          !std::filesystem::exists(d / "optimizer.pt"))
        opt_ = std::make_unique<policy_optimizer>(model_, config_.optimizer);
      auto loaded = load_checkpoint(dir, model_, opt_.get());
      if (!loaded) return loaded.err();
      version_ = uint64_t(loaded->step);
      return true;
    } catch (const std::exception& e) {
      return torch_error(dir + ": restore", e);
    }
  }

  result<train_stats> train(const std::vector<train_sample>& batch) override {
    const auto& mc = config_.policy.model;
    std::vector<const train_sample*> kept;
    uint64_t total_tokens = 0;
    for (size_t i = 0; i < batch.size(); ++i) {
      if (batch[i].completion.empty()) continue;
      if (auto p = sample_problem(batch[i], i, mc); !p.empty()) return error{p};
      kept.push_back(&batch[i]);
      total_tokens += batch[i].completion.size();
    }
    train_stats stats;
    if (kept.empty()) {  // nothing to train (e.g. DAPO dropped every group): a no-op step
      ++version_;
      return stats;
    }
    try {
      // A detached actor's thread: set what is thread-local here, not elsewhere.
      torch::AutoGradMode grad(true);
      if (at::get_num_threads() != config_.policy.threads)
        at::set_num_threads(config_.policy.threads);
      model_->train();
      opt_->zero_grad();
      stats.mean_ratio = 0;  // a sum of the micro-batches' shares from here
      const double tokens = double(total_tokens);
      const size_t mb = size_t(config_.micro_batch);
      for (size_t begin = 0; begin < kept.size(); begin += mb) {
        const size_t end = std::min(kept.size(), begin + mb);
        accumulate(kept, begin, end, tokens, stats);
      }
      stats.grad_norm = opt_->step();
      ++version_;
      stats.samples = kept.size();
      stats.tokens = total_tokens;
      return stats;
    } catch (const std::exception& e) {
      opt_->zero_grad();
      return torch_error("learner train step " + std::to_string(version_ + 1), e);
    }
  }

  weights_ptr snapshot() override {
    torch::NoGradGuard no_grad;
    return take_snapshot(model_, version_);
  }

  uint64_t version() const override { return version_; }

  result<bool> save(const std::string& dir) override {
    try {
      torch::NoGradGuard no_grad;
      return save_checkpoint(dir, model_, opt_.get(),
                             {int64_t(version_), config_.policy.model, config_.policy.charset});
    } catch (const std::exception& e) {
      return torch_error(dir + ": save", e);
    }
  }

  result<bool> restore(const std::string& dir) override { return load(dir); }

 private:
  // Forward and backward of samples [begin, end): the loss is divided by the whole
  // batch's token count, so the accumulated gradient is the whole batch's token-mean.
  void accumulate(const std::vector<const train_sample*>& kept, size_t begin, size_t end,
                  double batch_tokens, train_stats& stats) {
    std::vector<std::vector<int32_t>> prompts, completions;
    size_t cmax = 1;
    for (size_t i = begin; i < end; ++i) {
      prompts.push_back(kept[i]->prompt);
      completions.push_back(kept[i]->completion);
      cmax = std::max(cmax, kept[i]->completion.size());
    }
    const auto n = int64_t(end - begin);
    auto old = torch::zeros({n, int64_t(cmax)}, torch::kFloat);
    auto adv = torch::zeros({n}, torch::kFloat);
    auto o = old.accessor<float, 2>();
    auto a = adv.accessor<float, 1>();
    for (int64_t i = 0; i < n; ++i) {
      const auto& s = *kept[begin + size_t(i)];
      for (size_t j = 0; j < s.behaviour_logprobs.size(); ++j) o[i][j] = s.behaviour_logprobs[j];
      a[i] = s.advantage;
    }
    auto scores = score_completions(model_, prompts, completions, config_.temperature);
    auto part = clipped_surrogate_part(
        {scores.logp, old.to(device_), adv.to(device_), scores.mask}, config_.loss,
        batch_tokens);
    part.loss.backward();
    stats.loss += part.loss.item<double>();
    stats.clip_fraction += part.clip_fraction;
    stats.mean_ratio += part.mean_ratio;
    double part_tokens = 0;
    for (const auto& c : completions) part_tokens += double(c.size());
    stats.entropy += mean_entropy(scores.logits, scores.mask) * part_tokens / batch_tokens;
  }

  torch_learner_config config_;
  torch::Device device_;
  transformer model_;
  std::unique_ptr<policy_optimizer> opt_;  ///< Built on model_'s parameters.
  uint64_t version_ = 0;                   ///< Optimizer steps (or the checkpoint's step).
};

}  // namespace

result<std::unique_ptr<learner_engine>> make_torch_learner(const torch_learner_config& c) {
  auto device = parse_device(c.policy.device);
  if (!device) return device.err();
  if (auto problems = c.policy.model.problems(); !problems.empty()) {
    std::string text = "learner model";
    for (const auto& p : problems) text += "; " + p;
    return error{text};
  }
  if (c.micro_batch < 1)
    return error{"learner micro_batch: expected a positive integer, got " +
                 std::to_string(c.micro_batch)};
  if (!(c.temperature > 0))
    return error{"learner temperature: expected a positive number, got " +
                 std::to_string(c.temperature)};
  if (c.policy.threads < 1)
    return error{"learner threads: expected a positive integer, got " +
                 std::to_string(c.policy.threads)};
  try {
    at::set_num_threads(c.policy.threads);
    torch::manual_seed(c.policy.init_seed);
    auto engine = std::make_unique<torch_learner>(c, *device);
    if (!c.policy.init_checkpoint.empty()) {
      auto loaded = engine->load_base(c.policy.init_checkpoint);
      if (!loaded) return loaded.err();
    }
    return std::unique_ptr<learner_engine>(std::move(engine));
  } catch (const std::exception& e) {
    return torch_error("learner", e);
  }
}

}  // namespace adarl
