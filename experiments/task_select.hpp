#pragma once
// The paper's prompt selection (`adarl tasks select`, `compare.select`): K samples per
// prompt from a policy, a prompt kept when its number of correct samples falls in a
// window (default 1..5 of 16, pass rate in (0, 0.3125]). This header is the pure part:
// the window, the histogram, the cache key and the files; experiments/select_job.hpp draws
// the samples through the pipeline.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "tasks/task_item.hpp"

namespace adarl {

/// Which prompts are kept: those with min_correct..max_correct (inclusive) of k right.
struct select_window {
  uint32_t k = 16;            ///< Samples drawn per prompt (>= 1).
  uint32_t min_correct = 1;   ///< The default excludes prompts never solved...
  uint32_t max_correct = 5;   ///< ...and keeps pass rates up to 5/16 = 0.3125.
};

/// "" when the window is usable, else what is wrong, naming the flag
/// (`--max-correct: expected at most --k (16), got 17`).
std::string check_window(const select_window& w);

/// The number of correct samples of a prompt from its mean reward over k samples
/// (rewards are 0 or 1: rounded to the nearest count, clamped to [0, k]).
uint32_t correct_of(double mean_reward, uint32_t k);

/// True when `correct` is in [min_correct, max_correct].
bool in_window(uint32_t correct, const select_window& w);

/// Prompts per number correct: entry c counts the prompts with c of k right (k + 1
/// entries). A count above k is clamped to k. O(prompts).
std::vector<uint64_t> pass_histogram(std::span<const uint32_t> correct, uint32_t k);

/// The histogram as text, one line per count: "  3/16  0.188  ####  120  kept" (kept
/// on the lines of the window), then the total kept.
std::string histogram_text(std::span<const uint64_t> histogram, const select_window& w);

/// What a selection's prompts depend on besides the policy: the pool and how it was drawn.
struct select_pool {
  std::string source;         ///< Suite name or dataset path.
  std::string split;          ///< "train" or "held-out".
  uint64_t seed = 0;          ///< Pool generation seed (suites).
  uint32_t count = 0;         ///< Candidates.
  std::vector<double> difficulty_mix;
  std::string sampling;       ///< Temperature, top_p, max_new_tokens, prompt format, seed.
  uint64_t items = 0;         ///< items_hash of the candidates (an edited file, other
                              ///< tasks.fields or template: another selection).
};

/// A hexadecimal key of everything a selection depends on: the policy's identity (e.g.
/// a hash of its checkpoint files), the pool, the window and k. Equal inputs give equal
/// keys; changing any one of them changes the key.
std::string select_cache_key(const std::string& policy, const select_pool& pool,
                             const select_window& w);

/// A kept prompt and its measured pass rate.
struct selected_item {
  task_item item;
  uint32_t correct = 0;
};

/// The outcome of a selection over a pool.
struct selection {
  select_window window;
  uint64_t pool = 0;                   ///< Candidates measured.
  std::vector<uint64_t> histogram;     ///< pass_histogram of the pool.
  std::vector<selected_item> kept;     ///< In pool order.
};

/// The prompts of `pool` whose `correct` count is in the window, in pool order, at most
/// `limit` of them (0 = all); the histogram covers the whole pool. Precondition: equal
/// sizes. O(pool).
selection select_in_window(const std::vector<task_item>& pool, std::span<const uint32_t> correct,
                           const select_window& w, size_t limit = 0);

/// One JSONL line of a selected prompt: the dataset fields (tasks/dataset.hpp, which
/// load_dataset reads back) plus "pass_rate" (correct / k), "correct" and "samples" (k).
std::string selected_jsonl(const selected_item& s, uint32_t k);

/// Writes the kept prompts as JSONL to `file` (FILE.tmp, then a rename). Errors name
/// the file.
result<bool> write_selected(const std::string& file, const selection& s);

/// Writes a selection into a cache directory: selected.jsonl and selection.json (window,
/// pool, histogram), each atomically, selection.json last (its presence marks a
/// complete entry).
result<bool> write_selection_cache(const std::string& dir, const selection& s);

/// Reads write_selection_cache's directory back; a missing, torn or inconsistent entry
/// is an error naming the file.
result<selection> read_selection_cache(const std::string& dir);

}  // namespace adarl
