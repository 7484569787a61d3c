#pragma once
// A Hugging Face checkpoint (one safetensors file or index-sharded) as one set of tensors.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.hpp"
#include "formats/safetensors.hpp"

namespace adarl {

/// A Hugging Face checkpoint as one logical set of tensors: either one .safetensors
/// file or the shards listed by model.safetensors.index.json ({"weight_map": {tensor
/// name: shard file name}}, shard names relative to the index's directory). Every shard
/// is opened and validated up front, and every tensor the index names must be in its
/// shard. Move-only; views stay valid while the checkpoint lives. Immutable after
/// open(), so const member functions may be called from any number of threads.
class safetensors_checkpoint {
 public:
  /// Opens `path`: a directory (its model.safetensors.index.json, else its
  /// model.safetensors), an index file (*.index.json), or a .safetensors file. Fails,
  /// naming the file, for an index that is not JSON or has no weight_map object, a shard
  /// name that is absolute or leaves the directory, a shard that is missing or invalid
  /// (safetensors_file::open), or a tensor missing from the shard the index names.
  /// O(shards' headers).
  static result<safetensors_checkpoint> open(const std::string& path);

  /// Tensor names, sorted. O(tensors).
  std::vector<std::string> names() const;
  /// Number of tensors.
  size_t size() const { return shard_of_.size(); }
  /// Number of files opened.
  size_t shard_count() const { return shards_.size(); }
  /// True when the checkpoint has a tensor `name`. O(log tensors).
  bool contains(std::string_view name) const;
  /// The tensor `name` from its shard; a missing name is an error naming the checkpoint.
  result<tensor_view> tensor(std::string_view name) const;
  /// The tensor `name`, which must have shape `expected` (the error names both shapes).
  result<tensor_view> tensor(std::string_view name,
                             std::span<const int64_t> expected) const;
  /// The tensor `name` (of shape `expected`) converted to float32. O(numel).
  result<std::vector<float>> tensor_float32(std::string_view name,
                                            std::span<const int64_t> expected) const;

 private:
  safetensors_checkpoint() = default;

  std::string source_;  ///< The index or file opened, for messages.
  std::vector<safetensors_file> shards_;
  std::map<std::string, size_t, std::less<>> shard_of_;  ///< Tensor -> index in shards_.
};

}  // namespace adarl
