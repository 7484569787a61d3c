#pragma once
// The prompts of an `adarl run`: built-in suite or JSONL dataset, split into training
// and held-out prompts, tokenized once.

#include <cstdint>
#include <string>
#include <vector>

#include "actors/prompt_table.hpp"
#include "base/result.hpp"
#include "models/train/sft_example.hpp"
#include "pipelines/pipeline_config.hpp"
#include "pipelines/task_source.hpp"

namespace adarl {

/// The task items of a run before tokenization (pipelines/task_source.hpp).
using run_items = task_set;

/// `train_count` training items and `held_out_count` held-out items of the config's
/// tasks (the held-out items do not depend on the seed; train and held-out never share
/// a prompt). A suite's splits are fixed by each prompt's text, so any counts are safe.
/// A dataset is split once at the config's tasks.held_out (config_tasks()) whatever the
/// counts asked for here: a larger train_count never reaches into the items a run of
/// this config evaluates on, a larger held_out_count gets at most tasks.held_out.
/// A suite or dataset problem is an error naming it.
result<run_items> load_run_items(const pipeline_config& c, uint32_t train_count,
                                 uint32_t held_out_count);

/// What load_run_items() could not give: a line per part that came out smaller than
/// asked (a suite has only so many distinct prompts at tasks.difficulty_mix; a dataset
/// only its items), naming `train_key` or `held_out_key`; none when both parts are full.
std::vector<std::string> pool_shortfall(const pipeline_config& c, const run_items& items,
                           uint32_t train_count, uint32_t held_out_count,
                           const std::string& train_key, const std::string& held_out_key);

/// The items the SFT warm start of a run trains on: with tasks.dataset, every training
/// item of the dataset's split (never a held-out one); with a suite, sft.count items of
/// its train split (seeded with config.seed, apart from the run's own training prompts).
result<std::vector<task_item>> sft_items(const pipeline_config& c);

/// The prompt table of a run from its items, in the policy's codec. An item that does
/// not fit the model's max_len with room for an answer, or a character outside the
/// vocabulary, is an error naming the item (and its FILE:LINE when `origin` knows it);
/// no training item is an error.
result<prompt_table_ptr> make_run_prompts(const pipeline_config& c,
                                          const std::vector<task_item>& train,
                                          const std::vector<task_item>& held_out,
                                          const task_set* origin = nullptr);

class tokenizer;

/// `item` as the SFT warm start trains on it in `tok`: begin, prompt, separator, then
/// its worked solution (else its answer) and end. Errors: a character outside the vocabulary, or more than `max_len`
/// tokens, naming the item. O(item length).
result<sft_example> sft_example_of(const tokenizer& tok, const task_item& item,
                                   int32_t max_len);

/// Before the SFT warm start of a transformer run (none cached, no base checkpoint):
/// every SFT item (sft_items) must fit model.max_len as the warm start encodes it
/// (begin, prompt, separator, answer, end). An item that does not is an error naming
/// it and, for a dataset, its FILE:LINE; true otherwise, also when there is no warm start.
result<bool> check_sft_items(const pipeline_config& c);

/// Training prompts and held-out prompts for a run: load_run_items with tasks.train and
/// tasks.held_out, then make_run_prompts.
result<prompt_table_ptr> load_run_prompts(const pipeline_config& c);

/// The text codec of a run's policy: the character tokenizer, or for model.kind hf the
/// tokenizer of model.path with model.chat_template and model.system_prompt (about a
/// second for Qwen's tokenizer.json). Errors name model.path and the file.
result<std::shared_ptr<const text_codec>> run_codec(const pipeline_config& c);

/// A hash of what scoring and training read of each item (id, prompt, answer, verifier,
/// tests), in order: equal for equal items. Pure; O(total text).
uint64_t items_hash(const std::vector<task_item>& items);

/// A short hexadecimal key of everything the SFT warm start depends on (model shape,
/// tasks and, for a dataset, its split, SFT settings, seed, and the id, prompt and answer
/// of each of `items`, the warm start's items: sft_items(c)): runs with equal keys share
/// the cached base checkpoint.
std::string sft_cache_key(const pipeline_config& c, const std::vector<task_item>& items);

}  // namespace adarl
