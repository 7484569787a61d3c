#include "tokenizers/hf_chat_template.hpp"

#include <nlohmann/json.hpp>

namespace adarl {

namespace {

// Jinja's string-literal escapes inside a template (\n, \t, \\, \', \").
std::string unescape_jinja(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\' || i + 1 == s.size()) {
      out += s[i];
      continue;
    }
    const char c = s[++i];
    out += c == 'n' ? '\n' : c == 't' ? '\t' : c;
  }
  return out;
}

// The literal system turn of a ChatML template's default branch: the text between
// '<|im_start|>system\n and <|im_end|> inside one quoted literal (no quote, no +).
std::optional<std::string> chatml_default_system(const std::string& tpl) {
  const std::string open = "<|im_start|>system\\n", close = "<|im_end|>";
  for (size_t at = tpl.find(open); at != std::string::npos; at = tpl.find(open, at + 1)) {
    const size_t begin = at + open.size();
    const size_t end = tpl.find(close, begin);
    if (end == std::string::npos) break;
    const std::string_view body(tpl.data() + begin, end - begin);
    // A quote or + means the text is built from variables (messages[0]['content']);
    // braces may belong to the text itself (\boxed{}).
    if (body.empty() || body.find_first_of("'\"+") != std::string_view::npos) continue;
    return unescape_jinja(body);
  }
  return std::nullopt;
}

std::string token_text(const nlohmann::json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_object() && v.contains("content") && v["content"].is_string())
    return v["content"].get<std::string>();
  return "";
}

std::string_view trim(std::string_view s) {
  const char* ws = " \t\n\r\f\v";
  const auto b = s.find_first_not_of(ws);
  if (b == std::string_view::npos) return {};
  return s.substr(b, s.find_last_not_of(ws) - b + 1);
}

}  // namespace

std::optional<chat_template_choice> parse_chat_template_choice(std::string_view name) {
  if (name == "auto") return chat_template_choice::automatic;
  if (name == "none") return chat_template_choice::none;
  if (name == "chatml") return chat_template_choice::chatml;
  if (name == "llama3") return chat_template_choice::llama3;
  return std::nullopt;
}

std::string_view chat_template_name(chat_template t) {
  switch (t) {
    case chat_template::chatml: return "chatml";
    case chat_template::llama3: return "llama3";
    default: return "none";
  }
}

result<detected_template> detect_chat_template(std::string_view text, std::string_view source) {
  detected_template d;
  if (text.empty()) return d;
  try {
    const auto j = nlohmann::json::parse(text);
    if (!j.is_object()) return error{std::string(source) + ": expected a JSON object"};
    if (j.contains("bos_token")) d.bos = token_text(j["bos_token"]);
    if (!j.contains("chat_template") || j["chat_template"].is_null()) return d;
    std::string tpl;
    const auto& t = j["chat_template"];
    if (t.is_string()) {
      tpl = t.get<std::string>();
    } else if (t.is_array()) {  // [{"name": "default", "template": ...}, ...]
      for (const auto& e : t)
        if (e.is_object() && e.value("name", "") == "default") tpl = e.value("template", "");
    }
    d.present = !tpl.empty();
    if (tpl.find("<|im_start|>") != std::string::npos) {
      d.kind = chat_template::chatml;
      d.default_system = chatml_default_system(tpl);
    } else if (tpl.find("<|start_header_id|>") != std::string::npos) {
      d.kind = chat_template::llama3;
    }
  } catch (const nlohmann::json::exception& e) {
    return error{std::string(source) + ": " + e.what()};
  }
  return d;
}

result<chat_format> resolve_chat_format(chat_template_choice choice,
                                        const std::string& system_prompt,
                                        const detected_template& detected) {
  chat_format f;
  switch (choice) {
    case chat_template_choice::automatic:
      if (detected.present && detected.kind == chat_template::none)
        return error{"model.chat_template: auto cannot tell the family of the model's "
                     "chat_template (tokenizer_config.json): set chatml, llama3 or none"};
      f.kind = detected.kind;
      break;
    case chat_template_choice::none: f.kind = chat_template::none; break;
    case chat_template_choice::chatml: f.kind = chat_template::chatml; break;
    case chat_template_choice::llama3: f.kind = chat_template::llama3; break;
  }
  if (system_prompt == "auto") {
    if (f.kind == chat_template::chatml && detected.kind == chat_template::chatml)
      f.system = detected.default_system;
  } else if (!system_prompt.empty()) {
    if (f.kind == chat_template::none)
      return error{"model.system_prompt: a system prompt needs a chat template "
                   "(model.chat_template is none, or auto found none)"};
    f.system = system_prompt;
  }
  if (f.kind == chat_template::chatml) f.turn_end = "<|im_end|>";
  if (f.kind == chat_template::llama3) {
    f.turn_end = "<|eot_id|>";
    f.bos = detected.bos.empty() ? "<|begin_of_text|>" : detected.bos;
  }
  return f;
}

std::string render_chat(const chat_format& f, std::string_view user) {
  std::string out;
  switch (f.kind) {
    case chat_template::none:
      return std::string(user);
    case chat_template::chatml:
      if (f.system) out += "<|im_start|>system\n" + *f.system + "<|im_end|>\n";
      out += "<|im_start|>user\n";
      out += user;
      out += "<|im_end|>\n<|im_start|>assistant\n";
      return out;
    case chat_template::llama3: {
      auto turn = [&](std::string_view role, std::string_view content) {
        out += "<|start_header_id|>";
        out += role;
        out += "<|end_header_id|>\n\n";
        out += trim(content);
        out += "<|eot_id|>";
      };
      out = f.bos;
      if (f.system) turn("system", *f.system);
      turn("user", user);
      out += "<|start_header_id|>assistant<|end_header_id|>\n\n";
      return out;
    }
  }
  return std::string(user);
}

}  // namespace adarl
