#include "formats/safetensors.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <utility>

namespace adarl {

namespace {

// The reference implementation refuses larger headers; so do we (a corrupt length
// would otherwise make us parse gigabytes as JSON).
constexpr uint64_t max_header_size = 100'000'000;

std::string in_quotes(std::string_view s) {
  return "'" + std::string(s) + "'";
}

/// Reads a JSON array of non-negative integers; false when it is anything else.
bool read_unsigned_array(const nlohmann::json& j, std::vector<uint64_t>& out) {
  if (!j.is_array()) return false;
  for (const auto& v : j) {
    if (!v.is_number_unsigned()) return false;
    out.push_back(v.get<uint64_t>());
  }
  return true;
}

/// Bytes of `shape` x `size`, or nullopt on overflow.
std::optional<uint64_t> byte_size(const std::vector<uint64_t>& shape, size_t size) {
  uint64_t n = size;
  for (uint64_t d : shape) {
    if (d != 0 && n > std::numeric_limits<uint64_t>::max() / d) return std::nullopt;
    n *= d;
  }
  return n;
}

}  // namespace

int64_t tensor_view::numel() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

result<bool> to_float32(const tensor_view& view, std::span<float> out,
                        std::string_view what) {
  return to_float32(view.dtype, view.bytes(), out, what);
}

std::string shape_string(std::span<const int64_t> shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) s += ", ";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

namespace {

/// The whole file `path`, mapped read-only (the mapping keeps the file once it is closed):
/// the address and size, or why not. A file under the 8 bytes of a header length is
/// refused.
result<std::pair<void*, uint64_t>> map_read_only(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return error{path + ": cannot open: " + std::strerror(errno)};
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const std::string why = std::strerror(errno);
    ::close(fd);
    return error{path + ": cannot stat: " + why};
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return error{path + ": not a regular file"};
  }
  const auto file_size = static_cast<uint64_t>(st.st_size);
  if (file_size < 8) {
    ::close(fd);
    return error{path + ": truncated: " + std::to_string(file_size) +
                 " bytes, but a safetensors file starts with an 8-byte header length"};
  }
  void* m = ::mmap(nullptr, file_size, PROT_READ, MAP_PRIVATE, fd, 0);
  const int map_errno = errno;
  ::close(fd);  // the mapping keeps the file
  if (m == MAP_FAILED) return error{path + ": cannot mmap: " + std::strerror(map_errno)};
  return std::pair{m, file_size};
}

/// One tensor's header entry, checked: a known dtype, a shape, and data offsets inside
/// the data section that hold exactly the shape's bytes.
struct tensor_header {
  tensor_dtype dtype{};
  std::vector<int64_t> shape;
  uint64_t begin = 0, end = 0;
};

result<tensor_header> read_tensor_header(const std::string& where, const nlohmann::json& info,
                                         uint64_t data_size) {
  if (!info.is_object() || !info.contains("dtype") || !info.contains("shape") ||
      !info.contains("data_offsets")) {
    return error{where + ": expected an object with dtype, shape and data_offsets"};
  }
  const auto& dtype_json = info["dtype"];
  if (!dtype_json.is_string()) return error{where + ": dtype is not a string"};
  const auto dtype = parse_tensor_dtype(dtype_json.get<std::string>());
  if (!dtype) return error{where + ": unknown dtype \"" + dtype_json.get<std::string>() + "\""};
  std::vector<uint64_t> shape, offsets;
  if (!read_unsigned_array(info["shape"], shape)) {
    return error{where + ": shape is not an array of non-negative integers"};
  }
  if (!read_unsigned_array(info["data_offsets"], offsets) || offsets.size() != 2) {
    return error{where + ": data_offsets is not a pair of non-negative integers"};
  }
  const std::string offsets_text =
      "[" + std::to_string(offsets[0]) + ", " + std::to_string(offsets[1]) + "]";
  if (offsets[1] < offsets[0]) {
    return error{where + ": data_offsets " + offsets_text + " end before they begin"};
  }
  if (offsets[1] > data_size) {
    return error{where + ": data_offsets " + offsets_text + " go beyond the data section (" +
                 std::to_string(data_size) + " bytes)"};
  }
  const auto expected = byte_size(shape, dtype_size(*dtype));
  tensor_header h{*dtype, std::vector<int64_t>(shape.begin(), shape.end()), offsets[0],
                  offsets[1]};
  if (!expected || *expected != offsets[1] - offsets[0]) {
    return error{where + ": data_offsets " + offsets_text + " hold " +
                 std::to_string(offsets[1] - offsets[0]) + " bytes, but shape " +
                 shape_string(h.shape) + " of " + std::string(dtype_name(*dtype)) +
                 " needs " + (expected ? std::to_string(*expected) : "more than 2^64")};
  }
  return h;
}

/// A tensor's name and byte range in the data section.
struct tensor_span {
  std::string_view name;
  uint64_t begin = 0, end = 0;
};

/// As the reference: the tensors, in offset order, tile the data section exactly (no
/// overlap, no gap, nothing left over).
result<bool> check_tiling(const std::string& path, std::vector<tensor_span> spans,
                          uint64_t data_size) {
  std::sort(spans.begin(), spans.end(), [](const auto& a, const auto& b) {
    return std::pair(a.begin, a.end) < std::pair(b.begin, b.end);
  });
  uint64_t covered = 0;
  std::string_view previous;
  for (const auto& e : spans) {
    if (e.begin < covered) {
      return error{path + ": tensor " + in_quotes(e.name) + " (bytes " +
                   std::to_string(e.begin) + "..) overlaps tensor " + in_quotes(previous) +
                   " (ends at " + std::to_string(covered) + ")"};
    }
    if (e.begin > covered) {
      return error{path + ": tensor " + in_quotes(e.name) + " starts at byte " +
                   std::to_string(e.begin) + " of the data, leaving a gap after byte " +
                   std::to_string(covered) + " (the format requires contiguous tensors)"};
    }
    covered = e.end;
    previous = e.name;
  }
  if (covered != data_size) {
    return error{path + ": the tensors cover " + std::to_string(covered) +
                 " bytes of data, but the file holds " + std::to_string(data_size) +
                 " after the header"};
  }
  return true;
}

}  // namespace

result<safetensors_file> safetensors_file::open(const std::string& path) {
  safetensors_file f;
  f.path_ = path;
  auto mapped = map_read_only(path);
  if (!mapped) return mapped.err();
  const auto [m, file_size] = *mapped;
  f.mapping_ = m;
  f.mapping_size_ = file_size;
  const auto* bytes = static_cast<const std::byte*>(m);

  uint64_t n = 0;
  std::memcpy(&n, bytes, 8);  // little-endian, as the host (tensor_dtype.cpp)
  if (n > max_header_size) {
    return error{path + ": header length " + std::to_string(n) +
                 " is over the 100000000-byte limit (corrupt file?)"};
  }
  if (n > file_size - 8) {
    return error{path + ": header length " + std::to_string(n) +
                 " goes beyond the file (" + std::to_string(file_size) +
                 " bytes): truncated or not a safetensors file"};
  }
  const auto* header_begin = reinterpret_cast<const char*>(bytes + 8);
  nlohmann::json header;
  try {
    header = nlohmann::json::parse(header_begin, header_begin + n);
  } catch (const nlohmann::json::exception& e) {
    return error{path + ": header is not valid JSON: " + e.what()};
  }
  if (!header.is_object()) return error{path + ": header is not a JSON object"};
  const uint64_t data_size = file_size - 8 - n;
  f.data_ = bytes + 8 + n;

  std::vector<tensor_span> spans;
  for (const auto& [name, info] : header.items()) {
    if (name == "__metadata__") {
      if (!info.is_object()) return error{path + ": __metadata__ is not a JSON object"};
      for (const auto& [key, value] : info.items()) {
        if (!value.is_string()) {
          return error{path + ": __metadata__ " + in_quotes(key) + " is not a string"};
        }
        f.metadata_[key] = value.get<std::string>();
      }
      continue;
    }
    auto h = read_tensor_header(path + ": tensor " + in_quotes(name), info, data_size);
    if (!h) return h.err();
    auto [it, inserted] =
        f.entries_.emplace(name, entry{h->dtype, std::move(h->shape), h->begin, h->end});
    spans.push_back({it->first, it->second.begin, it->second.end});
  }
  if (auto ok = check_tiling(path, std::move(spans), data_size); !ok) return ok.err();
  return f;
}

safetensors_file::safetensors_file(safetensors_file&& other) noexcept {
  *this = std::move(other);
}

safetensors_file& safetensors_file::operator=(safetensors_file&& other) noexcept {
  if (this != &other) {
    release();
    path_ = std::move(other.path_);
    mapping_ = std::exchange(other.mapping_, nullptr);
    mapping_size_ = std::exchange(other.mapping_size_, 0);
    data_ = std::exchange(other.data_, nullptr);
    entries_ = std::move(other.entries_);
    metadata_ = std::move(other.metadata_);
  }
  return *this;
}

safetensors_file::~safetensors_file() {
  release();
}

void safetensors_file::release() {
  if (mapping_ != nullptr) ::munmap(mapping_, mapping_size_);
  mapping_ = nullptr;
  mapping_size_ = 0;
  data_ = nullptr;
}

std::vector<std::string> safetensors_file::names() const {
  std::vector<std::string> out;
  out.reserve(entries_.size());
  for (const auto& [name, e] : entries_) out.push_back(name);
  return out;
}

bool safetensors_file::contains(std::string_view name) const {
  return entries_.find(name) != entries_.end();
}

result<tensor_view> safetensors_file::tensor(std::string_view name) const {
  const auto it = entries_.find(name);
  if (it == entries_.end()) return error{path_ + ": no tensor " + in_quotes(name)};
  const entry& e = it->second;
  return tensor_view{e.dtype, e.shape, data_ + e.begin,
                     static_cast<size_t>(e.end - e.begin)};
}

result<tensor_view> safetensors_file::tensor(std::string_view name,
                                             std::span<const int64_t> expected) const {
  auto view = tensor(name);
  if (!view.ok()) return view;
  if (!std::equal(view->shape.begin(), view->shape.end(), expected.begin(),
                  expected.end())) {
    return error{path_ + ": tensor " + in_quotes(name) + " has shape " +
                 shape_string(view->shape) + ", expected " + shape_string(expected)};
  }
  return view;
}

}  // namespace adarl
