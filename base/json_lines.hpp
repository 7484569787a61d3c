#pragma once
// Reading the JSONL files a run writes (metrics.jsonl, eval.jsonl): one reader for the
// resume of a run (actors/metrics_sink) and for comparisons and reports (report/).

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "base/result.hpp"

namespace adarl {

/// The JSON objects of `file`, one per line; empty lines are skipped. A torn last line
/// (a run stopped while writing it) is dropped; any other line that is not a JSON
/// object is an error naming file:line. A missing file is an empty list when
/// `missing_ok`, else an error naming it. With `torn`, a dropped torn line is told there
/// ("FILE:N: the last line is torn ... left out"), else it is left empty. O(bytes).
result<std::vector<nlohmann::json>> read_json_lines(const std::string& file, bool missing_ok,
                                                    std::string* torn = nullptr);

}  // namespace adarl
