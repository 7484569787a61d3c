#pragma once
// Everything one `adarl run` reads from its YAML document (configs/*.yaml document
// every key). Torch-free and CAF-free: loaded and validated before anything starts.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "algorithms/remote_pool.hpp"
#include "algorithms/tracker_core.hpp"
#include "engines/engine_kind.hpp"
#include "engines/model_config.hpp"
#include "engines/replica_config.hpp"
#include "engines/server/server_dialect.hpp"
#include "engines/sim/sim_engines.hpp"
#include "engines/train_config.hpp"
#include "pipelines/curve_keys.hpp"

namespace adarl {

/// `model:` and `sft:` - the policy and its warm start.
struct policy_section {
  policy_kind kind = default_policy_kind;  ///< engines/engine_kind.hpp
  model_config model;              ///< vocab_size comes from the tokenizer.
  std::string device = "cpu";      ///< Learner device; "cpu" or "cuda:N".
  std::string base_checkpoint;     ///< Start RL from this; "" = SFT warm start (cached).
  // SFT warm start (used when base_checkpoint is empty; see configs/sft.yaml).
  int64_t sft_steps = 600;
  int64_t sft_batch_size = 32;
  double sft_lr = 3e-3;
  uint32_t sft_count = 4000;       ///< Training items generated for SFT.
  sim_model_config sim;            ///< kind: simulated.
  // kind: hf. The shape and weights come from `hf_path`; model.max_len is the context.
  std::string hf_path;             ///< `model.path`: the HF directory (config.json, ...).
  std::string chat_template = "auto";  ///< auto, none, chatml or llama3 (tokenizers/hf_chat_template.hpp).
  std::string system_prompt = "auto";  ///< auto (the template's default), "" (none) or text.
};

/// `tasks:` - where the prompts come from.
struct tasks_section {
  std::string suite = "mixed";     ///< Built-in suite (tasks/suites.hpp) unless dataset.
  std::string dataset;             ///< JSONL file of tasks instead of a suite.
  uint32_t train = 512;            ///< Training prompts generated from the suite.
  uint32_t held_out = 128;         ///< Held-out prompts (evaluation only).
  std::vector<double> difficulty_mix{1, 1, 1, 1, 1};  ///< Weights of levels 1..5.
  std::string prompt_format = "plain";  ///< plain or boxed (tokenizers/text_codec.hpp).
  // A dataset as published (tasks/dataset.hpp, dataset_format); all empty = adarl's own.
  std::map<std::string, std::string> fields;  ///< `fields`: task field -> column.
  std::string verifier;         ///< For lines without a verifier column.
  std::string prompt_template;  ///< "" or text with "{prompt}".
  /// `verifiers`: a line's data_source -> the verifier that scores it (verl-style data).
  std::map<std::string, std::string> verifiers;
};

/// `actors.remote_verifiers:` - verifier workers on other machines (`adarl worker
/// verify --connect ENDPOINT`), net/verify_hub.hpp. Off while bind is "".
struct remote_verifiers_section {
  std::string bind;                ///< ZeroMQ endpoint to listen on, e.g. "tcp://*:5557".
  remote_pool_config pool;         ///< heartbeat, timeout, local_after, lease, attempts.
  std::string curve_keys_file;     ///< `curve_keys`: the run's CURVE key file ("" = off).
  std::string curve_clients_file;  ///< `curve_clients`: workers' public keys ("" = any).
  std::optional<curve_keys> curve;           ///< Read from curve_keys_file with the config.
  std::vector<std::string> curve_clients;    ///< Read from curve_clients_file.
};

/// `actors.remote_generators:` - generator workers on other machines (`adarl worker
/// generate --connect ENDPOINT`), net/generate_hub.hpp. Off while bind is "".
struct remote_generators_section {
  std::string bind;                ///< ZeroMQ endpoint to listen on, e.g. "tcp://*:5558".
  double heartbeat = 0.5;          ///< Seconds between heartbeats to each worker.
  double timeout = 10.0;           ///< A worker silent this long is lost.
  uint32_t chunk_bytes = 4u << 20; ///< Weights chunk (frame) size.
  uint32_t window = 4;             ///< Chunks in flight per worker.
  std::string curve_keys_file;     ///< `curve_keys`: the run's CURVE key file.
  std::string curve_clients_file;  ///< `curve_clients`: workers' public keys.
  std::optional<curve_keys> curve;
  std::vector<std::string> curve_clients;
};

/// `actors:` - how many of each and how big.
struct actors_section {
  uint32_t generators = 1;
  uint32_t generator_capacity = 64;  ///< Rows a generator decodes together.
  int32_t generator_threads = 1;     ///< Torch threads per generator.
  uint32_t verifiers = 1;
  int32_t learner_threads = 1;       ///< Torch threads of the learner.
  uint32_t scheduler_threads = 2;    ///< CAF scheduler workers (cooperative actors).
  /// With a bind endpoint every batch goes to remote workers; the local verifiers
  /// score what no worker takes in time.
  remote_verifiers_section remote_verifiers;
  /// With a bind endpoint, workers join as generators beside the local ones (which may
  /// then be 0).
  remote_generators_section remote_generators;
  /// Simulated generators only; capacity is set from generator_capacity. (Qualified
  /// because the member has its type's name.)
  adarl::sim_latency sim_latency;
};

/// `learner:`
struct learner_section {
  optimizer_config optimizer;
  loss_config loss;
  uint32_t micro_batch = 64;
  /// Optimizer updates per step: the step's batch in this many contiguous mini-batches
  /// (the paper trains each step in 4); 1 = one update on the whole batch.
  uint32_t updates_per_step = 1;
  uint64_t checkpoint_every = 0;     ///< Steps between checkpoints; 0 = at the end only.
  /// The learner's own device ("" = model.device, the generators'): a GPU learner with
  /// CPU generators, or the reverse.
  std::string device;
  /// bfloat16 autocast of the learner's forward and loss (float32 master weights and
  /// optimizer); CUDA only, refused on another device.
  bool autocast_bf16 = false;
  /// A step whose log-prob gap (nats per token between the generators' and the learner's
  /// log-probs on fresh samples) passes this warns; 0 = never.
  double logprob_tolerance = 0.05;
  /// `replicas`, `store`, `collective_timeout`, `join_timeout`, `check_replicas`: data-
  /// parallel learner ranks (docs/guides/cluster.md "Replicated learners"); rank stays 0 here.
  replica_config replicas;
};

/// `eval:` - held-out accuracy every `every` steps.
struct eval_section {
  uint64_t every = 0;                ///< 0 = only before the first and after the last step.
  /// Also each time the cumulative samples pass a multiple of this (0 = off): the same
  /// evaluation density per sample for strategies of different step sizes (compare).
  uint64_t every_samples = 0;
  bool greedy = true;                ///< One greedy sample per held-out prompt.
  uint32_t samples = 0;              ///< Sampled completions per held-out prompt (mean@k).
};

/// `metrics:` - the run's figures for a Prometheus scraper (runtime/metrics_http.hpp).
struct metrics_section {
  /// HOST:PORT to serve http://HOST:PORT/metrics on; "" = off. Port 0 = any free one
  /// (the run prints the one it got).
  std::string listen;
  /// A broken set-up's zero rewards (bad_reference, bad_tests, unknown_verifier, ...:
  /// algorithms/reason_watch.hpp) above this share of the scored samples warn at once.
  double alarm_share = 0.05;
};

/// Severity of a log line, lowest first.
enum class log_level { trace, debug, info, warn, error };

/// `log:` - the run's log (runtime/logging.hpp): every component's lines at `level` and
/// above go to the file; only warnings and errors reach the terminal.
struct log_section {
  log_level level = log_level::info;
  /// Log file; a relative path is under `out` ("adarl.log": OUT/adarl.log). "" = none.
  std::string file = "adarl.log";
  uint64_t rotate_bytes = 10u << 20;  ///< The file is rotated at this size...
  uint32_t rotate_files = 3;          ///< ...keeping this many old ones (adarl.1.log, ...).
};

/// `server:` - the inference server that draws the completions of model.kind server
/// (docs/guides/engines.md "Generating on an inference server").
struct server_section {
  server_dialect dialect = server_dialect::sglang;
  std::string url = "http://127.0.0.1:30000";  ///< http://HOST:PORT
  std::string model;            ///< The model name OpenAI-style routes want ("" = none).
  double timeout = 120;         ///< Seconds a request may take before it is sent again.
  double retry_pause = 5;       ///< Longest pause between tries of an unreachable server.
  /// Where each policy version is written for the server to load ("" = OUT/server-weights);
  /// the server must read the same path (a shared directory when it runs elsewhere).
  std::string weights_dir;
  uint32_t keep_versions = 2;   ///< Versions kept there (the newest).
  /// A command that starts the server ("" = it runs already): adarl starts it with the
  /// base policy and restarts it with each version (engines/server/server_process.hpp;
  /// {model}, {version}, {port}). For a server that has no route to load weights.
  std::string launch;
  double start_timeout = 120;   ///< Seconds a launched server may take to answer /health.
};

/// The whole run.
struct pipeline_config {
  std::string name;                  ///< From the file name (metrics and reports).
  policy_section policy;
  tasks_section tasks;
  tracker_config tracker;            ///< `strategy:` and `tracker:` (steps, lag, lease...).
  sampling_params sampling;          ///< `sampling:` temperature, top_p, max_new_tokens.
  actors_section actors;
  learner_section learner;
  eval_section eval;
  metrics_section metrics;
  log_section log;
  server_section server;             ///< model.kind server only.
  std::string out = "runs/run";      ///< Output directory.
  /// `weights.path`: remote generators read each policy version from this shared
  /// directory (files the coordinator writes) instead of receiving its bytes.
  std::string weights_path;
  uint64_t seed = 1;
  bool deterministic = false;        ///< Exact lag (docs/design.md "Determinism").
  bool progress = true;              ///< One-line progress display on a terminal.
  /// A run whose tracker, learner and generators make no progress for this long stops
  /// with an error naming what it waits for (an optimizer step in progress counts as
  /// progress).
  double stall_seconds = 600;
  /// Every key of the document with its effective value (the default where absent), as
  /// read; written as config.json into the run's directory and each checkpoint, and
  /// compared on --resume. Empty for configs built in code.
  std::map<std::string, std::string> effective;
};

}  // namespace adarl
