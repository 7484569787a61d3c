#pragma once
// The text face of a policy's vocabulary, torch-free: what prompt tables, verifiers, the
// decoder's stop test and the learner's padding need of a tokenizer. The character
// tokenizer (tokenizers/tokenizer.hpp) and the Hugging Face BPE tokenizer with its chat
// template (tokenizers/bpe/hf_text.hpp) implement it.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.hpp"

namespace adarl {

/// How a task's prompt text is worded before the model's chat template (tasks.prompt_format).
enum class prompt_format {
  plain,  ///< The task's prompt as it is.
  boxed,  ///< The prompt, a space, then boxed_instruction: the math RL format, whose
          ///< answer the math verifier reads from the last \boxed{}.
};

/// The sentence the boxed format appends (verl's and the Reinforce-Ada paper's math prompt).
inline constexpr std::string_view boxed_instruction =
    "Let's think step by step and output the final answer within \\boxed{}.";

/// The prompt text in `format`. O(size).
std::string format_prompt(prompt_format format, std::string_view prompt);
/// "plain" or "boxed" as a format; nullopt for another name.
std::optional<prompt_format> parse_prompt_format(std::string_view name);
/// The name of a format ("plain", "boxed").
std::string_view prompt_format_name(prompt_format format);

/// Text <-> token ids of a policy. Implementations are immutable once built, so every
/// member may be called from any number of threads; shared as
/// std::shared_ptr<const text_codec> by the prompt table and the verifiers.
class text_codec {
 public:
  virtual ~text_codec() = default;

  /// The ids the policy is fed for a prompt, ready for the completion to follow (the
  /// character model: begin, text, separator; an instruct model: its chat template
  /// with the prompt as the user turn and the assistant turn opened). Text the
  /// vocabulary cannot express is an error naming `source` (e.g. "task \"q3\" prompt").
  virtual result<std::vector<int32_t>> encode_prompt(std::string_view text,
                                                     std::string_view source) const = 0;

  /// The ids for a prompt with a system turn of its own (task_item::system; "" = none,
  /// encode_prompt's). A chat model renders `system` as its template's system turn; this
  /// default (the character policy, models without a template) reads the system text
  /// before the prompt, with a blank line between.
  virtual result<std::vector<int32_t>> encode_prompt_with_system(std::string_view system,
                                                                 std::string_view text,
                                                                 std::string_view source) const {
    if (system.empty()) return encode_prompt(text, source);
    std::string joined(system);
    joined += "\n\n";
    joined += text;
    return encode_prompt(joined, source);
  }

  /// The text of completion ids as a verifier reads it: special tokens (end, padding,
  /// template markers) left out. Never fails. O(ids + text).
  virtual std::string decode_completion(std::span<const int32_t> ids) const = 0;

  /// Ids that end a completion when drawn (sampling stops there; the id is kept as the
  /// completion's last token). Never empty.
  virtual const std::vector<int32_t>& end_ids() const = 0;

  /// The id put in padding positions (masked out: its value never changes a result,
  /// but it must be inside the vocabulary).
  virtual int32_t pad_id() const = 0;

  /// One past the largest id: the rows of the model's embedding.
  virtual int32_t vocab_size() const = 0;

  /// True when `id` is one of end_ids(). O(end ids).
  bool is_end(int32_t id) const;
};

}  // namespace adarl
