#include "models/arch/attention.hpp"

#include <cmath>

namespace adarl {

torch::Tensor padded_attention(const torch::Tensor& q, const torch::Tensor& k,
                               const torch::Tensor& v, const torch::Tensor& bias) {
  auto scores = torch::matmul(q, k.transpose(-2, -1)) / std::sqrt(double(q.size(-1))) + bias;
  const auto type = scores.scalar_type();
  const bool reduced = type == torch::kHalf || type == torch::kBFloat16;
  auto probs = reduced ? torch::softmax(scores.to(torch::kFloat), -1).to(type)
                       : torch::softmax(scores, -1);
  return torch::matmul(probs, v);
}

}  // namespace adarl
