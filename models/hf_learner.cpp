// The learner engine of a Hugging Face model (models/hf_engines.hpp): one optimizer step
// per train() call, micro-batched, token-mean over the whole batch, as the transformer's
// (models/torch_learner.cpp); checkpoints are HF directories (models/hf_weights.hpp).

#include <ATen/autocast_mode.h>
#include <torch/version.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "models/device.hpp"
#include "models/hf_policy.hpp"
#include "models/snapshot.hpp"
#include "models/loss.hpp"
#include "models/prompt_features.hpp"

namespace adarl {

namespace {

error torch_error(const std::string& what, const std::exception& e) {
  if (const auto* c10 = dynamic_cast<const c10::Error*>(&e))
    return error{what + ": " + c10->what_without_backtrace()};
  return error{what + ": " + e.what()};
}

// bfloat16 autocast on CUDA while in scope (LibTorch 1.13 and 2.x spell it differently).
class autocast_scope {
 public:
  explicit autocast_scope(bool on) : on_(on) {
    if (on_) set(true);
  }
  ~autocast_scope() {
    if (!on_) return;
    set(false);
    at::autocast::clear_cache();
  }
  autocast_scope(const autocast_scope&) = delete;
  autocast_scope& operator=(const autocast_scope&) = delete;

 private:
  static void set(bool enabled) {
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
    at::autocast::set_autocast_enabled(at::kCUDA, enabled);
    at::autocast::set_autocast_dtype(at::kCUDA, at::kBFloat16);
#else
    at::autocast::set_enabled(enabled);
    at::autocast::set_autocast_gpu_dtype(at::kBFloat16);
#endif
  }
  bool on_;
};

class hf_learner final : public learner_engine {
 public:
  hf_learner(hf_learner_config c, torch::Device device, hf_policy policy)
      : config_(std::move(c)),
        device_(device),
        model_(policy.model),
        source_(std::move(policy.source)),
        autocast_(config_.autocast_bf16 && device.is_cuda()) {
    opt_ = std::make_unique<policy_optimizer>(model_.ptr(), config_.optimizer);
  }

  result<train_stats> train(const std::vector<train_sample>& batch) override {
    const auto& mc = model_->config();
    std::vector<const train_sample*> kept;
    uint64_t total_tokens = 0;
    for (size_t i = 0; i < batch.size(); ++i) {
      if (batch[i].completion.empty()) continue;
      if (auto p = train_sample_problem(batch[i], i, mc.vocab_size, model_->context_length());
          !p.empty())
        return error{p};
      kept.push_back(&batch[i]);
      total_tokens += batch[i].completion.size();
    }
    train_stats stats;
    if (kept.empty()) {  // nothing to train (e.g. DAPO dropped every group): a no-op step
      ++version_;
      return stats;
    }
    try {
      torch::AutoGradMode grad(true);
      if (at::get_num_threads() != config_.policy.threads)
        at::set_num_threads(config_.policy.threads);
      model_->train();
      opt_->zero_grad();
      stats.mean_ratio = 0;
      const size_t mb = size_t(config_.micro_batch);
      for (size_t begin = 0; begin < kept.size(); begin += mb)
        accumulate(kept, begin, std::min(kept.size(), begin + mb), double(total_tokens), stats);
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

  weights_ptr snapshot() override { return take_snapshot(*model_, version_); }

  result<prompt_features> features(const std::vector<std::vector<int32_t>>& prompts,
                                   const std::vector<uint64_t>& ids) override {
    (void)ids;
    auto& m = model_;
    return last_token_features(
        prompts, [&m](const torch::Tensor& t, const torch::Tensor& k) { return m->hidden(t, k); },
        m->device(), config_.pad_id);
  }

  uint64_t version() const override { return version_; }

  result<bool> save(const std::string& dir) override {
    try {
      torch::NoGradGuard no_grad;
      return save_hf_checkpoint(dir, model_, source_, opt_.get(), int64_t(version_));
    } catch (const std::exception& e) {
      return torch_error(dir + ": save", e);
    }
  }

  result<bool> restore(const std::string& dir) override {
    try {
      // Without saved optimizer state, moments of the previous weights would be wrong.
      if (!std::filesystem::exists(dir + "/optimizer.safetensors"))
        opt_ = std::make_unique<policy_optimizer>(model_.ptr(), config_.optimizer);
      auto step = load_hf_checkpoint(dir, model_, opt_.get());
      if (!step) return step.err();
      version_ = uint64_t(*step);
      return true;
    } catch (const std::exception& e) {
      return torch_error(dir + ": restore", e);
    }
  }

 private:
  // Forward and backward of samples [begin, end), the loss divided by the whole batch's
  // token count, so that the accumulated gradient is the batch's token-mean.
  void accumulate(const std::vector<const train_sample*>& kept, size_t begin, size_t end,
                  double batch_tokens, train_stats& stats) {
    auto mb = gather_micro_batch(kept, begin, end);
    torch::Tensor loss;
    completion_scores scores;
    {
      autocast_scope cast(autocast_);
      scores = score_completions(*model_, mb.prompts, mb.completions, config_.temperature,
                                    config_.pad_id);
      const loss_batch b{scores.logp, mb.old_logp.to(device_), mb.advantages.to(device_),
                         scores.mask};
      auto part = clipped_surrogate_part(b, config_.loss, batch_tokens);
      loss = part.loss;
      stats.clip_fraction += part.clip_fraction;
      stats.mean_ratio += part.mean_ratio;
    }
    loss.backward();
    stats.loss += loss.item<double>();
    double part_tokens = 0;
    for (const auto& c : mb.completions) part_tokens += double(c.size());
    stats.entropy += mean_entropy(scores.logits, scores.mask) * part_tokens / batch_tokens;
  }

  hf_learner_config config_;
  torch::Device device_;
  hf_model model_;
  hf_source source_;                       ///< Written back with every checkpoint.
  bool autocast_;
  std::unique_ptr<policy_optimizer> opt_;  ///< Built on model_'s parameters.
  uint64_t version_ = 0;
};

}  // namespace

result<std::unique_ptr<learner_engine>> make_hf_learner(const hf_learner_config& c) {
  auto device = parse_device(c.policy.device);
  if (!device) return device.err();
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
    auto policy = build_hf_policy(c.policy, *device);
    if (!policy) return policy.err();
    if (c.pad_id < 0 || c.pad_id >= policy->model->config().vocab_size)
      return error{"learner pad id " + std::to_string(c.pad_id) + " outside the vocabulary"};
    return std::unique_ptr<learner_engine>(
        std::make_unique<hf_learner>(c, *device, std::move(*policy)));
  } catch (const std::exception& e) {
    return torch_error("learner", e);
  }
}

}  // namespace adarl
