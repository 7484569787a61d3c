#pragma once
// The prompts of an `adarl run`: built-in suite or JSONL dataset, split into training
// and held-out prompts, tokenized once.

#include <string>

#include "actors/prompt_table.hpp"
#include "algorithms/result.hpp"
#include "pipelines/pipeline_config.hpp"

namespace adarl {

/// Training prompts and held-out prompts for a run. A suite generates `train` items
/// with a seed derived from the run's seed (so that they are not the SFT warm start's
/// items) and `held_out` items from its held-out split; a dataset is split by a keyed
/// shuffle of its items (held-out first). An item that does not fit the model's
/// max_len with room for an answer, or a character outside the vocabulary, is an error
/// naming the item.
result<prompt_table_ptr> load_run_prompts(const pipeline_config& c);

/// The text codec of a run's policy: the character tokenizer, or for model.kind hf the
/// tokenizer of model.path with model.chat_template and model.system_prompt (about a
/// second for Qwen's tokenizer.json). Errors name model.path and the file.
result<std::shared_ptr<const text_codec>> run_codec(const pipeline_config& c);

/// A short hexadecimal key of everything the SFT warm start depends on (model shape,
/// tasks, SFT settings, seed): runs with equal keys share the cached base checkpoint.
std::string sft_cache_key(const pipeline_config& c);

}  // namespace adarl
