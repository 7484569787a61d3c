#pragma once
// The one learner engine of every architecture (models/arch/policy_model.hpp): micro-batched
// optimizer steps with the token-mean over the whole batch, bf16 autocast on CUDA and
// data-parallel replicas. What differs per architecture (where checkpoints go, how the
// model is built) comes in a learner_checkpoints and the factories of
// models/torch_engines.hpp and models/hf_engines.hpp. Internal to models/: includes
// LibTorch.

#include <torch/torch.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engines/replica_config.hpp"
#include "engines/replica_join_watch.hpp"
#include "engines/engine.hpp"
#include "engines/learner_spec.hpp"
#include "engines/train_config.hpp"
#include "models/train/optimizer.hpp"
#include "models/arch/policy_model.hpp"
#include "models/train/replica_group.hpp"

namespace adarl {

struct completion_scores;  // models/arch/logprobs.hpp
struct micro_batch;        // models/train/loss.hpp

/// A learner's checkpoints in its architecture's format (the transformer's directory,
/// an HF directory).
class learner_checkpoints {
 public:
  virtual ~learner_checkpoints() = default;
  /// Writes the model and `opt`'s state as checkpoint `step` into dir.
  virtual result<bool> save(const std::string& dir, policy_optimizer& opt, int64_t step) = 0;
  /// Reads dir into the model (and into `opt` when given and saved); returns its step.
  virtual result<int64_t> load(const std::string& dir, policy_optimizer* opt) = 0;
  /// Whether dir holds optimizer state (restore starts a fresh optimizer without it:
  /// moments of other weights would be wrong).
  virtual bool has_optimizer_state(const std::string& dir) const = 0;
};

/// What every learner is configured with, whatever the architecture.
/// Its learner_spec (engines/learner_spec.hpp) and what the architecture adds.
struct learner_settings : learner_spec {
  int32_t threads = 1;       ///< Torch intra-op threads of the owning thread.
  /// What ranks compare when they join (sorted key=value lines: learner_config_lines).
  std::string config_text;
};

/// The settings of a learner config (engines/learner_spec.hpp): its learner_spec and its
/// policy's threads; the join text is the architecture's.
template <typename Policy>
learner_settings learner_settings_of(const learner_config<Policy>& c) {
  learner_settings s;
  static_cast<learner_spec&>(s) = static_cast<const learner_spec&>(c);
  s.threads = c.policy.threads;
  return s;
}

/// "" when the settings can build a learner, else the first problem (naming its key).
std::string learner_settings_problem(const learner_settings& s);

/// The text ranks compare at join: `keys` (the architecture's model keys) with the
/// settings' optimizer, loss, temperature, micro-batch, replicas, autocast, backend (from
/// `device`) and per-step check, as sorted key=value lines.
std::string learner_config_lines(const learner_settings& s, const std::string& device,
                                 std::map<std::string, std::string> keys);

/// A short stable hash of `text` (FNV-1a, decimal), for keys that stand for long values.
std::string text_hash(const std::string& text);

/// The model a learner trains: the policy interface and the module of its parameters
/// (one object seen twice).
struct learner_model {
  std::shared_ptr<policy_model> policy;
  std::shared_ptr<torch::nn::Module> module;
};

/// A module holder's model (transformer, hf_model) as a learner_model.
template <typename Impl>
learner_model learner_model_of(const torch::nn::ModuleHolder<Impl>& m) {
  return {m.ptr(), m.ptr()};
}

/// updates_per_step optimizer updates per train() call, one per contiguous mini-batch of
/// the step's batch, each micro-batched with the token-mean over its mini-batch. With a
/// replica_group, each rank trains its share of each mini-batch (split by tokens) and
/// the gradients are summed over the ranks before each update, so every rank's weights
/// and AdamW state stay equal to one learner's on the whole batch.
/// Not thread-safe: one owner.
class policy_learner final : public learner_engine {
 public:
  policy_learner(learner_settings s, torch::Device device, learner_model model,
                 std::unique_ptr<learner_checkpoints> checkpoints);
  ~policy_learner() override;

  /// A base policy (e.g. the SFT warm start): its weights only; the RL run counts its
  /// own versions from 0 with a fresh optimizer.
  result<bool> load_base(const std::string& dir);
  /// Joins the replicas of the settings (replica_group::join, watched by `watch`);
  /// rank 0 then hands its state to the others (the others receive it in serve()).
  result<bool> join_replicas(const replica_join_watch& watch);
  /// Ranks > 0: follows rank 0's commands until it ends the run; `on_step` hears the
  /// weights of each step.
  result<uint64_t> serve(const std::atomic<bool>* stop, const replica_step_observer& on_step);

  result<train_stats> train(const std::vector<train_sample>& batch) override;
  weights_ptr snapshot() override;
  uint64_t version() const override { return version_; }
  result<bool> save(const std::string& dir) override;
  result<bool> restore(const std::string& dir) override;
  result<prompt_features> features(const std::vector<std::vector<int32_t>>& prompts,
                                   const std::vector<uint64_t>& ids) override;

 private:
  /// The samples with a completion, checked; an error names the first bad one.
  result<std::vector<const train_sample*>> kept_of(const std::vector<train_sample>& batch) const;
  /// The step on `kept`: updates_per_step updates, one per contiguous mini-batch.
  train_stats step_on(const std::vector<const train_sample*>& kept);
  /// One optimizer update on `part` (this rank's share of it with replicas); stats of
  /// that update alone (samples 0: nothing to train).
  /// `gap`: also measure the log-prob gap of the part's fresh samples (train_stats).
  train_stats update_on(const std::vector<const train_sample*>& part, bool gap = false);
  /// This rank's share of `all` and the whole batch's token and sample counts.
  std::vector<const train_sample*> share_of(const std::vector<const train_sample*>& all,
                                            uint64_t& tokens, uint64_t& samples,
                                            double& seconds);
  void accumulate(const std::vector<const train_sample*>& kept, size_t begin, size_t end,
                  double batch_tokens, train_stats& stats, bool gap = false);
  void add_logprob_gap(const std::vector<const train_sample*>& kept, size_t begin, size_t end,
                       const completion_scores& scores, const micro_batch& mb,
                       train_stats& stats) const;
  /// Sums the gradients (in buckets) and the step's statistics over the ranks.
  void reduce_gradients(train_stats& stats);
  /// Throws when the ranks' parameters differ after a step (learner.check_replicas).
  void check_replicas();
  /// Rank 0 sends its weights, optimizer state and version; the others take them.
  void sync_state(const std::string& header);
  std::string state_header();
  /// Hash of the parameters' bytes, equal on every rank unless they diverged.
  int64_t parameter_hash();
  /// Rank 0 hands its state to the others after a join or a restore; `what` names it.
  result<bool> hand_state(const std::string& what);

  learner_settings settings_;
  torch::Device device_;
  learner_model model_;
  std::unique_ptr<learner_checkpoints> checkpoints_;
  bool autocast_;                          ///< settings_.autocast_bf16 on a CUDA device.
  std::unique_ptr<policy_optimizer> opt_;  ///< Built on the model's parameters.
  uint64_t version_ = 0;                   ///< Optimizer steps (or the checkpoint's step).
  std::unique_ptr<replica_group> group_;   ///< Null with one learner.
  bool group_failed_ = false;              ///< A collective failed: the group is broken.
};

/// Builds an architecture's learner (its config checked, its model made), not joined to
/// replicas yet.
using learner_builder = std::function<result<std::unique_ptr<policy_learner>>()>;

/// The coordinator's learner (rank 0 of `r`; make_torch_learner, make_hf_learner): built
/// by `build`, then joined to its replicas when there are several.
result<std::unique_ptr<learner_engine>> make_coordinator(const replica_config& r,
                                                         const learner_builder& build,
                                                         const replica_join_watch& watch);
/// A replica worker (rank 1 to replicas - 1 of `r`; serve_learner_replica,
/// serve_hf_learner_replica): built by `build`, it joins rank 0 and trains its share of
/// every step until rank 0 ends the run.
result<uint64_t> serve_worker(const replica_config& r, const learner_builder& build,
                              const std::atomic<bool>* stop,
                              const replica_step_observer& on_step);

/// A torch or std exception's message, without the C++ backtrace.
std::string exception_text(const std::exception& e);

/// A torch exception as an error: `what`, then the message without the backtrace.
error torch_error(const std::string& what, const std::exception& e);

}  // namespace adarl
