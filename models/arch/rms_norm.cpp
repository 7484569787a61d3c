#include "models/arch/rms_norm.hpp"

namespace adarl {

hf_rms_norm_impl::hf_rms_norm_impl(int64_t width, double eps) : eps_(eps) {
  weight = register_parameter("weight", torch::ones({width}));
}

torch::Tensor hf_rms_norm_impl::forward(const torch::Tensor& x) {
  auto h = x.to(torch::kFloat);
  h = h * torch::rsqrt(h.pow(2).mean(-1, /*keepdim=*/true) + eps_);
  return weight * h.to(x.scalar_type());
}

}  // namespace adarl
