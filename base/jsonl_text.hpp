#pragma once
// Small text helpers shared by the JSONL readers (datasets, replay logs).

#include <nlohmann/json.hpp>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.hpp"

namespace adarl {

/// A JSON value as the user wrote it, shortened to 40 characters for an error message.
std::string shown_json(const nlohmann::json& v);

/// `s` as a JSON string literal, quotes and escapes included, whole (invalid UTF-8
/// replaced): how error messages name an id or a verifier that may hold any character.
std::string json_quoted(const std::string& s);

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

/// The problems of one JSONL input, each "NAME:LINE: what", at most `limit` of them.
struct line_problems {
  std::string name;
  std::size_t limit;
  std::vector<std::string> lines;
  bool full() const { return lines.size() >= limit; }
  void add(uint32_t line, const std::string& what);
  error joined() const;  ///< Every line, one per line of the message.
};

/// The line as a JSON object (depth checked first, max_json_depth), or nullopt with the
/// problem reported: "not valid JSON (why)" or "expected a JSON object, got TYPE".
/// With `number_text`, the source text of every top-level member whose value is a
/// non-integer number (or an integer too large for 64 bits) is stored there by key, as
/// written: a double holds neither 18446744073709551616 nor 1.0000000000000000001.
std::optional<nlohmann::json> json_object_line(
    const std::string& text, uint32_t line, line_problems& p,
    std::map<std::string, std::string>* number_text = nullptr);

/// The optional "tests" field of a task item into `out`: a string as it is, an object
/// or array as its JSON text. False with the problem reported for any other type.
bool read_tests_field(const nlohmann::json& j, uint32_t line, line_problems& p,
                      std::string& out);

}  // namespace adarl
