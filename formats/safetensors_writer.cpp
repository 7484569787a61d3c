#include "formats/safetensors_writer.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

namespace adarl {

namespace {

struct layout {
  std::string header;                         ///< 8-byte length + padded JSON.
  std::vector<const tensor_to_write*> order;  ///< Data order.
};

result<layout> plan(std::span<const tensor_to_write> tensors,
                    const std::map<std::string, std::string>& metadata) {
  layout out;
  std::set<std::string_view> names;
  for (const auto& t : tensors) {
    const std::string where = "tensor '" + t.name + "'";
    if (t.name.empty()) return error{"a tensor to write has an empty name"};
    if (t.name == "__metadata__") return error{where + ": the name is reserved"};
    if (!names.insert(t.name).second) return error{where + ": written twice"};
    uint64_t n = dtype_size(t.dtype);
    for (int64_t d : t.shape) {
      if (d < 0) return error{where + ": negative dimension " + std::to_string(d)};
      n *= static_cast<uint64_t>(d);
    }
    if (n != t.data.size()) {
      return error{where + ": " + std::to_string(t.data.size()) +
                   " bytes given, but its " + std::string(dtype_name(t.dtype)) +
                   " shape needs " + std::to_string(n)};
    }
    out.order.push_back(&t);
  }
  std::sort(out.order.begin(), out.order.end(), [](const auto* a, const auto* b) {
    if (a->dtype != b->dtype) return a->dtype > b->dtype;
    return a->name < b->name;
  });
  // ordered_json keeps insertion order: __metadata__ first, then data order, as serde
  // writes the reference's header; dump() is compact like serde_json::to_string.
  nlohmann::ordered_json header = nlohmann::ordered_json::object();
  if (!metadata.empty()) {
    auto& m = header["__metadata__"] = nlohmann::ordered_json::object();
    for (const auto& [k, v] : metadata) m[k] = v;
  }
  uint64_t offset = 0;
  for (const auto* t : out.order) {
    nlohmann::ordered_json info = nlohmann::ordered_json::object();
    info["dtype"] = std::string(dtype_name(t->dtype));
    info["shape"] = t->shape;
    info["data_offsets"] = {offset, offset + t->data.size()};
    offset += t->data.size();
    header[t->name] = std::move(info);
  }
  std::string json = header.dump();
  json.append((8 - json.size() % 8) % 8, ' ');
  const uint64_t n = json.size();
  out.header.resize(8);
  std::memcpy(out.header.data(), &n, 8);  // little-endian host (tensor_dtype.cpp)
  out.header += json;
  return out;
}

bool write_all(int fd, const void* p, size_t n) {
  const auto* c = static_cast<const char*>(p);
  while (n > 0) {
    const ssize_t w = ::write(fd, c, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    c += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

}  // namespace

std::map<std::string, std::string> pt_format_metadata() {
  return {{"format", "pt"}};
}

result<std::string> serialize_safetensors(
    std::span<const tensor_to_write> tensors,
    const std::map<std::string, std::string>& metadata) {
  auto p = plan(tensors, metadata);
  if (!p.ok()) return p.err();
  std::string out = std::move(p->header);
  for (const auto* t : p->order) {
    out.append(reinterpret_cast<const char*>(t->data.data()), t->data.size());
  }
  return out;
}

result<bool> write_safetensors(const std::string& path,
                               std::span<const tensor_to_write> tensors,
                               const std::map<std::string, std::string>& metadata) {
  auto p = plan(tensors, metadata);
  if (!p.ok()) return error{path + ": " + p.err().message};
  const std::string tmp = path + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return error{tmp + ": cannot create: " + std::strerror(errno)};
  bool ok = write_all(fd, p->header.data(), p->header.size());
  for (const auto* t : p->order) {
    if (!ok) break;
    ok = write_all(fd, t->data.data(), t->data.size());
  }
  std::string why = ok ? "" : std::strerror(errno);
  if (ok && ::fsync(fd) != 0) {
    ok = false;
    why = std::string("fsync: ") + std::strerror(errno);
  }
  if (::close(fd) != 0 && ok) {
    ok = false;
    why = std::string("close: ") + std::strerror(errno);
  }
  if (ok && std::rename(tmp.c_str(), path.c_str()) != 0) {
    ok = false;
    why = std::string("rename to ") + path + ": " + std::strerror(errno);
  }
  if (!ok) {
    ::unlink(tmp.c_str());
    return error{tmp + ": cannot write: " + why};
  }
  // The rename is durable once the directory is synced; a failure here loses nothing
  // already written, so it is not reported.
  auto dir = std::filesystem::path(path).parent_path();
  const int dfd =
      ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
  return true;
}

}  // namespace adarl
