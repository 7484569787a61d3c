#include "engines/batch_shares.hpp"

#include <algorithm>
#include <cstring>
#include <numeric>

namespace adarl {

std::vector<std::vector<size_t>> split_by_tokens(const std::vector<uint64_t>& tokens,
                                                 uint32_t ranks) {
  std::vector<std::vector<size_t>> out(std::max<uint32_t>(ranks, 1));
  std::vector<size_t> order(tokens.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return tokens[a] > tokens[b]; });
  std::vector<uint64_t> load(out.size(), 0);
  for (size_t i : order) {
    const size_t r = size_t(std::min_element(load.begin(), load.end()) - load.begin());
    load[r] += tokens[i];
    out[r].push_back(i);
  }
  for (auto& share : out) std::sort(share.begin(), share.end());
  return out;
}

namespace {

constexpr char magic[] = "ADTB1";

template <class T>
void put(std::string& out, T v) {
  char b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));
  out.append(b, sizeof(T));
}

template <class T>
void put_vector(std::string& out, const std::vector<T>& v) {
  put<uint64_t>(out, v.size());
  out.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
}

struct reader {
  std::string_view in;
  size_t at = 0;
  bool ok = true;
  template <class T>
  T get() {
    T v{};
    if (in.size() - at < sizeof(T)) {
      ok = false;
      return v;
    }
    std::memcpy(&v, in.data() + at, sizeof(T));
    at += sizeof(T);
    return v;
  }
  template <class T>
  std::vector<T> get_vector() {
    const uint64_t n = get<uint64_t>();
    if (!ok || n > (in.size() - at) / sizeof(T)) {
      ok = false;
      return {};
    }
    std::vector<T> v(n);
    if (n > 0) std::memcpy(v.data(), in.data() + at, n * sizeof(T));  // data() may be null
    at += n * sizeof(T);
    return v;
  }
};

}  // namespace

std::string encode_train_batch(const std::vector<train_sample>& batch) {
  std::string out(magic, sizeof magic - 1);
  put<uint64_t>(out, batch.size());
  for (const auto& s : batch) {
    put<uint64_t>(out, s.prompt_id);
    put_vector(out, s.prompt);
    put_vector(out, s.completion);
    put_vector(out, s.behaviour_logprobs);
    put<float>(out, s.advantage);
    put<float>(out, s.reward);
    put<uint64_t>(out, s.version);
  }
  return out;
}

result<std::vector<train_sample>> decode_train_batch(std::string_view bytes) {
  if (bytes.substr(0, sizeof magic - 1) != std::string_view(magic, sizeof magic - 1))
    return error{"train batch: not an adarl batch (magic)"};
  reader r{bytes, sizeof magic - 1};
  const uint64_t n = r.get<uint64_t>();
  // Every sample takes at least 48 bytes: a count larger than that allows is malformed.
  if (!r.ok || n > bytes.size() / 48) return error{"train batch: bad sample count"};
  std::vector<train_sample> batch(n);
  for (auto& s : batch) {
    s.prompt_id = r.get<uint64_t>();
    s.prompt = r.get_vector<int32_t>();
    s.completion = r.get_vector<int32_t>();
    s.behaviour_logprobs = r.get_vector<float>();
    s.advantage = r.get<float>();
    s.reward = r.get<float>();
    s.version = r.get<uint64_t>();
    if (!r.ok) return error{"train batch: truncated"};
  }
  if (r.at != bytes.size()) return error{"train batch: trailing bytes"};
  return batch;
}

}  // namespace adarl
