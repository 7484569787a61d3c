#include "actors/prompt_table.hpp"

namespace adarl {

result<std::vector<int32_t>> prompt_tokens(const text_codec& codec, const task_item& item,
                                           prompt_format format) {
  return codec.encode_prompt(format_prompt(format, item.prompt),
                             "task \"" + item.id + "\" prompt");
}

result<prompt_table> build_prompt_table(const std::vector<task_item>& train,
                                        const std::vector<task_item>& held_out,
                                        const text_codec& codec, prompt_format format) {
  prompt_table t;
  t.train = static_cast<uint32_t>(train.size());
  t.rows.reserve(train.size() + held_out.size());
  for (const auto* part : {&train, &held_out})
    for (const auto& item : *part) {
      auto tokens = prompt_tokens(codec, item, format);
      if (!tokens) return tokens.err();
      t.rows.push_back({item, std::move(*tokens)});
    }
  return t;
}

result<prompt_table> build_prompt_table(const std::vector<task_item>& train,
                                        const std::vector<task_item>& held_out,
                                        std::shared_ptr<const text_codec> codec,
                                        prompt_format format) {
  auto t = build_prompt_table(train, held_out, *codec, format);
  if (t) t->codec = std::move(codec);
  return t;
}

}  // namespace adarl
