#pragma once

#include <cstddef>
#include <cstdint>
#include <istream>
#include <string>
#include <vector>

#include "algorithms/result.hpp"
#include "tasks/task_item.hpp"
#include "tasks/verifier_registry.hpp"

namespace adarl {

/// Most problems load_dataset reports before it stops reading.
inline constexpr std::size_t max_dataset_errors = 20;

/// Reads a JSONL dataset, one task per line:
/// `{"id","prompt","answer","task","verifier"}` (strings; id, prompt and verifier
/// non-empty), optional "tests" (a string, or a JSON object or array stored re-serialized
/// as compact JSON) and "difficulty" (an integer from 1 to 5); null counts as absent,
/// other fields are ignored, empty lines are skipped; a line nested deeper than
/// max_json_depth (tasks/jsonl_text.hpp) is not valid JSON.
/// Fails with every problem found (up to max_dataset_errors, one per line of the
/// message), each naming FILE:LINE and the field:
///   `data.jsonl:12: field "prompt": expected a string, got 5`
///   `data.jsonl:15: id "q3": duplicate (first on line 3)`
///   `data.jsonl:16: field "verifier": unknown verifier "mth" (known: expr, ...)`
/// (the last only when `registry` is given). A file that cannot be opened or holds no
/// items is an error too. When `lines` is given, it receives the line number of each
/// item (for messages about items, e.g. tasks/reference_check.hpp). Blocks on file I/O;
/// O(file size).
result<std::vector<task_item>> load_dataset(const std::string& path,
                                            const verifier_registry* registry = nullptr,
                                            std::vector<uint32_t>* lines = nullptr);

/// As above, from a stream; `name` stands for the file in messages.
result<std::vector<task_item>> load_dataset(std::istream& in, const std::string& name,
                                            const verifier_registry* registry = nullptr,
                                            std::vector<uint32_t>* lines = nullptr);

/// One dataset line (no newline): the five fields in order, then "tests" (as a string)
/// when non-empty and "difficulty" when non-zero. load_dataset reads it back equal.
/// Invalid UTF-8 is replaced by U+FFFD rather than failing.
std::string to_jsonl(const task_item& item);

/// Writes `items` as JSONL to `path` through `path.tmp` and a rename, so a reader never
/// sees a half-written file. Returns the number of items written, or an error naming
/// the file. Blocks on file I/O.
result<std::size_t> write_dataset(const std::string& path,
                                  const std::vector<task_item>& items);

}  // namespace adarl
