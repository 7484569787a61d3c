#include "tasks/jsonl_text.hpp"

namespace adarl {

std::string shown_json(const nlohmann::json& v) {
  std::string s = v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return s.size() > 40 ? s.substr(0, 37) + "..." : s;
}

bool blank_line(const std::string& s) {
  return s.find_first_not_of(" \t\r\n") == std::string::npos;
}

std::string json_parse_message(const nlohmann::json::exception& e) {
  std::string s = e.what();
  if (const auto at = s.find("line 1, "); at != std::string::npos) return s.substr(at + 8);
  if (const auto at = s.find("] "); at != std::string::npos) return s.substr(at + 2);
  return s;
}

}  // namespace adarl
