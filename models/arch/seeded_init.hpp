#pragma once
// Building a model whose random initial weights come from torch's global generator,
// one caller at a time (LibTorch). Include only from models/ sources.

#include <torch/torch.h>

#include <cstdint>
#include <mutex>

namespace adarl {

/// The one lock of torch's global generator while models are built.
inline std::mutex& torch_seed_mutex() {
  static std::mutex m;
  return m;
}

/// make() with torch's global generator seeded by `seed`, holding torch_seed_mutex():
/// models built at once in one process (replica ranks or engines as threads) would
/// otherwise draw each other's initial weights.
template <typename Make>
auto seeded_init(uint64_t seed, Make&& make) {
  std::lock_guard<std::mutex> lock(torch_seed_mutex());
  torch::manual_seed(seed);
  return make();
}

}  // namespace adarl
