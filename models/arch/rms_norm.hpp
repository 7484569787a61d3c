#pragma once
// RMSNorm, the normalisation of the Hugging Face decoders (LibTorch). Include only from
// models/ sources and torch tests.

#include <torch/torch.h>

namespace adarl {

/// RMSNorm as the Qwen2 / Llama code computes it: x / sqrt(mean(x^2) + eps) in float32,
/// then times `weight` (the checkpoint's "...norm.weight").
class hf_rms_norm_impl : public torch::nn::Module {
 public:
  hf_rms_norm_impl(int64_t width, double eps);
  torch::Tensor forward(const torch::Tensor& x);
  torch::Tensor weight;

 private:
  double eps_;
};
TORCH_MODULE_IMPL(hf_rms_norm, hf_rms_norm_impl);

}  // namespace adarl
