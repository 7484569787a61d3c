#include "models/arch/padded_rows.hpp"

#include <limits>

namespace adarl {

torch::Tensor positions_of(const torch::Tensor& mask) {
  return (mask.to(torch::kLong).cumsum(1) - 1).clamp_min(0);
}

torch::Tensor attention_bias(const torch::Tensor& allowed) {
  const float neg_inf = -std::numeric_limits<float>::infinity();
  return torch::zeros(allowed.sizes(), allowed.options().dtype(torch::kFloat))
      .masked_fill(allowed.logical_not(), neg_inf)
      .unsqueeze(1);
}

torch::Tensor causal_padded_bias(const torch::Tensor& mask) {
  const auto t = mask.size(1);
  const auto opts = mask.options().dtype(torch::kBool);
  auto causal = torch::ones({t, t}, opts).tril();
  auto allowed = (causal.unsqueeze(0) & mask.unsqueeze(1)) | torch::eye(t, opts).unsqueeze(0);
  return attention_bias(allowed);
}

}  // namespace adarl
