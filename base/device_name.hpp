#pragma once
// The one grammar of a device name, in config and on the command line: "cpu" or "cuda:N".
// Whether such a device exists is the engine's question (models/device.hpp).

#include <optional>
#include <string_view>

namespace adarl {

/// A device name read: the CPU, or CUDA device `index`.
struct device_name {
  int index = -1;  ///< -1 for the CPU.
  bool cuda() const { return index >= 0; }
};

/// Reads "cpu" or "cuda:N" (N of one to three digits); nullopt for anything else
/// ("gpu", "cuda", "cuda:", "cuda:x", "CPU", "cuda:1234").
inline std::optional<device_name> parse_device_name(std::string_view text) {
  if (text == "cpu") return device_name{};
  constexpr std::string_view prefix = "cuda:";
  if (text.substr(0, prefix.size()) != prefix) return std::nullopt;
  const std::string_view digits = text.substr(prefix.size());
  if (digits.empty() || digits.size() > 3) return std::nullopt;
  int index = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    index = index * 10 + (c - '0');
  }
  return device_name{index};
}

/// True when `text` names a CUDA device ("cuda:N").
inline bool is_cuda_device(std::string_view text) {
  const auto d = parse_device_name(text);
  return d && d->cuda();
}

}  // namespace adarl
