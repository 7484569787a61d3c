#pragma once
// Reading a reward log (JSONL) for `adarl replay`.

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "base/result.hpp"

namespace adarl {

/// One prompt of a reward log: the rewards its successive samples got, in generation
/// order (sample index i is rewards[i]).
struct replay_prompt {
  std::string id;                ///< Non-empty; unique within the log.
  uint32_t line = 0;             ///< 1-based line of the log it came from.
  std::vector<double> rewards;   ///< Finite, as written in the log.
  std::vector<uint32_t> tokens;  ///< Generated tokens per sample; empty when not logged.
  std::optional<double> p_hat;   ///< Prior pass-rate estimate, in [0, 1].
};

/// "NAME:LINE: prompt "ID": ", the start of every message about one prompt of a log
/// (the id quoted as a JSON string).
std::string prompt_where(const std::string& name, uint32_t line, const std::string& id);

/// Reads a reward log in JSONL, one prompt per line:
/// `{"id": "p17", "rewards": [0, 1, ...], "p_hat": 0.2, "tokens": [312, 290, ...]}`
/// ("p_hat" and "tokens" optional; other fields are ignored; empty lines are skipped).
/// Fails at the first bad line with `NAME:LINE: what was wrong` (and the prompt id when
/// known): text that is not a JSON object (or nests deeper than max_json_depth), a
/// missing or empty id, a duplicate id (naming both lines), rewards that are not a list
/// of finite numbers, p_hat outside [0, 1], tokens that are not one non-negative integer
/// per reward. A log without prompts is an error. Blocks on `in`; O(size of the log).
result<std::vector<replay_prompt>> read_replay_log(std::istream& in,
                                                   const std::string& name);

}  // namespace adarl
