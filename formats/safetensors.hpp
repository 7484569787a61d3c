#pragma once
// Reading a safetensors file through a read-only mapping, every header field checked.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.hpp"
#include "formats/tensor_dtype.hpp"

namespace adarl {

/// One tensor of a safetensors file: its dtype, shape and bytes. The bytes point into
/// the file's read-only mapping, so a view is valid while the safetensors_file (or
/// safetensors_checkpoint) it came from lives, and is never written through.
struct tensor_view {
  tensor_dtype dtype = tensor_dtype::f32;
  std::vector<int64_t> shape;  ///< Row-major ("C" order); empty for a scalar.
  const std::byte* data =
      nullptr;            ///< First byte, little-endian; not aligned in general.
  size_t size_bytes = 0;  ///< numel() * dtype_size(dtype).

  /// Elements: the product of the shape (1 for a scalar).
  int64_t numel() const;
  /// The bytes as a span.
  std::span<const std::byte> bytes() const { return {data, size_bytes}; }
};

/// Converts `view` to float32 into `out` (exactly numel() floats); F32, BF16 and F16
/// convert exactly, another dtype is an error naming `what`. O(numel).
result<bool> to_float32(const tensor_view& view, std::span<float> out,
                        std::string_view what);

/// "[2, 3]": a shape as the error messages show it.
std::string shape_string(std::span<const int64_t> shape);

/// A safetensors file opened read-only and memory-mapped: an 8-byte little-endian
/// header length N, N bytes of JSON ({name: {dtype, shape, data_offsets}, optional
/// "__metadata__": {string: string}}), then the data section.
///
/// open() validates the whole header as the reference implementation does: known
/// dtypes, offsets inside the data section that match shape x dtype size, tensors that
/// neither overlap nor leave gaps, and a data section that ends with the file. Nothing
/// of the data is read until a caller touches a view's bytes (the kernel pages them in).
/// Move-only; the mapping is released by the destructor. Immutable after open(), so
/// const member functions may be called from any number of threads.
class safetensors_file {
 public:
  /// Maps and validates `path`. Fails, naming the file (and the tensor), for a missing
  /// or unreadable file, a file shorter than 8 bytes, a header length beyond the file
  /// or over 100 MB, a header that is not a JSON object, an unknown dtype, bad shape or
  /// offsets, overlapping tensors, a gap, or data that does not end with the file.
  /// O(header size + tensors log tensors).
  static result<safetensors_file> open(const std::string& path);

  safetensors_file(safetensors_file&& other) noexcept;
  safetensors_file& operator=(safetensors_file&& other) noexcept;
  safetensors_file(const safetensors_file&) = delete;
  safetensors_file& operator=(const safetensors_file&) = delete;
  ~safetensors_file();

  /// The path given to open().
  const std::string& path() const { return path_; }
  /// Tensor names, sorted. O(tensors).
  std::vector<std::string> names() const;
  /// Number of tensors.
  size_t size() const { return entries_.size(); }
  /// True when the file holds a tensor `name`. O(log tensors).
  bool contains(std::string_view name) const;
  /// The tensor `name`; a missing name is an error naming the file and tensor.
  /// O(log tensors + rank).
  result<tensor_view> tensor(std::string_view name) const;
  /// The tensor `name`, which must have shape `expected`; a mismatch is an error naming
  /// the file, the tensor and both shapes.
  result<tensor_view> tensor(std::string_view name,
                             std::span<const int64_t> expected) const;
  /// The "__metadata__" entries (empty when the header has none).
  const std::map<std::string, std::string>& metadata() const { return metadata_; }

 private:
  struct entry {
    tensor_dtype dtype;
    std::vector<int64_t> shape;
    uint64_t begin = 0;  ///< Offset into the data section.
    uint64_t end = 0;
  };
  safetensors_file() = default;
  void release();

  std::string path_;
  void* mapping_ = nullptr;  ///< The whole file, PROT_READ; nullptr for an empty mapping.
  size_t mapping_size_ = 0;
  const std::byte* data_ = nullptr;  ///< Start of the data section inside the mapping.
  std::map<std::string, entry, std::less<>> entries_;
  std::map<std::string, std::string> metadata_;
};

}  // namespace adarl
