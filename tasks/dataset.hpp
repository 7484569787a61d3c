#pragma once
// Loading JSONL datasets into task items, with the column mapping of datasets as published.

#include <cstddef>
#include <cstdint>
#include <istream>
#include <map>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "tasks/task_item.hpp"
#include "tasks/verifier_registry.hpp"

namespace adarl {

/// Most problems load_dataset reports before it stops reading.
inline constexpr std::size_t max_dataset_errors = 20;

/// How the lines of a dataset as people publish it (`{"problem", "solution"}`,
/// `{"question", "answer": "... #### 42"}`) become tasks: the run config's
/// `tasks.fields`, `tasks.verifier` and `tasks.prompt_template`, or `adarl tasks check
/// --field --verifier --prompt-template` (docs/guides/datasets.md "Datasets as published").
/// When any of them is set (not plain()), a line is read as follows:
/// - each task field (dataset_field_names) comes from the column `columns` names for it,
///   else from the column of its own name;
/// - `id` may be absent unless mapped: the item is then "line-N" (N its line number);
///   `task` and `answer` likewise ("" when absent); `verifier` absent takes `verifier`
///   (an error when that is empty too); an `answer` that is a JSON number is taken as
///   its text;
/// - the answer a reference states is taken out of it for every verifier but python
///   and expr (whose references are programs and expressions): the last `\boxed{}` /
///   `\fbox{}`, else the line after the last `####`, else the whole text trimmed
///   (math_extract.hpp: extract_math_answer);
/// - `prompt_template`, when set, holds "{prompt}" once: the prompt is that text with
///   the prompt column in its place.
/// - a column may be a path into the line: "reward_model.ground_truth" reads the key
///   ground_truth of the object reward_model (a key with the dots in its name wins;
///   "prompt.0.content" indexes an array);
/// - a prompt that is a chat-message list (verl's `[{"role": "user", "content": ...}]`)
///   becomes its user turn's text: one user message, optionally after one system
///   message, which becomes the item's `system` (a Hugging Face model with a chat
///   template renders it as the system turn; the character policy reads it before the
///   prompt); an assistant message (a multi-turn prompt), another role, or a system
///   message on a line that also maps a `system` column is a problem of the line;
/// - an `entry_point` column (HumanEval's) turns a string `tests` column (the
///   check(candidate) code) into {"check", "entry_point", "prefix": the prompt}, the
///   python verifier's test-program format; MBPP's assert list needs nothing more;
/// - a line without a verifier column whose `data_source` column names a key of
///   `source_verifiers` takes that verifier (before the default `verifier`); a
///   data_source the map lacks, on a line with no verifier and no default, is a problem.
/// Problems with a mapped field name its column: `column "problem" (mapped to prompt):
/// missing`.
struct dataset_format {
  std::map<std::string, std::string> columns;  ///< task field -> the file's column.
  std::string verifier;         ///< For lines without a verifier ("" = they need one).
  std::string prompt_template;  ///< "" (the prompt as it is) or text with "{prompt}".
  /// data_source value -> verifier (`tasks.verifiers`, `--verifier-for`).
  std::map<std::string, std::string> source_verifiers;
  /// True when nothing is set: the file is in adarl's own format (below).
  bool plain() const {
    return columns.empty() && verifier.empty() && prompt_template.empty() &&
           source_verifiers.empty();
  }
};

/// The task fields a dataset_format may map: id, prompt, answer, task, verifier, tests,
/// difficulty, entry_point.
const std::vector<std::string>& dataset_field_names();

/// A problem with `format` itself (an unknown task field, two fields from one column, a
/// template without "{prompt}" or with it twice, a data_source mapped to no verifier),
/// "" when none. `key` names the setting
/// in messages ("tasks.fields" in a config, "--field" on a command line). Pure.
std::string check_dataset_format(const dataset_format& format, const std::string& key);

/// How a non-plain format read the items of one file (for `adarl tasks check`).
struct dataset_mapping_counts {
  std::size_t answers_boxed = 0;     ///< Answer taken from a `\boxed{}` / `\fbox{}`.
  std::size_t answers_hashes = 0;    ///< Answer taken after `####`.
  std::size_t answers_whole = 0;     ///< The answer column as it is (trimmed).
  std::size_t ids_from_lines = 0;    ///< Items named "line-N".
  std::size_t default_verifier = 0;  ///< Items that took dataset_format::verifier.
  std::size_t chat_prompts = 0;      ///< Prompts read from a chat-message list.
  std::size_t system_turns = 0;      ///< Of those, with a system message (the item's system turn).
  std::size_t source_verifier = 0;   ///< Items whose verifier came from data_source.
  std::size_t check_tests = 0;       ///< HumanEval tests: check() with its entry point.
  std::size_t setup_tests = 0;       ///< MBPP assert lists with their test_setup_code.
  std::size_t number_ids = 0;        ///< Integer ids (MBPP's task_id) read as their text.
};

/// Reads a JSONL dataset, one task per line:
/// `{"id","prompt","answer","task","verifier"}` (strings; id, prompt and verifier
/// non-empty), optional "tests" (a string, or a JSON object or array stored re-serialized
/// as compact JSON) and "difficulty" (an integer from 1 to 5); null counts as absent,
/// other fields are ignored, empty lines are skipped; a line nested deeper than
/// max_json_depth (base/jsonl_text.hpp) is not valid JSON. A non-plain `format` reads
/// other columns (dataset_format); `counts`, when given, receives how it read them.
/// Fails with every problem found (up to max_dataset_errors, one per line of the
/// message), each naming FILE:LINE and the field:
///   `data.jsonl:12: field "prompt": expected a string, got 5`
///   `data.jsonl:15: id "q3": duplicate (first on line 3)`
///   `data.jsonl:16: field "verifier": unknown verifier "mth" (known: expr, ...)`
/// (the last only when `registry` is given). A file that cannot be opened or holds no
/// items is an error too, as is a format check_dataset_format refuses or whose verifier
/// `registry` does not know. When `lines` is given, it receives the line number of each
/// item (for messages about items, e.g. tasks/reference_check.hpp). Blocks on file I/O;
/// O(file size).
result<std::vector<task_item>> load_dataset(const std::string& path,
                                            const verifier_registry* registry = nullptr,
                                            std::vector<uint32_t>* lines = nullptr,
                                            const dataset_format& format = {},
                                            dataset_mapping_counts* counts = nullptr);

/// As above, from a stream; `name` stands for the file in messages.
result<std::vector<task_item>> load_dataset(std::istream& in, const std::string& name,
                                            const verifier_registry* registry = nullptr,
                                            std::vector<uint32_t>* lines = nullptr,
                                            const dataset_format& format = {},
                                            dataset_mapping_counts* counts = nullptr);

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
