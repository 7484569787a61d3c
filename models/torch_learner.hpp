#pragma once
// The LibTorch learner engine (models/torch_engines.hpp), shared by torch_learner.cpp
// (one learner) and torch_learner_replicas.cpp (data-parallel ranks). Internal to
// models/: includes LibTorch.

#include <torch/torch.h>

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "models/optimizer.hpp"
#include "models/replica_group.hpp"
#include "models/torch_engines.hpp"
#include "models/transformer.hpp"

namespace adarl {

/// One optimizer step per train() call, micro-batched, with the token-mean over the
/// whole batch. With a replica_group, each rank trains its share of the batch (split
/// by tokens) and the gradients are summed over the ranks before the step, so every
/// rank's weights and AdamW state stay equal to one learner's on the whole batch.
/// Not thread-safe: one owner.
class torch_learner final : public learner_engine {
 public:
  torch_learner(torch_learner_config c, torch::Device device);
  ~torch_learner() override;

  /// A base policy (e.g. the SFT warm start): its weights only; the RL run counts its
  /// own versions from 0 with a fresh optimizer.
  result<bool> load_base(const std::string& dir);
  /// Joins the replicas of config().replicas (replica_group::join, watched by `watch`);
  /// rank 0 then hands its state to the others (the others receive it in serve()).
  result<bool> join_replicas(const replica_join_watch& watch);
  /// Ranks > 0: follows rank 0's commands until it ends the run (serve_learner_replica).
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
  /// One optimizer step on `kept` (this rank's share of it with replicas).
  train_stats step_on(const std::vector<const train_sample*>& kept);
  void accumulate(const std::vector<const train_sample*>& kept, size_t begin, size_t end,
                  double batch_tokens, train_stats& stats);
  /// Sums the gradients (in buckets) and the step's statistics over the ranks.
  void reduce_gradients(train_stats& stats);
  /// Rank 0 sends its weights, optimizer state and version; the others take them.
  void sync_state(const std::string& header);
  std::string state_header();
  /// Hash of the parameters' bytes, equal on every rank unless they diverged.
  int64_t parameter_hash();

  torch_learner_config config_;
  torch::Device device_;
  transformer model_;
  std::unique_ptr<policy_optimizer> opt_;  ///< Built on model_'s parameters.
  uint64_t version_ = 0;                   ///< Optimizer steps (or the checkpoint's step).
  std::unique_ptr<replica_group> group_;   ///< Null with one learner.
  bool group_failed_ = false;              ///< A collective failed: the group is broken.
};

/// The learner of `c` (device, shape and settings checked; the base checkpoint loaded),
/// not joined to its replicas yet.
result<std::unique_ptr<torch_learner>> build_torch_learner(const torch_learner_config& c);

/// A torch or std exception's message, without the C++ backtrace.
std::string exception_text(const std::exception& e);

}  // namespace adarl
