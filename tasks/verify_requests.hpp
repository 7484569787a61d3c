#pragma once
// The input of `adarl tasks verify` (cli/tasks_command.cpp): completions to score, read
// from JSONL with errors naming FILE:LINE, and the JSON line of each verdict.

#include <cstdint>
#include <istream>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "tasks/task_item.hpp"
#include "tasks/verifier.hpp"
#include "tasks/verifier_registry.hpp"

namespace adarl {

/// One completion to score against one item.
struct verify_request {
  task_item item;          ///< answer, verifier and tests (id when the line had one).
  std::string completion;  ///< The text to score.
  uint32_t line = 0;       ///< Its line in the input (1-based).
};

/// Reads lines `{"answer": "...", "completion": "...", "verifier": "math"}` with optional
/// "tests" (a string, or an object or array kept as compact JSON, as in datasets) and
/// "id"; "verifier" defaults to "math" and must name a verifier of `registry`. Empty
/// lines are skipped, other fields ignored. Fails with every problem (up to
/// max_dataset_errors), each `NAME:LINE: field "completion": expected a string, got 5`.
/// Blocks on reading `in`; O(input size).
result<std::vector<verify_request>> read_verify_requests(std::istream& in,
                                                         const std::string& name,
                                                         const verifier_registry& registry);

/// Reads a completions file, lines `{"id": "...", "completion": "..."}`, each naming an
/// item of `dataset` (several lines may name the same item); the request gets that
/// item. Errors as above, and `NAME:LINE: id "q9": not in the dataset`.
result<std::vector<verify_request>> read_completions(std::istream& in, const std::string& name,
                                                     const std::vector<task_item>& dataset);

/// The output line of one verdict: {"reward":1.0,"reason":""}, with "id" first when the
/// request has one. Invalid UTF-8 is replaced. Pure.
std::string verdict_json(const verify_request& request, const verdict& v);

}  // namespace adarl
