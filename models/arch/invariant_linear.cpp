#include "models/arch/invariant_linear.hpp"

#include <ATen/Parallel.h>

namespace adarl {

namespace {

constexpr int64_t lanes = 8;

// Dot product of a and b over n elements: lanes interleaved partial sums, then a fixed
// tree. The compiler may vectorise the lanes (independent sums); it may not reorder
// them (no -ffast-math), so the result is the same on every call.
inline float fixed_dot(const float* a, const float* b, int64_t n) {
  float acc[lanes] = {};
  int64_t k = 0;
  for (; k + lanes <= n; k += lanes)
    for (int64_t l = 0; l < lanes; ++l) acc[l] += a[k + l] * b[k + l];
  for (int64_t l = 0; k < n; ++k, ++l) acc[l] += a[k] * b[k];
  return ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7]));
}

}  // namespace

torch::Tensor invariant_linear(const torch::Tensor& x, const torch::Tensor& w,
                               const torch::Tensor& b) {
  const bool fits = x.device().is_cpu() && x.scalar_type() == torch::kFloat &&
                    w.scalar_type() == torch::kFloat && x.dim() == 2 && w.dim() == 2 &&
                    x.size(1) == w.size(1) &&
                    (!b.defined() || (b.scalar_type() == torch::kFloat && b.dim() == 1 &&
                                      b.size(0) == w.size(0)));
  if (!fits) return torch::linear(x, w, b.defined() ? b : torch::Tensor());
  const auto xc = x.contiguous(), wc = w.contiguous();
  const auto bc = b.defined() ? b.contiguous() : b;
  const int64_t n = xc.size(0), in = xc.size(1), out = wc.size(0);
  auto y = torch::empty({n, out}, xc.options());
  const float* xp = xc.data_ptr<float>();
  const float* wp = wc.data_ptr<float>();
  const float* bp = bc.defined() ? bc.data_ptr<float>() : nullptr;
  float* yp = y.data_ptr<float>();
  at::parallel_for(0, n, /*grain_size=*/4, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r)
      for (int64_t o = 0; o < out; ++o) {
        const float dot = fixed_dot(xp + r * in, wp + o * in, in);
        yp[r * out + o] = bp ? dot + bp[o] : dot;
      }
  });
  return y;
}

torch::nn::Linear linear_layer(int64_t in, int64_t out, bool bias) {
  return torch::nn::Linear(torch::nn::LinearOptions(in, out).bias(bias));
}

torch::Tensor linear_of(torch::nn::Linear& lin, const torch::Tensor& x, bool invariant) {
  return invariant ? invariant_linear(x, lin->weight, lin->bias) : lin(x);
}

}  // namespace adarl
