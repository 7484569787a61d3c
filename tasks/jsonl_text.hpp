#pragma once
// Small text helpers shared by the JSONL readers (datasets, replay logs).

#include <nlohmann/json.hpp>
#include <cstddef>
#include <string>
#include <string_view>

namespace adarl {

/// A JSON value as the user wrote it, shortened to 40 characters for an error message.
std::string shown_json(const nlohmann::json& v);

/// True when the line holds only blanks (skipped by the readers).
bool blank_line(const std::string& s);

/// The deepest nesting a line may have. nlohmann parses any depth, but dump() (error
/// messages, a dataset's "tests") recurses once per level: a line of 100,000 '[' would
/// overflow the stack.
inline constexpr std::size_t max_json_depth = 100;

/// The deepest nesting of '[' and '{' in `text` outside strings: the depth of the value
/// when `text` is valid JSON (a scalar has depth 0). O(text length), no allocation.
std::size_t json_depth(std::string_view text);

/// nlohmann's parse message without its "[json.exception...] parse error at line 1, "
/// prefix (the readers name the file line themselves).
std::string json_parse_message(const nlohmann::json::exception& e);

}  // namespace adarl
