#include "algorithms/sample_pool.hpp"

namespace adarl {

sample_request sample_pool::request(prompt_slot slot, uint32_t count) {
  const auto first = requested();
  rewards_.resize(first + count, 0.f);
  got_.resize(first + count, 0);
  return {slot, first, count};
}

result_status sample_pool::record(uint32_t index, float reward, uint32_t tokens) {
  if (index >= requested()) return result_status::not_requested;
  if (got_[index]) return result_status::duplicate;
  got_[index] = 1;
  rewards_[index] = reward;
  tokens_ += tokens;
  ++received_;
  return result_status::accepted;
}

}  // namespace adarl
