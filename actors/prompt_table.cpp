#include "actors/prompt_table.hpp"

namespace adarl {

result<std::vector<int32_t>> prompt_tokens(const tokenizer& tok, const task_item& item) {
  auto text = tok.encode(item.prompt, "task \"" + item.id + "\" prompt");
  if (!text) return text.err();
  std::vector<int32_t> out;
  out.reserve(text->size() + 2);
  out.push_back(tokenizer::bos);
  out.insert(out.end(), text->begin(), text->end());
  out.push_back(tokenizer::sep);
  return out;
}

result<prompt_table> build_prompt_table(const std::vector<task_item>& train,
                                        const std::vector<task_item>& held_out,
                                        const tokenizer& tok) {
  prompt_table t;
  t.train = static_cast<uint32_t>(train.size());
  t.rows.reserve(train.size() + held_out.size());
  for (const auto* part : {&train, &held_out})
    for (const auto& item : *part) {
      auto tokens = prompt_tokens(tok, item);
      if (!tokens) return tokens.err();
      t.rows.push_back({item, std::move(*tokens)});
    }
  return t;
}

}  // namespace adarl
