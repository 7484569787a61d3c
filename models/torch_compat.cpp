// models/torch_compat.hpp: the LibTorch 1.13 / 2.x differences that need ATen's headers.
#include "models/torch_compat.hpp"

#include <ATen/autocast_mode.h>

namespace adarl::torch_compat {

void set_cuda_autocast_bf16(bool enabled) {
#if ADARL_TORCH_AT_LEAST(2, 4)
  at::autocast::set_autocast_enabled(at::kCUDA, enabled);
  if (enabled) at::autocast::set_autocast_dtype(at::kCUDA, at::kBFloat16);
#else
  at::autocast::set_enabled(enabled);
  if (enabled) at::autocast::set_autocast_gpu_dtype(at::kBFloat16);
#endif
  if (!enabled) at::autocast::clear_cache();
}

}  // namespace adarl::torch_compat
