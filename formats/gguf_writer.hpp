#pragma once
// A Hugging Face checkpoint written as GGUF (version 3), the file llama.cpp's
// llama-server loads (docs/guides/engines.md "llama-server beside the system"): the
// architecture's hyper-parameters, the byte-level BPE tokenizer of tokenizer.json and
// every weight in float32, under llama.cpp's tensor names. Qwen2 and Qwen3 decoders;
// another model_type is an error naming it. Torch-free: the weights are read from the
// safetensors files.

#include <cstdint>
#include <string>
#include <string_view>

#include "base/result.hpp"

namespace adarl {

/// Writes the model of the HF directory `dir` (config.json, model.safetensors or shards,
/// tokenizer.json, tokenizer_config.json when present) to `out` (through out.tmp and a
/// rename), named `name` (general.name). Returns the bytes written. Errors name the file
/// and the field or tensor. O(parameters + vocabulary).
result<uint64_t> write_gguf_from_hf(const std::string& dir, const std::string& out,
                                    std::string_view name = "adarl");

}  // namespace adarl
