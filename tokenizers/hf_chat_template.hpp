#pragma once
// Chat templates of instruct models, as fixed per-family formats instead of a Jinja
// engine: Qwen's ChatML and Llama 3's header format, which is all a one-turn RL prompt
// (an optional system turn, the user turn, the opened assistant turn) needs of them.
// Torch-free and regex-free: the config reader resolves the format before a run starts.

#include <optional>
#include <string>
#include <string_view>

#include "base/result.hpp"

namespace adarl {

/// The families of prompt formats adarl renders.
enum class chat_template {
  none,    ///< The prompt text alone (base models); the tokenizer adds its BOS, if any.
  chatml,  ///< <|im_start|>role\n...<|im_end|>\n (Qwen2, Qwen2.5, Qwen3).
  llama3,  ///< <|start_header_id|>role<|end_header_id|>\n\n...<|eot_id|> (Llama 3.x).
};

/// `model.chat_template`: auto (from tokenizer_config.json) or one family.
enum class chat_template_choice { automatic, none, chatml, llama3 };

/// "auto", "none", "chatml" or "llama3"; nullopt for another name.
std::optional<chat_template_choice> parse_chat_template_choice(std::string_view name);
/// "none", "chatml", "llama3".
std::string_view chat_template_name(chat_template t);

/// How the prompts of a run are put to the model: resolved once from the config and the
/// model's tokenizer_config.json.
struct chat_format {
  chat_template kind = chat_template::none;
  std::optional<std::string> system;  ///< The system turn; nullopt = none.
  std::string bos;                    ///< llama3: the BOS text the template starts with.
  /// The template's own token that ends an assistant turn ("<|im_end|>", "<|eot_id|>";
  /// empty for none): a stop token besides the tokenizer's eos.
  std::string turn_end;
};

/// What tokenizer_config.json's chat_template is.
struct detected_template {
  bool present = false;            ///< The file has a chat_template.
  chat_template kind = chat_template::none;  ///< Its family (none when absent).
  /// The system turn it inserts when the conversation has none (Qwen2.5: "You are
  /// Qwen, ..."; Qwen2.5-Math: "Please reason step by step, ..."), as a string literal
  /// of the template's ChatML branch; nullopt when it inserts none.
  std::optional<std::string> default_system;
  std::string bos;                 ///< bos_token (string or {"content"}), "" when null.
};

/// Reads tokenizer_config.json text ("" = no file: no template). A template that is
/// neither ChatML nor Llama 3 is reported as present with kind none, and resolve fails
/// for `auto` on it. Bad JSON is an error naming `source`.
result<detected_template> detect_chat_template(std::string_view tokenizer_config_json,
                                               std::string_view source);

/// The format of a run. `system_prompt` "auto" takes the template's default system
/// turn (what transformers' apply_chat_template inserts for a lone user message),
/// "" means no system turn, anything else is the system turn. Errors (naming the key
/// model.chat_template or model.system_prompt): auto on a template of an unknown
/// family, a system prompt without a template.
result<chat_format> resolve_chat_format(chat_template_choice choice,
                                        const std::string& system_prompt,
                                        const detected_template& detected);

/// The prompt text of one user turn in format `f`, ending with the opened assistant
/// turn (none: `user` unchanged). Llama 3 trims each turn's whitespace as its template
/// does. O(size).
std::string render_chat(const chat_format& f, std::string_view user);

}  // namespace adarl
