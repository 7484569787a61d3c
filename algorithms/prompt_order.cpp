#include "algorithms/prompt_order.hpp"

#include <numeric>
#include <utility>

#include "base/random_keys.hpp"

namespace adarl {

prompt_order::prompt_order(uint64_t count, uint64_t seed) : count_(count), seed_(seed) {}

void prompt_order::shuffle(uint64_t epoch) {
  order_.resize(count_);
  std::iota(order_.begin(), order_.end(), 0u);
  // Fisher-Yates with keyed draws: the permutation depends on (seed, epoch) only.
  uint64_t state = mix_keys(seed_, epoch);
  for (uint64_t i = count_; i > 1; --i) {
    state = splitmix64(state);
    const uint64_t j = state % i;
    std::swap(order_[i - 1], order_[j]);
  }
  epoch_ = epoch;
}

uint64_t prompt_order::next() {
  const uint64_t epoch = cursor_ / count_;
  if (epoch != epoch_) shuffle(epoch);
  return order_[cursor_++ % count_];
}

void prompt_order::seek(uint64_t cursor) { cursor_ = cursor; }

}  // namespace adarl
