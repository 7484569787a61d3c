#include "base/run_config_file.hpp"

#include <fstream>

#include <nlohmann/json.hpp>

namespace adarl {

std::string run_config_text(const std::map<std::string, std::string>& values) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [key, value] : values) j[key] = value;
  return nlohmann::json{{"format", run_config_format}, {"values", std::move(j)}}.dump(1) + "\n";
}

result<std::map<std::string, std::string>> read_run_config(const std::string& file) {
  std::ifstream in(file);
  if (!in) return error{file + ": cannot open (a run or checkpoint without its config)"};
  const auto j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return error{file + ": corrupt run config (not JSON)"};
  if (!j.is_object() || j.value("format", "") != run_config_format)
    return error{file + ": not a run config (no \"format\": \"" +
                 std::string(run_config_format) + "\")"};
  const auto v = j.find("values");
  if (v == j.end() || !v->is_object()) return error{file + ": no \"values\" object"};
  std::map<std::string, std::string> out;
  for (const auto& [key, value] : v->items()) {
    if (!value.is_string())
      return error{file + ": values." + key + ": expected a string, got " + value.type_name()};
    out.emplace(key, value.get<std::string>());
  }
  return out;
}

}  // namespace adarl
