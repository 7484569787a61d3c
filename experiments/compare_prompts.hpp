#pragma once
// The prompts of every run of `adarl compare` (links LibTorch: adarl_experiments_torch,
// through the prompt selection of experiments/select_job.hpp): the base document's tasks,
// or with compare.select the selected ones.

#include <iosfwd>
#include <string>

#include "experiments/compare.hpp"

namespace adarl {

/// The prompts of every run of `plan`: its base document's tasks, or with compare.select
/// the first tasks.train / tasks.held_out prompts kept by the selection from the base
/// policy `base` (a checkpoint; "" for the simulated policy), cached under
/// CACHE/select. The selection's progress, each pool's histogram and a warning when too
/// few were kept go to `log`. Blocks; Ctrl-C stops the selection with an error
/// ("compare.select: ..."); bad tasks are an error naming them.
result<prompt_table_ptr> compare_prompts(const compare_plan& plan, const std::string& base,
                                         std::ostream& log);

}  // namespace adarl
