#pragma once
// The prompts of a run, tokenized once and shared read-only by every actor.

#include <cstdint>
#include <memory>
#include <vector>

#include "algorithms/result.hpp"
#include "models/tokenizer.hpp"
#include "tasks/task_item.hpp"

namespace adarl {

/// One prompt: its task and the tokens a generator feeds the policy.
struct prompt_row {
  task_item item;
  std::vector<int32_t> tokens;  ///< Begin token, prompt text, separator.
};

/// Training prompts (ids 0..train-1) followed by held-out ones. Immutable once built,
/// shared as `prompt_table_ptr`, so it is safe to read from any actor.
struct prompt_table {
  std::vector<prompt_row> rows;
  uint32_t train = 0;
  uint32_t held_out() const { return static_cast<uint32_t>(rows.size()) - train; }
};
using prompt_table_ptr = std::shared_ptr<const prompt_table>;

/// The tokens of a prompt as the policy sees it: begin, text, separator. A character
/// outside the vocabulary is an error naming the item.
result<std::vector<int32_t>> prompt_tokens(const tokenizer& tok, const task_item& item);

/// Tokenizes train then held-out items. Errors name the item; O(total text).
result<prompt_table> build_prompt_table(const std::vector<task_item>& train,
                                        const std::vector<task_item>& held_out,
                                        const tokenizer& tok);

}  // namespace adarl
