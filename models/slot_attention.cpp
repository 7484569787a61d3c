#include "models/slot_attention.hpp"

#include <ATen/Parallel.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

namespace adarl {

namespace {

// Shape of a slot cache and raw pointers to its keys and values (CPU, contiguous).
struct cache_view {
  float* k;
  float* v;
  int64_t capacity, heads, max_len, head_dim;

  int64_t offset(int64_t slot, int64_t head, int64_t position) const {
    return ((slot * heads + head) * max_len + position) * head_dim;
  }
};

// Dot product of two rows: eight independent partial sums let the compiler vectorize
// without reassociating one sum (the order is fixed, so results do not depend on the
// batch).
float dot(const float* a, const float* b, int64_t n) {
  float part[8] = {};
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int j = 0; j < 8; ++j) part[j] += a[i + j] * b[i + j];
  float s = 0;
  for (; i < n; ++i) s += a[i] * b[i];
  for (float p : part) s += p;
  return s;
}

// Hints that a row of n floats will be read soon (one prefetch per 64-byte line).
void prefetch_row(const float* row, int64_t n) {
  for (int64_t i = 0; i < n; i += 16) __builtin_prefetch(row + i);
}

// out[0, dh) = softmax(q . keys[t] / sqrt(dh), t < count) weighted sum of values[t].
// `scores` has room for `count` floats.
void attend_one(const float* q, const float* keys, const float* values, int64_t count,
                int64_t dh, float* scores, float* out) {
  const float root = std::sqrt(float(dh));
  float top = -std::numeric_limits<float>::infinity();
  for (int64_t t = 0; t < count; ++t) {
    // The cache is larger than the caches of the core: ask for the next keys and for
    // the values of the second pass ahead, rather than stall on each row.
    prefetch_row(keys + (t + 4) * dh, dh);
    prefetch_row(values + t * dh, dh);
    scores[t] = dot(q, keys + t * dh, dh) / root;
    top = std::max(top, scores[t]);
  }
  float sum = 0;
  for (int64_t t = 0; t < count; ++t) sum += scores[t] = std::exp(scores[t] - top);
  std::fill(out, out + dh, 0.f);
  for (int64_t t = 0; t < count; ++t) {
    const float w = scores[t];
    const float* row = values + t * dh;
    for (int64_t d = 0; d < dh; ++d) out[d] += w * row[d];
  }
  for (int64_t d = 0; d < dh; ++d) out[d] /= sum;
}

// Writes each token's key and value at its (slot, position). Checks the indices.
void write_keys_values(const float* qkv, const int64_t* slots, const int64_t* positions,
                       int64_t n, const cache_view& c) {
  const int64_t d = c.heads * c.head_dim;
  const size_t bytes = size_t(c.head_dim) * sizeof(float);
  for (int64_t i = 0; i < n; ++i) {
    TORCH_CHECK(slots[i] >= 0 && slots[i] < c.capacity, "slot_attention: slot ", slots[i],
                " outside [0, ", c.capacity, ")");
    TORCH_CHECK(positions[i] >= 0 && positions[i] < c.max_len,
                "slot_attention: position ", positions[i], " outside [0, ", c.max_len,
                ")");
    const float* row = qkv + i * 3 * d;
    for (int64_t h = 0; h < c.heads; ++h) {
      const int64_t at = c.offset(slots[i], h, positions[i]);
      std::memcpy(c.k + at, row + d + h * c.head_dim, bytes);
      std::memcpy(c.v + at, row + 2 * d + h * c.head_dim, bytes);
    }
  }
}

torch::Tensor fused_slot_attention(const torch::Tensor& qkv_in,
                                   const torch::Tensor& slots_in,
                                   const torch::Tensor& positions_in,
                                   torch::Tensor& k_cache, torch::Tensor& v_cache) {
  TORCH_CHECK(k_cache.is_contiguous() && v_cache.is_contiguous(),
              "slot_attention: the cache must be contiguous");
  const auto qkv = qkv_in.contiguous();
  const auto slots = slots_in.contiguous(), positions = positions_in.contiguous();
  const cache_view c{k_cache.data_ptr<float>(), v_cache.data_ptr<float>(),
                     k_cache.size(0),           k_cache.size(1),
                     k_cache.size(2),           k_cache.size(3)};
  const int64_t n = qkv.size(0), d = c.heads * c.head_dim;
  const float* q = qkv.data_ptr<float>();
  const int64_t* slot = slots.data_ptr<int64_t>();
  const int64_t* pos = positions.data_ptr<int64_t>();
  write_keys_values(q, slot, pos, n, c);
  auto out = torch::empty({n, d}, qkv.options());
  float* o = out.data_ptr<float>();
  // A (token, head) pair reads its slot's keys once: O(position * head_dim).
  at::parallel_for(0, n * c.heads, /*grain_size=*/16, [&](int64_t begin, int64_t end) {
    std::vector<float> scores(size_t(c.max_len));
    for (int64_t w = begin; w < end; ++w) {
      const int64_t i = w / c.heads, h = w % c.heads;
      const int64_t base = c.offset(slot[i], h, 0);
      attend_one(q + i * 3 * d + h * c.head_dim, c.k + base, c.v + base, pos[i] + 1,
                 c.head_dim, scores.data(), o + i * d + h * c.head_dim);
    }
  });
  return out;
}

}  // namespace

torch::Tensor slot_attention_reference(const torch::Tensor& qkv,
                                       const torch::Tensor& slots,
                                       const torch::Tensor& positions,
                                       torch::Tensor& k_cache, torch::Tensor& v_cache) {
  using torch::indexing::Slice;
  const int64_t n = qkv.size(0), heads = k_cache.size(1), dh = k_cache.size(3);
  if (n == 0) return qkv.new_empty({0, heads * dh});
  auto parts = qkv.view({n, 3, heads, dh});
  k_cache.index_put_({slots, Slice(), positions}, parts.select(1, 1));
  v_cache.index_put_({slots, Slice(), positions}, parts.select(1, 2));
  const int64_t key_len = positions.max().item<int64_t>() + 1;
  auto k = k_cache.index_select(0, slots).narrow(2, 0, key_len);  // [N, H, Tk, Dh]
  auto v = v_cache.index_select(0, slots).narrow(2, 0, key_len);
  auto q = parts.select(1, 0).unsqueeze(2);  // [N, H, 1, Dh]
  auto keys = torch::arange(key_len, positions.options());
  auto hidden = (keys.unsqueeze(0) > positions.unsqueeze(1)).view({n, 1, 1, key_len});
  auto scores = torch::matmul(q, k.transpose(-2, -1)) / std::sqrt(double(dh));
  scores = scores.masked_fill(hidden, -std::numeric_limits<float>::infinity());
  return torch::matmul(torch::softmax(scores, -1), v).reshape({n, heads * dh});
}

torch::Tensor slot_attention(const torch::Tensor& qkv, const torch::Tensor& slots,
                             const torch::Tensor& positions, torch::Tensor& k_cache,
                             torch::Tensor& v_cache) {
  const bool fused =
      qkv.is_cpu() && k_cache.is_cpu() && qkv.scalar_type() == torch::kFloat &&
      k_cache.scalar_type() == torch::kFloat && v_cache.scalar_type() == torch::kFloat;
  return fused ? fused_slot_attention(qkv, slots, positions, k_cache, v_cache)
               : slot_attention_reference(qkv, slots, positions, k_cache, v_cache);
}

}  // namespace adarl
