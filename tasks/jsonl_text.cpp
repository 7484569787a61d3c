#include "tasks/jsonl_text.hpp"

namespace adarl {

std::string shown_json(const nlohmann::json& v) {
  std::string s = v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return s.size() > 40 ? s.substr(0, 37) + "..." : s;
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

}  // namespace adarl
