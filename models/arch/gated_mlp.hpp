#pragma once
// The gated (SwiGLU) MLP of the Hugging Face decoders (LibTorch), with the checkpoint's
// names gate_proj, up_proj and down_proj. Include only from models/ sources and torch
// tests.

#include <torch/torch.h>

#include "formats/hf_config.hpp"

namespace adarl {

/// SwiGLU MLP: down(silu(gate(x)) * up(x)).
class hf_mlp_impl : public torch::nn::Module {
 public:
  explicit hf_mlp_impl(const hf_config& c);
  /// `invariant`: linear layers by invariant_linear (models/arch/invariant_linear.hpp).
  torch::Tensor forward(const torch::Tensor& x, bool invariant = false);
  torch::nn::Linear gate_proj{nullptr}, up_proj{nullptr}, down_proj{nullptr};
};
TORCH_MODULE_IMPL(hf_mlp, hf_mlp_impl);

}  // namespace adarl
