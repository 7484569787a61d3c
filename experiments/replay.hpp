#pragma once
// `adarl replay`: a strategy over a log of recorded rewards, and its output.

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "algorithms/budget_ledger.hpp"
#include "algorithms/step_summary.hpp"
#include "algorithms/step_types.hpp"
#include "algorithms/strategy_config.hpp"
#include "base/result.hpp"

namespace adarl {

/// Strategy parameters given as command-line flags. Each one that is set overrides the
/// config file; setting one the chosen strategy does not use is an error.
struct strategy_flags {
  std::optional<std::string> strategy;       ///< --strategy: kind name.
  std::optional<uint32_t> group_size;        ///< --group-size (seq, uniform).
  std::optional<uint32_t> round_size;        ///< --round-size (seq).
  std::optional<uint32_t> max_rounds;        ///< --max-rounds (seq).
  std::optional<std::string> exit;           ///< --exit pos|balance (seq).
  std::optional<uint32_t> k_pos;             ///< --k-pos (seq).
  std::optional<uint32_t> k_neg;             ///< --k-neg (seq).
  std::optional<float> threshold;            ///< --threshold (all).
  std::optional<bool> std_norm;              ///< --std-norm (seq).
  std::optional<uint32_t> budget;            ///< --budget (est).
  std::optional<double> samples_per_prompt;  ///< --samples-per-prompt (est).
  std::optional<uint32_t> n_min;             ///< --n-min (est).
  std::optional<uint32_t> n_max;             ///< --n-max (est).
  std::optional<uint32_t> wave;              ///< --wave (ada-est-online).
  std::optional<double> extra_factor;        ///< --extra-factor (dapo).
};

/// What `adarl replay` runs, besides the log itself.
struct replay_options {
  std::string config_file;  ///< YAML whose `strategy:` section is read; "" = none.
  strategy_flags flags;     ///< Override the config file.
  std::optional<uint32_t> batch_size;  ///< DAPO: first lines form the batch, the rest the
                                       ///< reserve (default: every line is in the batch).
};

/// One replayed prompt: where it came from and the group the strategy finished it with.
struct replay_group {
  std::string id;                      ///< The prompt's id in the log.
  uint32_t line = 0;                   ///< Its line in the log.
  std::vector<double> logged_rewards;  ///< Rewards of the kept samples, as logged.
  finished_group group;  ///< The strategy's decision (slot and prompt_id are replay's).
};

/// Everything a replay produced.
struct replay_report {
  strategy_config config;            ///< The strategy that ran (after config and flags).
  std::vector<replay_group> groups;  ///< One per prompt drawn, in log order.
  step_summary summary;              ///< Statistics of the finished groups.
  budget_totals spent;               ///< Samples and tokens charged to the budget ledger.
  uint32_t unused_prompts = 0;       ///< DAPO: reserve prompts never drawn.
};

/// The strategy a replay runs: the config file's `strategy:` section (read_strategy(),
/// errors as FILE:LINE: strategy.KEY: ...), the kind replaced by --strategy, then each
/// flag set. Fails when no strategy is named, a flag does not apply to the strategy, or
/// the result is invalid (the message names the flag, or the config key). O(config size).
result<strategy_config> resolve_strategy(const replay_options& options);

/// Replays the log read from `in` (named `input_name` in messages; see read_replay_log)
/// under the resolved strategy, offline: the prompts form one batch (DAPO: the first
/// batch_size lines; the rest are served in log order when the strategy asks for more),
/// and each requested sample gets the logged reward at its index, results fed one at a
/// time in request order. Fails without a report on any bad input, naming the file, line
/// and prompt; a stream shorter than a request is "NAME:LINE: prompt "ID": the strategy
/// needs at least K rewards, the line has J". Blocks reading `in`; O(samples) plus the
/// strategy's own cost per result.
result<replay_report> run_replay(const replay_options& options, std::istream& in,
                                 const std::string& input_name);

/// Writes the report as JSONL: one line per group, in log order, then a summary line
/// `{"summary": {...}}`. Writes only to `out`; O(report size).
void write_replay(const replay_report& report, std::ostream& out);

/// `adarl replay` after argument parsing: replays `input` ("-" = stdin) and writes the
/// JSONL to `output` (via OUTPUT.tmp and a rename, so that a failed run never leaves a
/// complete-looking file), or to `out` when `output` is empty, only once the whole run
/// succeeded. Messages go to `err`. Returns the exit status: 0 success, 2 bad input or
/// options (nothing written), 1 when the output cannot be written. Blocks on the files.
int run_replay_command(const replay_options& options, const std::string& input,
                       const std::string& output, std::istream& in, std::ostream& out,
                       std::ostream& err);

}  // namespace adarl
