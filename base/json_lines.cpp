#include "base/json_lines.hpp"

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

namespace adarl {

result<std::vector<nlohmann::json>> read_json_lines(const std::string& file, bool missing_ok,
                                                    std::string* torn) {
  if (torn) torn->clear();
  std::ifstream f(file);
  if (!f) {
    if (missing_ok && !std::filesystem::exists(file)) return std::vector<nlohmann::json>{};
    return error{file + ": cannot open"};
  }
  std::vector<nlohmann::json> out;
  std::string line, bad;
  size_t n = 0, bad_line = 0;
  while (std::getline(f, line)) {
    ++n;
    if (line.empty()) continue;
    // Only the last non-empty line may be torn: a bad line followed by another is an error.
    if (!bad.empty()) return error{file + ":" + std::to_string(bad_line) + ": " + bad};
    auto j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (j.is_object()) {
      out.push_back(std::move(j));
    } else {
      bad = "not a JSON object";
      bad_line = n;
    }
  }
  if (torn && !bad.empty())
    *torn = file + ":" + std::to_string(bad_line) +
            ": the last line is torn (the run stopped while writing it?); it was left out";
  return out;
}

}  // namespace adarl
