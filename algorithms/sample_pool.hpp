#pragma once
// The samples of one prompt in one step, by sample index: requested, received, rewards.

#include <cstdint>
#include <span>
#include <vector>

#include "algorithms/step_types.hpp"

namespace adarl {

/// The samples of one prompt in one step: what was requested and what came back, by
/// sample index (generation order). Deduplicates by index. O(1) per operation.
/// Invariant: received() <= requested(); rewards()[i] is valid where has(i).
class sample_pool {
 public:
  /// Issues the next `count` indices for `slot` and returns the request.
  sample_request request(prompt_slot slot, uint32_t count);
  /// Records a result for `index`: accepted, duplicate, or not_requested.
  result_status record(uint32_t index, float reward, uint32_t tokens);

  uint32_t requested() const { return static_cast<uint32_t>(rewards_.size()); }
  uint32_t received() const { return received_; }
  /// True when every requested sample has come back.
  bool complete() const { return received_ == requested(); }
  bool has(uint32_t index) const { return index < got_.size() && got_[index] != 0; }
  /// Rewards by index; meaningful where has(i).
  std::span<const float> rewards() const { return rewards_; }
  /// Generated tokens of the received samples.
  uint64_t tokens() const { return tokens_; }

 private:
  std::vector<float> rewards_;
  std::vector<uint8_t> got_;
  uint32_t received_ = 0;
  uint64_t tokens_ = 0;
};

/// Records `r` in the pool of prompts[r.slot] (a strategy's per-prompt state with a
/// `pool` member): unknown_slot past the prompts, else the pool's answer; an accepted
/// result counts once in `accepted`. O(1).
template <class State>
result_status record_result(std::vector<State>& prompts, const sample_result& r,
                            uint64_t& accepted) {
  if (r.slot >= prompts.size()) return result_status::unknown_slot;
  const auto status = prompts[r.slot].pool.record(r.index, r.reward, r.tokens);
  if (status == result_status::accepted) ++accepted;
  return status;
}

}  // namespace adarl
