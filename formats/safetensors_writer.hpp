#pragma once
// Writing tensors as a safetensors file (atomically, every write checked).

#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "formats/tensor_dtype.hpp"

namespace adarl {

/// One tensor to write: the caller owns the bytes, which must stay valid during the
/// call that writes them.
struct tensor_to_write {
  std::string name;
  tensor_dtype dtype = tensor_dtype::f32;
  std::vector<int64_t> shape;       ///< Row-major; empty for a scalar.
  std::span<const std::byte> data;  ///< Little-endian elements, numel x dtype size bytes.
};

/// The "__metadata__" PyTorch's save_file writes: {"format": "pt"}.
std::map<std::string, std::string> pt_format_metadata();

/// The bytes of a safetensors file holding `tensors`, laid out as the reference
/// implementation lays them out: tensors sorted by dtype (largest alignment first), then
/// by name; data in that order without padding; a compact JSON header with
/// "__metadata__" first (omitted when `metadata` is empty), then the tensors in data
/// order, padded with spaces to a multiple of 8 bytes so that the data starts aligned.
/// Fails for an empty, duplicate or "__metadata__" name, a negative dimension, or bytes
/// that do not match shape x dtype size, naming the tensor. O(total bytes).
result<std::string> serialize_safetensors(
    std::span<const tensor_to_write> tensors,
    const std::map<std::string, std::string>& metadata);

/// Writes the same bytes to `path` atomically: into `path`.tmp, fsync, rename over
/// `path`, fsync of the directory. Streams the tensors (no copy of the data in memory).
/// On failure `path` is unchanged, the .tmp file removed, and the error names the file
/// (or the tensor). Blocks on disk I/O; O(total bytes).
result<bool> write_safetensors(const std::string& path,
                               std::span<const tensor_to_write> tensors,
                               const std::map<std::string, std::string>& metadata = {});

}  // namespace adarl
