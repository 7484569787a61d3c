#include "models/arch/slot_attention.hpp"

#include <ATen/Parallel.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

namespace adarl {

namespace {

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

torch::Tensor fused(const torch::Tensor& q_in, const torch::Tensor& k_in, const torch::Tensor& v_in,
                    const torch::Tensor& slots_in, const torch::Tensor& positions_in,
                    torch::Tensor& k_cache, torch::Tensor& v_cache) {
  TORCH_CHECK(k_cache.is_contiguous() && v_cache.is_contiguous(),
              "gqa_slot_attention: the cache must be contiguous");
  const auto q = q_in.contiguous(), k = k_in.contiguous(), v = v_in.contiguous();
  const auto slots = slots_in.contiguous(), positions = positions_in.contiguous();
  const int64_t n = q.size(0), hq = q.size(1), dh = q.size(2);
  const int64_t capacity = k_cache.size(0), hkv = k_cache.size(1), len = k_cache.size(2);
  const int64_t group = hq / hkv;
  float* kc = k_cache.data_ptr<float>();
  float* vc = v_cache.data_ptr<float>();
  const int64_t* slot = slots.data_ptr<int64_t>();
  const int64_t* pos = positions.data_ptr<int64_t>();
  const float* kp = k.data_ptr<float>();
  const float* vp = v.data_ptr<float>();
  auto at = [&](int64_t s, int64_t h, int64_t p) { return ((s * hkv + h) * len + p) * dh; };
  const size_t bytes = size_t(dh) * sizeof(float);
  for (int64_t i = 0; i < n; ++i) {
    TORCH_CHECK(slot[i] >= 0 && slot[i] < capacity, "gqa_slot_attention: slot ", slot[i],
                " outside [0, ", capacity, ")");
    TORCH_CHECK(pos[i] >= 0 && pos[i] < len, "gqa_slot_attention: position ", pos[i],
                " outside [0, ", len, ")");
    for (int64_t h = 0; h < hkv; ++h) {
      std::memcpy(kc + at(slot[i], h, pos[i]), kp + (i * hkv + h) * dh, bytes);
      std::memcpy(vc + at(slot[i], h, pos[i]), vp + (i * hkv + h) * dh, bytes);
    }
  }
  auto out = torch::empty({n, hq * dh}, q.options());
  float* o = out.data_ptr<float>();
  const float* qp = q.data_ptr<float>();
  at::parallel_for(0, n * hq, /*grain_size=*/16, [&](int64_t begin, int64_t end) {
    std::vector<float> scores(static_cast<size_t>(len));
    for (int64_t w = begin; w < end; ++w) {
      const int64_t i = w / hq, h = w % hq;
      const int64_t base = at(slot[i], h / group, 0);
      attend_one(qp + (i * hq + h) * dh, kc + base, vc + base, pos[i] + 1, dh, scores.data(),
                 o + (i * hq + h) * dh);
    }
  });
  return out;
}

}  // namespace

torch::Tensor gqa_slot_attention_reference(const torch::Tensor& q, const torch::Tensor& k,
                                           const torch::Tensor& v, const torch::Tensor& slots,
                                           const torch::Tensor& positions,
                                           torch::Tensor& k_cache, torch::Tensor& v_cache) {
  using torch::indexing::Slice;
  const int64_t n = q.size(0), hq = q.size(1), dh = q.size(2), hkv = k_cache.size(1);
  if (n == 0) return q.new_empty({0, hq * dh});
  k_cache.index_put_({slots, Slice(), positions}, k.to(k_cache.scalar_type()));
  v_cache.index_put_({slots, Slice(), positions}, v.to(v_cache.scalar_type()));
  const int64_t key_len = positions.max().item<int64_t>() + 1;
  auto keys = k_cache.index_select(0, slots).narrow(2, 0, key_len);  // [N, Hkv, Tk, Dh]
  auto values = v_cache.index_select(0, slots).narrow(2, 0, key_len);
  if (hkv != hq) {
    keys = keys.repeat_interleave(hq / hkv, 1);
    values = values.repeat_interleave(hq / hkv, 1);
  }
  auto scores = torch::matmul(q.unsqueeze(2), keys.transpose(-2, -1)) / std::sqrt(double(dh));
  auto index = torch::arange(key_len, positions.options());
  auto hidden = (index.unsqueeze(0) > positions.unsqueeze(1)).view({n, 1, 1, key_len});
  scores = scores.masked_fill(hidden, -std::numeric_limits<float>::infinity());
  auto probs = torch::softmax(scores.to(torch::kFloat), -1).to(values.scalar_type());
  return torch::matmul(probs, values).reshape({n, hq * dh});
}

torch::Tensor gqa_slot_attention(const torch::Tensor& q, const torch::Tensor& k,
                                 const torch::Tensor& v, const torch::Tensor& slots,
                                 const torch::Tensor& positions, torch::Tensor& k_cache,
                                 torch::Tensor& v_cache) {
  TORCH_CHECK(q.dim() == 3 && k.dim() == 3 && k_cache.dim() == 4 &&
                  q.size(1) % k_cache.size(1) == 0 && k.size(1) == k_cache.size(1),
              "gqa_slot_attention: query heads must be a multiple of the cache's kv heads");
  const bool cpu_float = q.is_cpu() && k_cache.is_cpu() && q.scalar_type() == torch::kFloat &&
                         k.scalar_type() == torch::kFloat && v.scalar_type() == torch::kFloat &&
                         k_cache.scalar_type() == torch::kFloat &&
                         v_cache.scalar_type() == torch::kFloat;
  return cpu_float ? fused(q, k, v, slots, positions, k_cache, v_cache)
                   : gqa_slot_attention_reference(q, k, v, slots, positions, k_cache, v_cache);
}

torch::Tensor slot_attention(const torch::Tensor& qkv, const torch::Tensor& slots,
                             const torch::Tensor& positions, torch::Tensor& k_cache,
                             torch::Tensor& v_cache) {
  const auto parts = qkv.view({qkv.size(0), 3, k_cache.size(1), k_cache.size(3)});
  return gqa_slot_attention(parts.select(1, 0), parts.select(1, 1), parts.select(1, 2), slots,
                            positions, k_cache, v_cache);
}

torch::Tensor slot_attention_reference(const torch::Tensor& qkv, const torch::Tensor& slots,
                                       const torch::Tensor& positions, torch::Tensor& k_cache,
                                       torch::Tensor& v_cache) {
  const auto parts = qkv.view({qkv.size(0), 3, k_cache.size(1), k_cache.size(3)});
  return gqa_slot_attention_reference(parts.select(1, 0), parts.select(1, 1), parts.select(1, 2),
                                      slots, positions, k_cache, v_cache);
}

}  // namespace adarl
