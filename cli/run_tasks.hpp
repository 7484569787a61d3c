#pragma once
// The prompts of an `adarl run`: built-in suite or JSONL dataset, split into training
// and held-out prompts, tokenized once.

#include <cstdint>
#include <string>
#include <vector>

#include "actors/prompt_table.hpp"
#include "algorithms/result.hpp"
#include "pipelines/pipeline_config.hpp"
#include "pipelines/task_source.hpp"

namespace adarl {

/// The task items of a run before tokenization (pipelines/task_source.hpp).
using run_items = task_set;

/// `train_count` training items and `held_out_count` held-out items of the config's
/// tasks: config_tasks() with these counts (the held-out items do not depend on the
/// seed; train and held-out never share a prompt). A suite or dataset problem is an
/// error naming it.
result<run_items> load_run_items(const pipeline_config& c, uint32_t train_count,
                                 uint32_t held_out_count);

/// The prompt table of a run from its items, in the policy's codec. An item that does
/// not fit the model's max_len with room for an answer, or a character outside the
/// vocabulary, is an error naming the item; no training item is an error.
result<prompt_table_ptr> make_run_prompts(const pipeline_config& c,
                                          const std::vector<task_item>& train,
                                          const std::vector<task_item>& held_out);

/// Training prompts and held-out prompts for a run: load_run_items with tasks.train and
/// tasks.held_out, then make_run_prompts.
result<prompt_table_ptr> load_run_prompts(const pipeline_config& c);

/// The text codec of a run's policy: the character tokenizer, or for model.kind hf the
/// tokenizer of model.path with model.chat_template and model.system_prompt (about a
/// second for Qwen's tokenizer.json). Errors name model.path and the file.
result<std::shared_ptr<const text_codec>> run_codec(const pipeline_config& c);

/// A short hexadecimal key of everything the SFT warm start depends on (model shape,
/// tasks, SFT settings, seed): runs with equal keys share the cached base checkpoint.
std::string sft_cache_key(const pipeline_config& c);

}  // namespace adarl
