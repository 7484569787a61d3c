#pragma once
// `adarl sft`: supervised warm start of the built-in policy on the task suites.
// Links LibTorch; kept out of libadarl so that torch-free tools and tests stay light.

#include <atomic>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "config/config_reader.hpp"
#include "engines/model_config.hpp"
#include "tasks/task_item.hpp"

namespace adarl {

/// Everything `adarl sft` reads (configs/sft.yaml documents each key).
struct sft_job_config {
  model_config model;                 ///< vocab_size comes from the tokenizer.
  std::string suite = "mixed";        ///< Built-in suite, unless `dataset` is set.
  std::string dataset;                ///< A JSONL dataset (tasks/dataset.hpp) instead.
  /// The training items themselves, when not empty (a run's warm start passes its
  /// training split, so that no held-out item is trained on): suite, dataset and count
  /// are then not read.
  std::vector<task_item> items;
  uint32_t count = 4000;              ///< Training items generated from the suite.
  uint64_t seed = 1;
  std::vector<double> difficulty_mix{1, 1, 1, 1, 1};
  int64_t steps = 600;
  int64_t batch_size = 32;
  double lr = 3e-3;
  int64_t warmup_steps = 30;
  double grad_clip = 1.0;
  double weight_decay = 0.0;
  uint32_t eval_count = 250;          ///< Held-out items scored after training.
  std::string out = "runs/sft";       ///< Checkpoint directory.
  std::string device = "cpu";
  int32_t threads = 2;                ///< Torch intra-op threads.
};

/// Reads the config document (unknown keys and bad values are recorded in `m`'s errors).
sft_job_config read_sft_config(config_map& m);

/// Held-out pass rates after training, per difficulty level (index 0 = unknown).
struct sft_eval {
  std::vector<uint32_t> items;   ///< Items per level.
  std::vector<uint32_t> passed;  ///< Greedy completions with reward 1, per level.
  double overall() const;
};

/// What a finished run reports.
struct sft_report {
  double loss_before = 0;
  double loss_after = 0;
  sft_eval eval;
  std::string checkpoint;
};

/// Runs the job: builds the data, trains, writes the checkpoint, evaluates on held-out
/// items. Progress lines go to `log`. Data or device problems are errors naming the
/// item or key; nothing is written then. Setting `stop` ends training before its next
/// step with the error "stopped at step K of N (no checkpoint written)": the checkpoint
/// is written only once every step is done.
result<sft_report> run_sft_job(const sft_job_config& c, std::ostream& log,
                               const std::atomic<bool>* stop = nullptr);

}  // namespace adarl
