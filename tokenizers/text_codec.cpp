#include "tokenizers/text_codec.hpp"

#include <algorithm>

namespace adarl {

std::string format_prompt(prompt_format format, std::string_view prompt) {
  if (format == prompt_format::plain) return std::string(prompt);
  std::string out(prompt);
  out += ' ';
  out += boxed_instruction;
  return out;
}

std::optional<prompt_format> parse_prompt_format(std::string_view name) {
  if (name == "plain") return prompt_format::plain;
  if (name == "boxed") return prompt_format::boxed;
  return std::nullopt;
}

std::string_view prompt_format_name(prompt_format format) {
  return format == prompt_format::boxed ? "boxed" : "plain";
}

bool text_codec::is_end(int32_t id) const {
  const auto& ends = end_ids();
  return std::find(ends.begin(), ends.end(), id) != ends.end();
}

}  // namespace adarl
