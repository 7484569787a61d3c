#pragma once
// Device selection from config: "cpu" or "cuda:N".

#include <torch/torch.h>

#include <string>

#include "base/result.hpp"

namespace adarl {

/// Parses and checks a device name. "cuda:N" when this LibTorch has no CUDA (Debian's
/// build is CPU-only) or has fewer devices is an error that says so; anything else
/// than "cpu" or "cuda:N" is an error naming the accepted forms.
result<torch::Device> parse_device(const std::string& name);

}  // namespace adarl
