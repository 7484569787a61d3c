#include "actors/prompt_table.hpp"

namespace adarl {

result<std::vector<int32_t>> prompt_tokens(const text_codec& codec, const task_item& item,
                                           prompt_format format) {
  return codec.encode_prompt_with_system(item.system, format_prompt(format, item.prompt),
                                         "task \"" + item.id + "\" prompt");
}

result<prompt_table> build_prompt_table(const std::vector<task_item>& train,
                                        const std::vector<task_item>& held_out,
                                        const text_codec& codec, prompt_format format,
                                        const item_place& place) {
  prompt_table t;
  t.train = static_cast<uint32_t>(train.size());
  t.rows.reserve(train.size() + held_out.size());
  std::string problems;
  size_t failed = 0;
  for (const auto* part : {&train, &held_out})
    for (const auto& item : *part) {
      auto tokens = prompt_tokens(codec, item, format);
      if (tokens) {
        t.rows.push_back({item, std::move(*tokens)});
      } else if (++failed <= max_prompt_errors) {
        problems += (problems.empty() ? "" : "\n") + (place ? place(item) : std::string()) +
                    tokens.err().message;
      }
    }
  if (failed > max_prompt_errors)
    problems += "\n... and " + std::to_string(failed - max_prompt_errors) + " more prompts";
  if (failed > 0) return error{problems};
  return t;
}

result<prompt_table> build_prompt_table(const std::vector<task_item>& train,
                                        const std::vector<task_item>& held_out,
                                        std::shared_ptr<const text_codec> codec,
                                        prompt_format format, const item_place& place) {
  auto t = build_prompt_table(train, held_out, *codec, format, place);
  if (t) t->codec = std::move(codec);
  return t;
}

}  // namespace adarl
