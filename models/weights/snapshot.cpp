#include "models/weights/snapshot.hpp"

#include <cstring>

namespace adarl {

std::shared_ptr<const weight_snapshot> take_snapshot(const torch::nn::Module& model,
                                                     uint64_t version) {
  auto s = std::make_shared<weight_snapshot>();
  s->version = version;
  torch::NoGradGuard no_grad;
  for (const auto& item : model.named_parameters())
    s->params.emplace_back(item.key(),
                           item.value().detach().to(torch::kCPU, torch::kFloat).clone());
  return s;
}

result<bool> snapshot_fits(const torch::nn::Module& model, const weight_snapshot& snapshot) {
  const auto named = model.named_parameters();
  if (named.size() != snapshot.params.size())
    return error{"snapshot has " + std::to_string(snapshot.params.size()) +
                 " parameters, the model " + std::to_string(named.size())};
  for (const auto& [name, t] : snapshot.params) {
    const auto* p = named.find(name);
    if (!p) return error{"snapshot parameter \"" + name + "\" is not in the model"};
    if (p->sizes() != t.sizes())
      return error{"snapshot parameter \"" + name + "\" has shape " + c10::str(t.sizes()) +
                   ", the model " + c10::str(p->sizes())};
  }
  return true;
}

result<bool> load_snapshot(torch::nn::Module& model, const weight_snapshot& snapshot) {
  if (auto ok = snapshot_fits(model, snapshot); !ok) return ok;
  auto named = model.named_parameters();
  torch::NoGradGuard no_grad;
  for (const auto& [name, t] : snapshot.params) named[name].copy_(t);
  return true;
}

namespace {

template <class T>
void put(std::string& out, T v) {
  out.append(reinterpret_cast<const char*>(&v), sizeof v);
}

struct reader {
  const std::string& in;
  size_t pos = 0;
  template <class T>
  bool get(T& v) {
    if (in.size() - pos < sizeof v) return false;
    std::memcpy(&v, in.data() + pos, sizeof v);
    pos += sizeof v;
    return true;
  }
  bool get_bytes(void* dst, size_t n) {
    if (in.size() - pos < n) return false;
    std::memcpy(dst, in.data() + pos, n);
    pos += n;
    return true;
  }
};

constexpr char kMagic[] = "ADWS1";

}  // namespace

std::string serialize(const weight_snapshot& s) {
  std::string out(kMagic, 5);
  put<uint64_t>(out, s.version);
  put<uint32_t>(out, static_cast<uint32_t>(s.params.size()));
  for (const auto& [name, t] : s.params) {
    put<uint32_t>(out, static_cast<uint32_t>(name.size()));
    out += name;
    put<uint32_t>(out, static_cast<uint32_t>(t.dim()));
    for (auto d : t.sizes()) put<int64_t>(out, d);
    auto c = t.to(torch::kFloat).contiguous();
    out.append(reinterpret_cast<const char*>(c.data_ptr<float>()),
               static_cast<size_t>(c.numel()) * sizeof(float));
  }
  return out;
}

result<std::string> weight_snapshot::to_bytes() const { return serialize(*this); }

result<weight_snapshot> deserialize(const std::string& bytes) {
  if (bytes.size() < 5 || bytes.compare(0, 5, kMagic) != 0)
    return error{"weight snapshot: not an adarl snapshot (bad magic)"};
  reader r{bytes, 5};
  weight_snapshot s;
  uint32_t count = 0;
  if (!r.get(s.version) || !r.get(count)) return error{"weight snapshot: truncated header"};
  for (uint32_t i = 0; i < count; ++i) {
    const auto where = "weight snapshot: parameter " + std::to_string(i);
    uint32_t len = 0, dims = 0;
    if (!r.get(len) || len > bytes.size()) return error{where + ": truncated name"};
    std::string name(len, '\0');
    if (!r.get_bytes(name.data(), len) || !r.get(dims) || dims > 8)
      return error{where + ": truncated or bad header"};
    std::vector<int64_t> sizes(dims);
    int64_t numel = 1;
    for (auto& d : sizes) {
      if (!r.get(d) || d < 0 || d > (int64_t{1} << 32)) return error{where + ": bad shape"};
      numel *= d;
    }
    if (static_cast<uint64_t>(numel) * sizeof(float) > bytes.size() - r.pos)
      return error{where + " (\"" + name + "\"): truncated data"};
    auto t = torch::empty(sizes, torch::kFloat);
    r.get_bytes(t.data_ptr<float>(), static_cast<size_t>(numel) * sizeof(float));
    s.params.emplace_back(std::move(name), std::move(t));
  }
  if (r.pos != bytes.size()) return error{"weight snapshot: trailing bytes after the data"};
  return s;
}

}  // namespace adarl
