#pragma once
// Weight snapshots: what the learner hands to generators after each step.

#include <torch/torch.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "base/result.hpp"
#include "engines/engine.hpp"

namespace adarl {

/// The parameters of one policy version, immutable once made. In process it travels
/// as std::shared_ptr<const weight_snapshot>, so every generator reads the same tensors
/// without a copy; across processes it travels as serialize()'s bytes.
/// The version lives in the base (policy_weights), so generation engines take it as
/// weights_ptr.
struct weight_snapshot : policy_weights {
  std::vector<std::pair<std::string, torch::Tensor>> params;  ///< Name, CPU float32.
  /// serialize(*this).
  result<std::string> to_bytes() const override;
};

/// Copies a module's parameters by name (detached, contiguous, CPU float32) under
/// `version`; one function for every architecture. O(params).
std::shared_ptr<const weight_snapshot> take_snapshot(const torch::nn::Module& model,
                                                     uint64_t version);

/// True when the snapshot has exactly the module's parameter names and shapes; otherwise
/// an error naming the first missing or misshapen parameter. O(params).
result<bool> snapshot_fits(const torch::nn::Module& model, const weight_snapshot& snapshot);

/// Copies a snapshot into a module of the same shape; a missing name or a shape
/// mismatch is an error naming the parameter, and the module is left unchanged then.
result<bool> load_snapshot(torch::nn::Module& model, const weight_snapshot& snapshot);

/// The same for a module holder (transformer, hf_model): its module.
template <typename Impl>
std::shared_ptr<const weight_snapshot> take_snapshot(const torch::nn::ModuleHolder<Impl>& model,
                                                     uint64_t version) {
  return take_snapshot(*model, version);
}
template <typename Impl>
result<bool> snapshot_fits(const torch::nn::ModuleHolder<Impl>& model,
                           const weight_snapshot& snapshot) {
  return snapshot_fits(*model, snapshot);
}
template <typename Impl>
result<bool> load_snapshot(torch::nn::ModuleHolder<Impl>& model, const weight_snapshot& snapshot) {
  return load_snapshot(*model, snapshot);
}

/// Binary form: "ADWS1", version, count, then per parameter name, dims and float32
/// data (little-endian). O(bytes).
std::string serialize(const weight_snapshot& snapshot);

/// Parses serialize()'s bytes; truncated or malformed input is an error, never a crash.
result<weight_snapshot> deserialize(const std::string& bytes);

}  // namespace adarl
