// The one learner engine (models/train/policy_learner.hpp): one optimizer step per train()
// call, micro-batched, with the token-mean over the whole batch, for every architecture.
// The replicated parts are in policy_learner_replicas.cpp.
#include "models/train/policy_learner.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engines/batch_shares.hpp"
#include "models/train/loss.hpp"
#include "models/arch/prompt_features.hpp"
#include "models/arch/logprobs.hpp"
#include "models/torch_compat.hpp"
#include "models/weights/snapshot.hpp"

namespace adarl {

namespace {

// bfloat16 autocast on CUDA while in scope.
class autocast_scope {
 public:
  explicit autocast_scope(bool on) : on_(on) {
    if (on_) torch_compat::set_cuda_autocast_bf16(true);
  }
  ~autocast_scope() {
    if (on_) torch_compat::set_cuda_autocast_bf16(false);
  }
  autocast_scope(const autocast_scope&) = delete;
  autocast_scope& operator=(const autocast_scope&) = delete;

 private:
  bool on_;
};

}  // namespace

std::string exception_text(const std::exception& e) {
  if (const auto* c10 = dynamic_cast<const c10::Error*>(&e)) return c10->what_without_backtrace();
  return e.what();
}

error torch_error(const std::string& what, const std::exception& e) {
  return error{what + ": " + exception_text(e)};
}

std::string learner_settings_problem(const learner_settings& s) {
  if (s.updates_per_step < 1)
    return "learner updates_per_step: expected a positive integer, got " +
           std::to_string(s.updates_per_step);
  if (s.micro_batch < 1)
    return "learner micro_batch: expected a positive integer, got " +
           std::to_string(s.micro_batch);
  if (!(s.temperature > 0))
    return "learner temperature: expected a positive number, got " +
           std::to_string(s.temperature);
  if (s.threads < 1)
    return "learner threads: expected a positive integer, got " + std::to_string(s.threads);
  if (s.replicas.replicas < 1) return "learner.replicas: expected a positive integer, got 0";
  return "";
}

policy_learner::policy_learner(learner_settings s, torch::Device device, learner_model model,
                               std::unique_ptr<learner_checkpoints> checkpoints)
    : settings_(std::move(s)),
      device_(device),
      model_(std::move(model)),
      checkpoints_(std::move(checkpoints)),
      autocast_(settings_.autocast_bf16 && device.is_cuda()) {
  model_.module->to(device_);
  opt_ = std::make_unique<policy_optimizer>(model_.module, settings_.optimizer);
}

result<bool> policy_learner::load_base(const std::string& dir) {
  try {
    auto loaded = checkpoints_->load(dir, nullptr);
    if (!loaded) return loaded.err();
    version_ = 0;
    return true;
  } catch (const std::exception& e) {
    return torch_error(dir + ": base checkpoint", e);
  }
}

// Loads a checkpoint (weights, and the optimizer when saved). Rank 0 of replicas then
// hands the restored state to the others, so that every rank resumes from the same one.
result<bool> policy_learner::restore(const std::string& dir) {
  try {
    if (!checkpoints_->has_optimizer_state(dir))
      opt_ = std::make_unique<policy_optimizer>(model_.module, settings_.optimizer);
    auto step = checkpoints_->load(dir, opt_.get());
    if (!step) return step.err();
    version_ = uint64_t(*step);
  } catch (const std::exception& e) {
    return torch_error(dir + ": restore", e);
  }
  if (group_) return hand_state(dir + ": restore");
  return true;
}

result<bool> policy_learner::save(const std::string& dir) {
  try {
    torch::NoGradGuard no_grad;
    // A checkpoint of non-finite weights would be published as `latest` and resumed
    // from: refuse it, so that the newest checkpoint stays the last finite one.
    for (const auto& p : model_.module->named_parameters())
      if (!torch::isfinite(p.value()).all().item<bool>())
        return error{dir + ": not written: the weights of " + p.key() +
                     " are not finite (the last checkpoint written holds finite weights)"};
    return checkpoints_->save(dir, *opt_, int64_t(version_));
  } catch (const std::exception& e) {
    return torch_error(dir + ": save", e);
  }
}

weights_ptr policy_learner::snapshot() {
  torch::NoGradGuard no_grad;
  return take_snapshot(*model_.module, version_);
}

result<prompt_features> policy_learner::features(const std::vector<std::vector<int32_t>>& prompts,
                                                 const std::vector<uint64_t>& ids) {
  (void)ids;
  auto& m = *model_.policy;
  return last_token_features(
      prompts, [&m](const torch::Tensor& t, const torch::Tensor& k) { return m.hidden(t, k); },
      m.device(), settings_.pad_id);
}

result<std::vector<const train_sample*>> policy_learner::kept_of(
    const std::vector<train_sample>& batch) const {
  std::vector<const train_sample*> kept;
  const int64_t vocab = model_.policy->vocab_size();
  const int64_t max_len = model_.policy->context_length();
  for (size_t i = 0; i < batch.size(); ++i) {
    if (batch[i].completion.empty()) continue;
    if (auto p = train_sample_problem(batch[i], i, vocab, max_len); !p.empty()) return error{p};
    kept.push_back(&batch[i]);
  }
  return kept;
}

result<train_stats> policy_learner::train(const std::vector<train_sample>& batch) {
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

std::vector<const train_sample*> policy_learner::share_of(
    const std::vector<const train_sample*>& all, uint64_t& tokens, uint64_t& samples,
    double& seconds) {
  tokens = 0;
  samples = all.size();
  seconds = 0;
  for (const auto* s : all) tokens += s->completion.size();
  if (!group_) return all;
  std::vector<uint64_t> lengths;
  for (const auto* s : all) lengths.push_back(s->completion.size());
  std::vector<const train_sample*> mine;
  for (size_t i : split_by_tokens(lengths, group_->world())[group_->rank()])
    mine.push_back(all[i]);
  // The global token count first: every rank divides by the whole batch's, so the
  // summed gradient is one learner's token-mean (and the count checks the split).
  uint64_t my_tokens = 0;
  for (const auto* s : mine) my_tokens += s->completion.size();
  auto counts = torch::tensor({double(my_tokens), double(mine.size())}, torch::kFloat64);
  const auto t0 = std::chrono::steady_clock::now();
  group_->allreduce(counts);
  seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  tokens = uint64_t(counts[0].item<double>());
  samples = uint64_t(counts[1].item<double>());
  return mine;
}

train_stats policy_learner::step_on(const std::vector<const train_sample*>& all) {
  // One update per contiguous mini-batch: every rank splits the same batch alike.
  const size_t parts =
      std::max<size_t>(1, std::min<size_t>(size_t(settings_.updates_per_step), all.size()));
  train_stats stats;
  double ratio_sum = 0;  // of the applied updates' mean ratios
  for (size_t k = 0; k < parts; ++k) {
    const std::vector<const train_sample*> part(all.begin() + ptrdiff_t(all.size() * k / parts),
                                                all.begin() + ptrdiff_t(all.size() * (k + 1) / parts));
    // The first update sees the weights the step starts from: what drew its fresh samples.
    const auto u = update_on(part, k == 0);
    if (k == 0) {
      stats.logprob_gap_tokens = u.logprob_gap_tokens;
      stats.logprob_gap = u.logprob_gap_tokens ? u.logprob_gap / double(u.logprob_gap_tokens) : 0;
    }
    stats.samples += u.samples;
    stats.tokens += u.tokens;
    stats.reduced_bytes += u.reduced_bytes;
    stats.reduce_seconds += u.reduce_seconds;
    if (!u.nonfinite.empty()) {  // not applied; nor are the step's later updates
      stats.nonfinite = u.nonfinite;
      stats.loss = u.loss;
      stats.grad_norm = u.grad_norm;
      break;
    }
    if (u.samples == 0) continue;
    ++stats.updates;
    stats.loss += u.loss;
    stats.grad_norm += u.grad_norm;
    stats.entropy += u.entropy;
    stats.clip_fraction += u.clip_fraction;
    ratio_sum += u.mean_ratio;
  }
  if (stats.updates > 0 && stats.nonfinite.empty()) {
    const double n = stats.updates;
    stats.loss /= n;
    stats.grad_norm /= n;
    stats.entropy /= n;
    stats.clip_fraction /= n;
    stats.mean_ratio = ratio_sum / n;
  }
  ++version_;
  if (group_ && settings_.replicas.check_every_step) check_replicas();
  return stats;
}

train_stats policy_learner::update_on(const std::vector<const train_sample*>& all, bool gap) {
  uint64_t total_tokens = 0, total_samples = 0;
  train_stats stats;
  const auto kept = share_of(all, total_tokens, total_samples, stats.reduce_seconds);
  if (total_samples == 0) return stats;  // nothing to train (e.g. DAPO dropped every group)
  // A detached actor's thread: set what is thread-local here, not elsewhere.
  torch::AutoGradMode grad(true);
  if (at::get_num_threads() != settings_.threads) at::set_num_threads(settings_.threads);
  model_.module->train();
  opt_->zero_grad();
  stats.mean_ratio = 0;  // a sum of the micro-batches' shares from here
  const double tokens = double(total_tokens);
  const size_t mb = size_t(settings_.micro_batch);
  for (size_t begin = 0; begin < kept.size(); begin += mb)
    accumulate(kept, begin, std::min(kept.size(), begin + mb), tokens, stats, gap);
  if (group_) reduce_gradients(stats);
  // A non-finite loss or gradient is never applied. Every rank decides alike: the
  // gradients are all-reduced (a rank's NaN reaches every rank's norm), the loss is not,
  // so replicated learners decide on the norm alone.
  if (!group_ && !std::isfinite(stats.loss)) {
    stats.nonfinite = "loss";
    opt_->zero_grad();
  } else {
    stats.grad_norm = opt_->step();
    if (!std::isfinite(stats.grad_norm)) stats.nonfinite = "gradient norm";
  }
  stats.samples = total_samples;
  stats.tokens = total_tokens;
  return stats;
}

// The log-prob gap of samples [begin, end) drawn by the weights the learner holds now
// (version == version_): |log p_learner - log p_behaviour| summed over their tokens into
// stats.logprob_gap, their token count into logprob_gap_tokens. On-policy they should
// agree to rounding; a larger gap is a generator (a server's sampler, a quantized model,
// other weights) drawing from another distribution than the one the ratio assumes.
void policy_learner::add_logprob_gap(const std::vector<const train_sample*>& kept, size_t begin,
                                     size_t end, const completion_scores& scores,
                                     const micro_batch& mb, train_stats& stats) const {
  std::vector<float> fresh(end - begin, 0.f);
  bool any = false;
  for (size_t i = begin; i < end; ++i)
    if (kept[i]->version == version_) fresh[i - begin] = 1.f, any = true;
  if (!any) return;
  torch::NoGradGuard no_grad;
  const auto rows = torch::tensor(fresh).to(device_).unsqueeze(1);
  const auto old = mb.old_logp.to(device_);
  const auto given = torch::logical_not(torch::isnan(old)).to(torch::kFloat);  // see loss.cpp
  const auto mask = scores.mask.to(torch::kFloat) * rows * given;
  const auto diff = torch::nan_to_num((scores.logp.detach().to(torch::kFloat) - old).abs(), 0.0);
  stats.logprob_gap += (diff * mask).sum().item<double>();
  stats.logprob_gap_tokens += uint64_t(mask.sum().item<double>() + 0.5);
}

// Forward and backward of samples [begin, end): the loss is divided by the whole
// batch's token count, so the accumulated gradient is the whole batch's token-mean.
void policy_learner::accumulate(const std::vector<const train_sample*>& kept, size_t begin,
                                size_t end, double batch_tokens, train_stats& stats,
                                bool gap) {
  auto mb = gather_micro_batch(kept, begin, end);
  torch::Tensor loss;
  completion_scores scores;
  {
    autocast_scope cast(autocast_);
    scores = score_completions(*model_.policy, mb.prompts, mb.completions,
                               settings_.temperature, settings_.pad_id);
    const loss_batch b{scores.logp, mb.old_logp.to(device_), mb.advantages.to(device_),
                       scores.mask};
    auto part = clipped_surrogate_part(b, settings_.loss, batch_tokens);
    loss = part.loss;
    stats.clip_fraction += part.clip_fraction;
    stats.mean_ratio += part.mean_ratio;
  }
  if (gap) add_logprob_gap(kept, begin, end, scores, mb, stats);
  loss.backward();
  stats.loss += loss.item<double>();
  double part_tokens = 0;
  for (const auto& c : mb.completions) part_tokens += double(c.size());
  stats.entropy += mean_entropy(scores.logits, scores.mask) * part_tokens / batch_tokens;
}

}  // namespace adarl
