#include "base/jsonl_text.hpp"

namespace adarl {

std::string shown_json(const nlohmann::json& v) {
  std::string s = v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return s.size() > 40 ? s.substr(0, 37) + "..." : s;
}

std::string json_quoted(const std::string& s) {
  return nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

bool blank_line(const std::string& s) {
  return s.find_first_not_of(" \t\r\n") == std::string::npos;
}

std::size_t json_depth(std::string_view text) {
  std::size_t depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (const char c : text) {
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > deepest) deepest = depth;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

std::string json_parse_message(const nlohmann::json::exception& e) {
  std::string s = e.what();
  if (const auto at = s.find("line 1, "); at != std::string::npos) return s.substr(at + 8);
  if (const auto at = s.find("] "); at != std::string::npos) return s.substr(at + 2);
  return s;
}

void line_problems::add(uint32_t line, const std::string& what) {
  if (!full()) lines.push_back(name + ":" + std::to_string(line) + ": " + what);
}

error line_problems::joined() const {
  std::string message;
  for (const auto& l : lines) message += (message.empty() ? "" : "\n") + l;
  return error{message};
}

namespace {

/// nlohmann's DOM builder, noting the source text of top-level non-integer numbers.
class number_text_sax : public nlohmann::detail::json_sax_dom_parser<nlohmann::json> {
  using base = nlohmann::detail::json_sax_dom_parser<nlohmann::json>;
  using json = nlohmann::json;

 public:
  number_text_sax(json& root, std::map<std::string, std::string>& out) : base(root), out_(out) {}
  bool start_object(std::size_t n) { return ++depth_, base::start_object(n); }
  bool end_object() { return --depth_, base::end_object(); }
  bool start_array(std::size_t n) { return ++depth_, base::start_array(n); }
  bool end_array() { return --depth_, base::end_array(); }
  bool key(json::string_t& k) {
    if (depth_ == 1) key_ = k;
    return base::key(k);
  }
  bool number_float(json::number_float_t v, const json::string_t& text) {
    if (depth_ == 1) out_[key_] = text;
    return base::number_float(v, text);
  }

 private:
  std::map<std::string, std::string>& out_;
  int depth_ = 0;
  std::string key_;
};

}  // namespace

std::optional<nlohmann::json> json_object_line(const std::string& text, uint32_t line,
                                               line_problems& p,
                                               std::map<std::string, std::string>* number_text) {
  using nlohmann::json;
  if (json_depth(text) > max_json_depth) {
    p.add(line, "not valid JSON (nested deeper than " + std::to_string(max_json_depth) +
                    " levels)");
    return std::nullopt;
  }
  json j;
  try {
    if (number_text) {
      number_text->clear();
      number_text_sax sax(j, *number_text);
      json::sax_parse(text, &sax);
    } else {
      j = json::parse(text);
    }
  } catch (const json::exception& e) {  // a syntax error, bad UTF-8, a huge number
    p.add(line, "not valid JSON (" + json_parse_message(e) + ")");
    return std::nullopt;
  }
  if (!j.is_object()) {
    p.add(line, "expected a JSON object, got " + std::string(j.type_name()));
    return std::nullopt;
  }
  return j;
}

bool read_tests_field(const nlohmann::json& j, uint32_t line, line_problems& p,
                      std::string& out) {
  const auto t = j.find("tests");
  if (t == j.end() || t->is_null()) return true;
  if (t->is_string()) {
    out = t->get<std::string>();
  } else if (t->is_object() || t->is_array()) {
    out = t->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  } else {
    p.add(line, "field \"tests\": expected a string, object or array, got " + shown_json(*t));
    return false;
  }
  return true;
}

}  // namespace adarl
