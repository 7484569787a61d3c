#pragma once
// The prompt selection run through the pipeline (links LibTorch: adarl_experiments_torch):
// K samples per prompt of a pool from a policy, drawn by the run's generators and
// scored by its verifiers (an evaluation pass of version 0 over the pool), then the
// window of experiments/task_select.hpp; cached under CACHE/select/<key> (experiments/cache_dir.hpp).

#include <iosfwd>
#include <string>
#include <vector>

#include "experiments/task_select.hpp"
#include "pipelines/pipeline_config.hpp"

namespace adarl {

/// A selection's inputs besides the config: the policy, the pool and the window.
struct select_job {
  std::string policy;          ///< Checkpoint directory of the policy (transformer).
  std::vector<task_item> pool; ///< Candidates, in order.
  select_pool describe;        ///< What the pool is, for the cache key (sampling is added).
  select_window window;
  std::string cache_root;  ///< Cache folder (cache_dir("select")); "" = no cache.
};

/// A short identity of a checkpoint directory: a hash of its meta.json and model.bin
/// (equal weights give equal identities wherever the directory is). A missing file is
/// an error naming it.
result<std::string> policy_identity(const std::string& checkpoint);

/// Measures every prompt of the pool (k sampled completions through the generators and
/// verifiers of a pipeline built from `c`, with c.sampling; a scratch run directory
/// under the cache entry is removed after) and keeps the window, or reads the cached
/// entry of the same key. Progress and the cache's use go to `log`. Ctrl-C stops it with
/// an error saying so; nothing is cached then. Blocks.
result<selection> select_prompts(const pipeline_config& c, const select_job& job,
                                 std::ostream& log);

}  // namespace adarl
