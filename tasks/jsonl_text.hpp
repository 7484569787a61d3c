#pragma once
// Small text helpers shared by the JSONL readers (datasets, replay logs).

#include <nlohmann/json.hpp>
#include <string>

namespace adarl {

/// A JSON value as the user wrote it, shortened to 40 characters for an error message.
std::string shown_json(const nlohmann::json& v);

/// True when the line holds only blanks (skipped by the readers).
bool blank_line(const std::string& s);

/// nlohmann's parse message without its "[json.exception...] parse error at line 1, "
/// prefix (the readers name the file line themselves).
std::string json_parse_message(const nlohmann::json::exception& e);

}  // namespace adarl
