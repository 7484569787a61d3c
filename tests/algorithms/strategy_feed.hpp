#pragma once

// Test support: hand-fed results for the strategy unit tests.

#include <gtest/gtest.h>

#include <vector>

#include "algorithms/step_strategy.hpp"

namespace adarl::test {

/// Appends the decisions of one event to an accumulated record.
inline void merge(decisions& into, decisions& from) {
  for (auto& r : from.requests) into.requests.push_back(r);
  for (auto& g : from.finished) into.finished.push_back(std::move(g));
  into.prompts_wanted += from.prompts_wanted;
  into.step_done = into.step_done || from.step_done;
}

/// Sends rewards[i] as sample first + i of `slot`, in that order, each expected to be
/// accepted; returns the decisions of all these events merged.
inline decisions feed(step_strategy& s, prompt_slot slot, uint32_t first,
                      const std::vector<float>& rewards) {
  decisions all;
  for (uint32_t i = 0; i < rewards.size(); ++i) {
    decisions d;
    const auto status = s.on_result({slot, first + i, rewards[i], /*tokens=*/10}, d);
    EXPECT_EQ(status, result_status::accepted)
        << "slot " << slot << " index " << first + i;
    merge(all, d);
  }
  return all;
}

/// Sends one result; returns its status and appends its decisions to `out`.
inline result_status send(step_strategy& s, prompt_slot slot, uint32_t index,
                          float reward, decisions& out) {
  decisions d;
  const auto status = s.on_result({slot, index, reward, /*tokens=*/10}, d);
  merge(out, d);
  return status;
}

}  // namespace adarl::test
