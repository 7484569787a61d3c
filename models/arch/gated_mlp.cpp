#include "models/arch/gated_mlp.hpp"

#include "models/arch/invariant_linear.hpp"

namespace adarl {

hf_mlp_impl::hf_mlp_impl(const hf_config& c) {
  const int64_t d = c.hidden_size, ff = c.intermediate_size;
  gate_proj = register_module("gate_proj", linear_layer(d, ff, c.mlp_bias));
  up_proj = register_module("up_proj", linear_layer(d, ff, c.mlp_bias));
  down_proj = register_module("down_proj", linear_layer(ff, d, c.mlp_bias));
}

torch::Tensor hf_mlp_impl::forward(const torch::Tensor& x, bool invariant) {
  auto gated = torch::silu(linear_of(gate_proj, x, invariant)) * linear_of(up_proj, x, invariant);
  return linear_of(down_proj, gated, invariant);
}

}  // namespace adarl
