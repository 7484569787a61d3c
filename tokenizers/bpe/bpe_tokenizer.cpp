#include "tokenizers/bpe/bpe_tokenizer.hpp"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <unordered_map>

#include "tokenizers/bpe/added_tokens.hpp"
#include "tokenizers/bpe/bpe_model.hpp"
#include "tokenizers/bpe/byte_level.hpp"
#include "tokenizers/bpe/pre_tokenizer.hpp"
#include "tokenizers/bpe/text_normalizer.hpp"
#include "tokenizers/bpe/token_decoder.hpp"

namespace adarl {

struct bpe_tokenizer::state {
  state(bpe_model m, text_normalizer n, pre_tokenizer p, token_decoder d)
      : model(std::move(m)),
        normalizer(std::move(n)),
        pre(std::move(p)),
        decoder(std::move(d)) {}

  bpe_model model;
  text_normalizer normalizer;
  pre_tokenizer pre;
  token_decoder decoder;
  std::vector<added_token> added;  ///< In file order; the matchers point into it.
  std::unordered_map<int32_t, size_t> added_by_id;
  std::unordered_map<std::string, int32_t> added_by_content;
  added_token_matcher raw_matcher;  ///< normalized = false: matched in the raw text.
  added_token_matcher
      normalized_matcher;               ///< normalized = true: matched after normalizing.
  std::vector<int32_t> prefix, suffix;  ///< The post-processor's template around $A.
  std::optional<int32_t> bos, eos, pad, unk;
};

namespace {

result<bool> read_template(const nlohmann::json& p, const std::string& where,
                           std::vector<int32_t>& prefix, std::vector<int32_t>& suffix) {
  if (p.is_null()) return true;
  const std::string type = p.is_object() ? p.value("type", "") : "";
  if (type == "ByteLevel") return true;  // offsets only
  if (type == "Sequence" && p.contains("processors") && p["processors"].is_array()) {
    for (const auto& q : p["processors"]) {
      auto ok = read_template(q, where, prefix, suffix);
      if (!ok.ok()) return ok;
    }
    return true;
  }
  if (type != "TemplateProcessing") {
    return error{where + ": unsupported type \"" + type +
                 "\" (expected ByteLevel, TemplateProcessing or a Sequence of them)"};
  }
  if (!p.contains("single") || !p["single"].is_array())
    return error{where + ": no single template"};
  bool after = false;
  for (const auto& item : p["single"]) {
    if (item.contains("Sequence")) {
      after = true;
      continue;
    }
    const auto name =
        item.contains("SpecialToken") ? item["SpecialToken"].value("id", "") : "";
    const auto& specials =
        p.contains("special_tokens") ? p["special_tokens"] : nlohmann::json();
    if (name.empty() || !specials.is_object() || !specials.contains(name) ||
        !specials[name].contains("ids") || !specials[name]["ids"].is_array()) {
      return error{where + ": single: \"" + name + "\" has no ids in special_tokens"};
    }
    for (const auto& id : specials[name]["ids"])
      (after ? suffix : prefix).push_back(id.get<int32_t>());
  }
  return true;
}

/// The token of a tokenizer_config.json key: a string, {"content": ...} or null.
std::optional<std::string> config_token(const nlohmann::json& config, const char* key) {
  if (!config.contains(key)) return std::nullopt;
  const auto& v = config[key];
  if (v.is_string()) return v.get<std::string>();
  if (v.is_object() && v.contains("content") && v["content"].is_string()) {
    return v["content"].get<std::string>();
  }
  return std::nullopt;
}

result<std::string> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return error{path + ": cannot open"};
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

bpe_tokenizer::bpe_tokenizer(std::unique_ptr<state> s) : s_(std::move(s)) {}
bpe_tokenizer::bpe_tokenizer(bpe_tokenizer&&) noexcept = default;
bpe_tokenizer& bpe_tokenizer::operator=(bpe_tokenizer&&) noexcept = default;
bpe_tokenizer::~bpe_tokenizer() = default;

result<bpe_tokenizer> bpe_tokenizer::from_json(std::string_view tokenizer_json,
                                               std::string_view config_json,
                                               std::string_view source) {
  const std::string src(source);
  nlohmann::json j, config;
  try {
    j = nlohmann::json::parse(tokenizer_json);
    if (!config_json.empty()) config = nlohmann::json::parse(config_json);
  } catch (const nlohmann::json::exception& e) {
    return error{src + ": not valid JSON: " + e.what()};
  }
  if (!j.is_object()) return error{src + ": expected a JSON object"};
  try {
    return build(j, config, src);
  } catch (const nlohmann::json::exception& e) {
    // A value of an unexpected JSON type somewhere in the file.
    return error{src + ": unexpected value: " + e.what()};
  }
}

result<bpe_tokenizer> bpe_tokenizer::build(const nlohmann::json& j,
                                           const nlohmann::json& config,
                                           const std::string& src) {
  static const nlohmann::json none;
  const auto section = [&](const char* key) -> const nlohmann::json& {
    return j.contains(key) ? j[key] : none;
  };
  auto model = bpe_model::parse(section("model"), src + ": model");
  if (!model.ok()) return model.err();
  auto normalizer = text_normalizer::parse(section("normalizer"), src + ": normalizer");
  if (!normalizer.ok()) return normalizer.err();
  auto pre = pre_tokenizer::parse(section("pre_tokenizer"), src + ": pre_tokenizer");
  if (!pre.ok()) return pre.err();
  auto decoder = token_decoder::parse(section("decoder"), src + ": decoder");
  if (!decoder.ok()) return decoder.err();
  auto s = std::make_unique<state>(std::move(*model), std::move(*normalizer),
                                   std::move(*pre), std::move(*decoder));
  auto ok = read_template(section("post_processor"), src + ": post_processor", s->prefix,
                          s->suffix);
  if (!ok.ok()) return ok.err();

  const auto& added = section("added_tokens");
  for (size_t i = 0; added.is_array() && i < added.size(); ++i) {
    const auto& a = added[i];
    if (!a.is_object() || !a.contains("id") || !a["id"].is_number_integer() ||
        !a.contains("content") || !a["content"].is_string()) {
      return error{src + ": added_tokens[" + std::to_string(i) +
                   "]: expected id and content"};
    }
    added_token t{a["id"].get<int32_t>(),
                  a["content"].get<std::string>(),
                  a.value("special", false),
                  a.value("lstrip", false),
                  a.value("rstrip", false),
                  a.value("single_word", false),
                  a.value("normalized", !a.value("special", false))};
    s->added_by_id[t.id] = s->added.size();
    s->added_by_content[t.content] = t.id;
    s->added.push_back(std::move(t));
  }
  std::vector<const added_token*> raw, normalized;
  std::vector<std::string> raw_patterns, normalized_patterns;
  for (const auto& t : s->added) {
    (t.normalized ? normalized : raw).push_back(&t);
    (t.normalized ? normalized_patterns : raw_patterns)
        .push_back(t.normalized ? s->normalizer.apply(t.content) : t.content);
  }
  s->raw_matcher = added_token_matcher(raw, raw_patterns);
  s->normalized_matcher = added_token_matcher(normalized, normalized_patterns);

  bpe_tokenizer tok(std::move(s));
  std::optional<int32_t>* slots[] = {&tok.s_->bos, &tok.s_->eos, &tok.s_->pad,
                                     &tok.s_->unk};
  const char* keys[] = {"bos_token", "eos_token", "pad_token", "unk_token"};
  for (int k = 0; k < 4; ++k) {
    const auto token = config_token(config, keys[k]);
    if (!token) continue;
    *slots[k] = tok.token_to_id(*token);
    if (!*slots[k]) {
      return error{src + ": tokenizer_config.json: " + keys[k] + " \"" + *token +
                   "\" is not in the vocabulary"};
    }
  }
  return tok;
}

result<bpe_tokenizer> bpe_tokenizer::from_directory(const std::string& dir) {
  const auto path = (std::filesystem::path(dir) / "tokenizer.json").string();
  auto text = read_file(path);
  if (!text.ok()) return text.err();
  const auto config_path = std::filesystem::path(dir) / "tokenizer_config.json";
  std::string config;
  if (std::filesystem::exists(config_path)) {
    auto c = read_file(config_path.string());
    if (!c.ok()) return c.err();
    config = std::move(*c);
  }
  return from_json(*text, config, path);
}

result<std::vector<int32_t>> bpe_tokenizer::encode(std::string_view text,
                                                   bool add_special_tokens) const {
  const size_t bad = utf8_error_offset(text);
  if (bad != std::string_view::npos) {
    return error{"text to encode is not valid UTF-8 at byte " + std::to_string(bad)};
  }
  std::vector<int32_t> ids;
  ids.reserve(text.size() / 3 + 4);
  if (add_special_tokens) ids = s_->prefix;
  std::vector<text_segment> raw, normalized;
  std::vector<std::string> words;
  s_->raw_matcher.split(text, raw);
  for (const auto& segment : raw) {
    if (segment.id >= 0) {
      ids.push_back(segment.id);
      continue;
    }
    const std::string norm = s_->normalizer.apply(segment.text);
    normalized.clear();
    if (s_->normalized_matcher.empty()) {
      normalized.push_back({norm, -1});
    } else {
      s_->normalized_matcher.split(norm, normalized);
    }
    for (const auto& piece : normalized) {
      if (piece.id >= 0) {
        ids.push_back(piece.id);
        continue;
      }
      words.clear();
      s_->pre.split(piece.text, words);
      for (const auto& w : words) s_->model.encode_word(w, ids);
    }
  }
  if (add_special_tokens) ids.insert(ids.end(), s_->suffix.begin(), s_->suffix.end());
  return ids;
}

std::string bpe_tokenizer::decode(std::span<const int32_t> ids,
                                  bool skip_special_tokens) const {
  std::vector<std::string> tokens;
  tokens.reserve(ids.size());
  for (int32_t id : ids) {
    const auto added = s_->added_by_id.find(id);
    if (added != s_->added_by_id.end()) {
      const auto& t = s_->added[added->second];
      if (!(skip_special_tokens && t.special)) tokens.push_back(t.content);
    } else if (const std::string* t = s_->model.id_to_token(id)) {
      tokens.push_back(*t);
    }
  }
  return s_->decoder.decode(std::move(tokens));
}

std::optional<int32_t> bpe_tokenizer::token_to_id(std::string_view token) const {
  const auto it = s_->added_by_content.find(std::string(token));
  if (it != s_->added_by_content.end()) return it->second;
  return s_->model.token_to_id(token);
}

std::optional<std::string_view> bpe_tokenizer::id_to_token(int32_t id) const {
  const auto added = s_->added_by_id.find(id);
  if (added != s_->added_by_id.end()) return s_->added[added->second].content;
  if (const std::string* t = s_->model.id_to_token(id)) return std::string_view(*t);
  return std::nullopt;
}

int32_t bpe_tokenizer::vocab_size() const {
  int32_t n = s_->model.id_end();
  for (const auto& t : s_->added) n = std::max(n, t.id + 1);
  return n;
}

bool bpe_tokenizer::is_special(int32_t id) const {
  const auto added = s_->added_by_id.find(id);
  return added != s_->added_by_id.end() && s_->added[added->second].special;
}

std::optional<int32_t> bpe_tokenizer::bos_id() const {
  return s_->bos;
}
std::optional<int32_t> bpe_tokenizer::eos_id() const {
  return s_->eos;
}
std::optional<int32_t> bpe_tokenizer::pad_id() const {
  return s_->pad;
}
std::optional<int32_t> bpe_tokenizer::unk_id() const {
  return s_->unk;
}

}  // namespace adarl
