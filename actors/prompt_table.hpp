#pragma once
// The prompts of a run, tokenized once and shared read-only by every actor.

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "base/result.hpp"
#include "tasks/task_item.hpp"
#include "tokenizers/text_codec.hpp"
#include "tokenizers/tokenizer.hpp"

namespace adarl {

/// One prompt: its task and the tokens a generator feeds the policy.
struct prompt_row {
  task_item item;
  std::vector<int32_t> tokens;  ///< The prompt as the policy is fed it (text_codec::encode_prompt).
};

/// Training prompts (ids 0..train-1) followed by held-out ones. Immutable once built,
/// shared as `prompt_table_ptr`, so it is safe to read from any actor.
struct prompt_table {
  std::vector<prompt_row> rows;
  uint32_t train = 0;
  /// The codec that made the tokens: verifiers decode completions with it. Null in
  /// tables built from a codec by reference (their verifiers bring their own).
  std::shared_ptr<const text_codec> codec;
  uint32_t held_out() const { return static_cast<uint32_t>(rows.size()) - train; }
};
using prompt_table_ptr = std::shared_ptr<const prompt_table>;

/// The tokens of a prompt as the policy sees it: the item's prompt worded in `format`,
/// then the codec's framing with the item's own system turn, if any
/// (text_codec::encode_prompt_with_system: the character model: begin, text, separator;
/// an instruct model: its chat template). Text the vocabulary cannot express is an error
/// naming the item.
result<std::vector<int32_t>> prompt_tokens(const text_codec& codec, const task_item& item,
                                           prompt_format format = prompt_format::plain);

/// Where an item came from, as a message prefix ("data.jsonl:17: "), or "".
using item_place = std::function<std::string(const task_item&)>;

/// The most prompts a failed build_prompt_table names (then "and N more").
inline constexpr size_t max_prompt_errors = 20;

/// Tokenizes train then held-out items. An error lists every item the codec cannot
/// encode (up to max_prompt_errors, one per line), each named by `place` (when given)
/// and its id; O(total text).
result<prompt_table> build_prompt_table(const std::vector<task_item>& train,
                                        const std::vector<task_item>& held_out,
                                        const text_codec& codec,
                                        prompt_format format = prompt_format::plain,
                                        const item_place& place = nullptr);

/// The same, keeping `codec` in the table for the verifiers.
result<prompt_table> build_prompt_table(const std::vector<task_item>& train,
                                        const std::vector<task_item>& held_out,
                                        std::shared_ptr<const text_codec> codec,
                                        prompt_format format = prompt_format::plain,
                                        const item_place& place = nullptr);

}  // namespace adarl
