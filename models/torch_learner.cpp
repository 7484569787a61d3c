// The LibTorch learner engine (models/torch_learner.hpp): one optimizer step per
// train() call, micro-batched, with the token-mean over the whole batch. The replicated
// parts are in torch_learner_replicas.cpp.
#include "models/torch_learner.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "engines/batch_shares.hpp"
#include "models/checkpoint.hpp"
#include "models/device.hpp"
#include "models/loss.hpp"
#include "models/optimizer.hpp"
#include "models/prompt_features.hpp"
#include "models/sampler.hpp"
#include "models/snapshot.hpp"

namespace adarl {

namespace {

// A torch exception as an error: the message without the C++ backtrace.
error torch_error(const std::string& what, const std::exception& e) {
  return error{what + ": " + exception_text(e)};
}

}  // namespace

std::string exception_text(const std::exception& e) {
  if (const auto* c10 = dynamic_cast<const c10::Error*>(&e)) return c10->what_without_backtrace();
  return e.what();
}

result<prompt_features> torch_learner::features(const std::vector<std::vector<int32_t>>& prompts,
                                                const std::vector<uint64_t>& ids) {
  (void)ids;
  auto& m = model_;
  return last_token_features(
      prompts, [&m](const torch::Tensor& t, const torch::Tensor& k) { return m->hidden(t, k); },
      device_);
}

torch_learner::torch_learner(torch_learner_config c, torch::Device device)
    : config_(std::move(c)), device_(device), model_(config_.policy.model) {
  model_->to(device_);
  opt_ = std::make_unique<policy_optimizer>(model_, config_.optimizer);
}

result<bool> torch_learner::load_base(const std::string& dir) {
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

// Loads a checkpoint (weights, and the optimizer when saved); the charset must be the
// configured one, since token ids mean characters of it. Rank 0 of replicas then hands
// the restored state to the others, so that every rank resumes from the same one.
result<bool> torch_learner::restore(const std::string& dir) {
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
  } catch (const std::exception& e) {
    return torch_error(dir + ": restore", e);
  }
  if (group_) {
    try {
      const auto header = state_header();
      group_->post("S" + header);
      sync_state(header);
    } catch (const std::exception& e) {
      group_failed_ = true;
      return error{dir + ": restore: handing the state to the other ranks: " +
                   group_->blame(exception_text(e))};
    }
  }
  return true;
}

result<std::vector<const train_sample*>> torch_learner::kept_of(
    const std::vector<train_sample>& batch) const {
  std::vector<const train_sample*> kept;
  for (size_t i = 0; i < batch.size(); ++i) {
    if (batch[i].completion.empty()) continue;
    const auto& m = config_.policy.model;
    if (auto p = train_sample_problem(batch[i], i, m.vocab_size, m.max_len); !p.empty())
      return error{p};
    kept.push_back(&batch[i]);
  }
  return kept;
}

result<train_stats> torch_learner::train(const std::vector<train_sample>& batch) {
  auto kept = kept_of(batch);
  if (!kept) return kept.err();
  try {
    if (group_) group_->post("T" + encode_train_batch(batch));
    return step_on(*kept);
  } catch (const std::exception& e) {
    opt_->zero_grad();
    const std::string what = "learner train step " + std::to_string(version_ + 1);
    if (group_) {
      group_failed_ = true;
      return error{what + ": " + group_->blame(exception_text(e))};
    }
    return torch_error(what, e);
  }
}

train_stats torch_learner::step_on(const std::vector<const train_sample*>& all) {
  // This rank's share: the whole batch alone, else its part of the split by tokens.
  std::vector<const train_sample*> kept = all;
  double count_seconds = 0;
  uint64_t total_tokens = 0, total_samples = all.size();
  for (const auto* s : all) total_tokens += s->completion.size();
  if (group_) {
    std::vector<uint64_t> tokens;
    for (const auto* s : all) tokens.push_back(s->completion.size());
    kept.clear();
    for (size_t i : split_by_tokens(tokens, group_->world())[group_->rank()])
      kept.push_back(all[i]);
    // The global token count first: every rank divides by the whole batch's, so the
    // summed gradient is one learner's token-mean (and the count checks the split).
    uint64_t mine = 0;
    for (const auto* s : kept) mine += s->completion.size();
    auto counts = torch::tensor({double(mine), double(kept.size())}, torch::kFloat64);
    const auto t0 = std::chrono::steady_clock::now();
    group_->allreduce(counts);
    count_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    total_tokens = uint64_t(counts[0].item<double>());
    total_samples = uint64_t(counts[1].item<double>());
  }
  train_stats stats;
  stats.reduce_seconds = count_seconds;
  if (total_samples == 0) {  // nothing to train (e.g. DAPO dropped every group): a no-op step
    ++version_;
    return stats;
  }
  // A detached actor's thread: set what is thread-local here, not elsewhere.
  torch::AutoGradMode grad(true);
  if (at::get_num_threads() != config_.policy.threads) at::set_num_threads(config_.policy.threads);
  model_->train();
  opt_->zero_grad();
  stats.mean_ratio = 0;  // a sum of the micro-batches' shares from here
  const double tokens = double(total_tokens);
  const size_t mb = size_t(config_.micro_batch);
  for (size_t begin = 0; begin < kept.size(); begin += mb)
    accumulate(kept, begin, std::min(kept.size(), begin + mb), tokens, stats);
  if (group_) reduce_gradients(stats);
  stats.grad_norm = opt_->step();
  ++version_;
  stats.samples = total_samples;
  stats.tokens = total_tokens;
  if (group_ && config_.replicas.check_every_step) {
    auto h = torch::tensor({parameter_hash()}, torch::kInt64);
    auto lo = h.clone();
    group_->allreduce(h, "max");
    group_->allreduce(lo, "min");
    if (h.item<int64_t>() != lo.item<int64_t>())
      throw std::runtime_error("the ranks' parameters differ after step " +
                               std::to_string(version_) + " (learner.check_replicas)");
  }
  return stats;
}

weights_ptr torch_learner::snapshot() {
  torch::NoGradGuard no_grad;
  return take_snapshot(model_, version_);
}

result<bool> torch_learner::save(const std::string& dir) {
  try {
    torch::NoGradGuard no_grad;
    return save_checkpoint(dir, model_, opt_.get(),
                           {int64_t(version_), config_.policy.model, config_.policy.charset});
  } catch (const std::exception& e) {
    return torch_error(dir + ": save", e);
  }
}

// Forward and backward of samples [begin, end): the loss is divided by the whole
// batch's token count, so the accumulated gradient is the whole batch's token-mean.
void torch_learner::accumulate(const std::vector<const train_sample*>& kept, size_t begin,
                               size_t end, double batch_tokens, train_stats& stats) {
  auto mb = gather_micro_batch(kept, begin, end);
  auto scores = score_completions(*model_, mb.prompts, mb.completions, config_.temperature);
  const loss_batch b{scores.logp, mb.old_logp.to(device_), mb.advantages.to(device_),
                     scores.mask};
  auto part = clipped_surrogate_part(b, config_.loss, batch_tokens);
  part.loss.backward();
  stats.loss += part.loss.item<double>();
  stats.clip_fraction += part.clip_fraction;
  stats.mean_ratio += part.mean_ratio;
  double part_tokens = 0;
  for (const auto& c : mb.completions) part_tokens += double(c.size());
  stats.entropy += mean_entropy(scores.logits, scores.mask) * part_tokens / batch_tokens;
}


result<std::unique_ptr<torch_learner>> build_torch_learner(const torch_learner_config& c) {
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
  if (c.replicas.replicas < 1)
    return error{"learner.replicas: expected a positive integer, got 0"};
  try {
    at::set_num_threads(c.policy.threads);
    // The seed is global: learners built at once in one process (replica ranks as
    // threads) would otherwise draw each other's initial weights.
    static std::mutex init_mutex;
    std::lock_guard<std::mutex> lock(init_mutex);
    torch::manual_seed(c.policy.init_seed);
    auto engine = std::make_unique<torch_learner>(c, *device);
    if (!c.policy.init_checkpoint.empty()) {
      auto loaded = engine->load_base(c.policy.init_checkpoint);
      if (!loaded) return loaded.err();
    }
    return engine;
  } catch (const std::exception& e) {
    return torch_error("learner", e);
  }
}

result<std::unique_ptr<learner_engine>> make_torch_learner(const torch_learner_config& c,
                                                          const replica_join_watch& watch) {
  if (c.replicas.replicas > 1 && c.replicas.rank != 0)
    return error{"learner rank " + std::to_string(c.replicas.rank) +
                 ": the coordinator's learner is rank 0 (other ranks: adarl worker learn)"};
  auto engine = build_torch_learner(c);
  if (!engine) return engine.err();
  if (c.replicas.replicas > 1)
    if (auto ok = (*engine)->join_replicas(watch); !ok) return ok.err();
  return std::unique_ptr<learner_engine>(std::move(*engine));
}

}  // namespace adarl
