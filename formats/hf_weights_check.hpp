#pragma once
// A Hugging Face checkpoint's weights against its config.json's architecture, read from
// the safetensors headers alone: what `adarl model inspect` reports and what an HF
// policy checks before it allocates a tensor (a damaged config.json is refused, never
// allocated).

#include <cstdint>
#include <map>
#include <string>

#include "formats/hf_config.hpp"
#include "formats/safetensors_checkpoint.hpp"

namespace adarl {

/// What the check counted: tensors per dtype name and elements over every tensor.
struct hf_weights_tally {
  std::map<std::string, int64_t> dtypes;
  int64_t numel = 0;
};

/// "" when every tensor of expected_hf_tensors(c) is in `ckpt` with its shape and a dtype
/// that converts to float32, and no other tensor is (rotary inv_freq buffers and a tied
/// lm_head are ignored); else the first problem, naming the tensor. O(tensors).
std::string hf_weights_problem(const safetensors_checkpoint& ckpt, const hf_config& c,
                               hf_weights_tally* tally = nullptr);

}  // namespace adarl
