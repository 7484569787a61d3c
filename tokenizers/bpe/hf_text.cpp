#include "tokenizers/bpe/hf_text.hpp"

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "formats/hf_config.hpp"

namespace adarl {

namespace {

// eos_token_id of a config file (an id or a list), when the file exists.
result<bool> add_eos_ids(const std::string& path, std::vector<int32_t>& out) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return true;
  auto text = read_text_file(path);
  if (!text) return text.err();
  try {
    const auto j = nlohmann::json::parse(*text);
    if (!j.is_object() || !j.contains("eos_token_id")) return true;
    const auto& e = j["eos_token_id"];
    if (e.is_number_integer()) out.push_back(e.get<int32_t>());
    if (e.is_array())
      for (const auto& x : e)
        if (x.is_number_integer()) out.push_back(x.get<int32_t>());
  } catch (const nlohmann::json::exception& e) {
    return error{path + ": " + e.what()};
  }
  return true;
}

}  // namespace

hf_text_codec::hf_text_codec(bpe_tokenizer tok, chat_format format, std::vector<int32_t> end_ids,
                             int32_t pad)
    : tok_(std::move(tok)), format_(std::move(format)), end_ids_(std::move(end_ids)), pad_(pad) {}

result<std::shared_ptr<const hf_text_codec>> hf_text_codec::open(const std::string& dir,
                                                                  const hf_text_options& o) {
  const std::string config_path = dir + "/tokenizer_config.json";
  std::string config_text;
  if (std::error_code ec; std::filesystem::exists(config_path, ec)) {
    auto t = read_text_file(config_path);
    if (!t) return t.err();
    config_text = std::move(*t);
  }
  auto detected = detect_chat_template(config_text, config_path);
  if (!detected) return detected.err();
  auto format = resolve_chat_format(o.chat, o.system_prompt, *detected);
  if (!format) return format.err();
  auto tok = bpe_tokenizer::from_directory(dir);
  if (!tok) return tok.err();
  std::vector<int32_t> ends;
  for (const char* file : {"/config.json", "/generation_config.json"})
    if (auto ok = add_eos_ids(dir + file, ends); !ok) return ok.err();
  if (auto e = tok->eos_id()) ends.push_back(*e);
  for (const std::string& t : {format->turn_end, std::string("<|endoftext|>"),
                               std::string("<|end_of_text|>")})
    if (!t.empty())
      if (auto id = tok->token_to_id(t)) ends.push_back(*id);
  if (!format->turn_end.empty() && !tok->token_to_id(format->turn_end))
    return error{dir + "/tokenizer.json: the " +
                 std::string(chat_template_name(format->kind)) + " chat format ends turns with " +
                 format->turn_end + ", which the vocabulary does not have (model.chat_template)"};
  std::sort(ends.begin(), ends.end());
  ends.erase(std::unique(ends.begin(), ends.end()), ends.end());
  ends.erase(std::remove_if(ends.begin(), ends.end(),
                            [&](int32_t id) { return id < 0 || id >= tok->vocab_size(); }),
             ends.end());
  if (ends.empty())
    return error{dir + ": no end-of-sequence token (eos_token_id in config.json or "
                       "eos_token in tokenizer_config.json)"};
  const int32_t pad = tok->pad_id().value_or(ends.front());
  return std::make_shared<const hf_text_codec>(std::move(*tok), std::move(*format),
                                               std::move(ends), pad);
}

result<std::vector<int32_t>> hf_text_codec::encode_in(const chat_format& f,
                                                      std::string_view text,
                                                      std::string_view source) const {
  auto ids = tok_.encode(render_chat(f, text), /*add_special_tokens=*/f.kind == chat_template::none);
  if (!ids) return error{std::string(source) + ": " + ids.err().message};
  if (ids->empty()) return error{std::string(source) + ": the prompt has no tokens"};
  return std::move(*ids);
}

result<std::vector<int32_t>> hf_text_codec::encode_prompt(std::string_view text,
                                                          std::string_view source) const {
  return encode_in(format_, text, source);
}

result<std::vector<int32_t>> hf_text_codec::encode_prompt_with_system(
    std::string_view system, std::string_view text, std::string_view source) const {
  if (system.empty() || format_.kind == chat_template::none)
    return text_codec::encode_prompt_with_system(system, text, source);
  chat_format own = format_;
  own.system = std::string(system);
  return encode_in(own, text, source);
}

std::string hf_text_codec::decode_completion(std::span<const int32_t> ids) const {
  return tok_.decode(ids, /*skip_special_tokens=*/true);
}

}  // namespace adarl
