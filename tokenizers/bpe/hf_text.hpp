#pragma once
// The text_codec of a Hugging Face model directory: its byte-level BPE tokenizer
// (tokenizers/bpe/bpe_tokenizer.hpp) and its chat format (tokenizers/hf_chat_template.hpp).
// Torch-free (adarl_hf).

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.hpp"
#include "tokenizers/bpe/bpe_tokenizer.hpp"
#include "tokenizers/hf_chat_template.hpp"
#include "tokenizers/text_codec.hpp"

namespace adarl {

/// How prompts are put to the model (`model.chat_template`, `model.system_prompt`).
struct hf_text_options {
  chat_template_choice chat = chat_template_choice::automatic;
  std::string system_prompt = "auto";  ///< resolve_chat_format's meaning.
};

/// Prompts through the chat format, then the tokenizer (special tokens of the template
/// matched as such; with no template the tokenizer adds its BOS as transformers'
/// tokenizer(text) does); completions decoded without special tokens.
/// End ids: the eos ids of config.json, generation_config.json and
/// tokenizer_config.json, the template's turn end (<|im_end|>, <|eot_id|>) and the
/// end-of-document tokens the vocabulary has (<|endoftext|>, <|end_of_text|>). Padding:
/// the tokenizer's pad token, else its first end id. Immutable: thread-safe.
class hf_text_codec final : public text_codec {
 public:
  /// Reads DIR/tokenizer.json, DIR/tokenizer_config.json (optional), DIR/config.json
  /// and DIR/generation_config.json (optional, for eos ids). Errors name the file or the
  /// config key (model.chat_template, model.system_prompt). About a second for Qwen's
  /// 11 MB tokenizer.json.
  static result<std::shared_ptr<const hf_text_codec>> open(const std::string& dir,
                                                            const hf_text_options& options);

  result<std::vector<int32_t>> encode_prompt(std::string_view text,
                                             std::string_view source) const override;
  /// With a chat template, `system` replaces the run's system turn (as a system message
  /// does in transformers' apply_chat_template); without one, text_codec's join.
  result<std::vector<int32_t>> encode_prompt_with_system(std::string_view system,
                                                         std::string_view text,
                                                         std::string_view source) const override;
  std::string decode_completion(std::span<const int32_t> ids) const override;
  const std::vector<int32_t>& end_ids() const override { return end_ids_; }
  int32_t pad_id() const override { return pad_; }
  int32_t vocab_size() const override { return tok_.vocab_size(); }

  /// The prompt text after the chat format (what encode_prompt tokenizes).
  std::string render(std::string_view user) const { return render_chat(format_, user); }
  const chat_format& format() const { return format_; }
  const bpe_tokenizer& tokenizer() const { return tok_; }

  hf_text_codec(bpe_tokenizer tok, chat_format format, std::vector<int32_t> end_ids,
                int32_t pad);

 private:
  /// The ids of `text` as the user turn of format `f` (errors name `source`).
  result<std::vector<int32_t>> encode_in(const chat_format& f, std::string_view text,
                                         std::string_view source) const;

  bpe_tokenizer tok_;
  chat_format format_;
  std::vector<int32_t> end_ids_;  ///< Sorted, distinct, not empty.
  int32_t pad_ = 0;
};

}  // namespace adarl
