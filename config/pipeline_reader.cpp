#include "config/pipeline_reader.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <concepts>
#include <filesystem>
#include <limits>
#include <memory>
#include <sstream>

#include "base/device_name.hpp"
#include "config/config_reader.hpp"
#include "config/sim_reader.hpp"
#include "config/strategy_reader.hpp"
#include "formats/hf_config.hpp"
#include "net/curve_key_files.hpp"
#include "runtime/listen_address.hpp"
#include "tasks/dataset.hpp"
#include "tasks/suites.hpp"
#include "tokenizers/hf_chat_template.hpp"
#include "tokenizers/text_codec.hpp"
#include "tokenizers/tokenizer.hpp"

#include "config/number_text.hpp"

namespace adarl {
namespace {

/// Records `expected ..., got "value"` for `key` unless `ok`.
template <class T>
void expect(config_map& m, const std::string& key, bool ok, const std::string& what,
            T value) {
  if (!ok) m.fail(key, "expected " + what + ", got \"" + text(value) + "\"");
}

// Bounds of the sizes, counts and durations a run accepts (docs/guides/reliability.md "Reliability"): every
// value is checked against them before anything starts, so that a typo such as 2e9 is
// a clear error instead of an allocation failure or a run that never ends.
constexpr uint64_t max_threads = 256;          // any thread count
constexpr uint64_t max_actors = 4096;          // generators, verifiers
constexpr uint64_t max_capacity = 65536;       // rows a generator decodes together
constexpr uint64_t max_prompts = 1'000'000;    // tasks.train (generated suites)
constexpr uint64_t max_held_out = 100'000;     // tasks.held_out
constexpr uint64_t max_per_step = 65536;       // prompts per step
constexpr uint64_t max_steps = 1'000'000'000;  // steps of any kind
constexpr size_t max_run_name = 128;            // characters of `name`
constexpr uint64_t max_tokens = 65536;         // sequence lengths
constexpr double max_seconds = 86400 * 7;      // any duration
constexpr int64_t max_parameters = 500'000'000;  // the built-in transformer

// Reads an integer key into a signed or narrower field (config_map reads unsigned).
template <class T>
void get_int(config_map& m, const std::string& key, T& field, uint64_t min, uint64_t max) {
  uint64_t v = static_cast<uint64_t>(field);
  const auto before = m.errors()->messages.size();
  m.get(key, v, min, std::min<uint64_t>(max, std::numeric_limits<T>::max()));
  if (m.errors()->messages.size() == before) field = static_cast<T>(v);
}

void read_shape(config_map& m, model_config& s) {
  get_int(m, "d_model", s.d_model, 1, 16384);
  get_int(m, "n_layers", s.n_layers, 1, 512);
  get_int(m, "n_heads", s.n_heads, 1, 512);
  get_int(m, "d_ff", s.d_ff, 1, 131072);
  get_int(m, "max_len", s.max_len, 2, max_tokens);
  m.get("tied_output", s.tied_output);
  s.vocab_size =
      static_cast<int32_t>(tokenizer::default_charset().size()) + tokenizer::num_special;
  const std::pair<const char*, int32_t> values[] = {
      {"vocab_size", s.vocab_size}, {"d_model", s.d_model}, {"n_layers", s.n_layers},
      {"n_heads", s.n_heads},       {"d_ff", s.d_ff},       {"max_len", s.max_len}};
  for (const auto& p : s.problems()) {
    const auto colon = p.find(": ");
    const std::string key = p.substr(0, colon);
    std::string what = colon == std::string::npos ? p : p.substr(colon + 2);
    for (const auto& [k, v] : values)
      if (key == k) what += ", got \"" + std::to_string(v) + "\"";
    m.fail(key, what);
  }
  if (s.problems().empty() && s.parameter_count() > max_parameters)
    m.fail("d_model", "the shape has " + std::to_string(s.parameter_count()) +
                          " parameters; the built-in transformer takes at most " +
                          std::to_string(max_parameters));
}

// Fails `key` with resolve_chat_format's message, whose "model.KEY: " prefix names it.
void fail_chat(config_map& m, const std::string& message) {
  for (const char* key : {"chat_template", "system_prompt"}) {
    const std::string prefix = std::string("model.") + key + ": ";
    if (message.rfind(prefix, 0) == 0) return m.fail(key, message.substr(prefix.size()));
  }
  m.fail("chat_template", message);
}

// kind: hf. The architecture is config.json's: checked here, before anything starts;
// the weights and tokenizer are read when the run starts.
void read_hf_model(config_map& m, policy_section& c) {
  for (const char* key : {"d_model", "n_layers", "n_heads", "d_ff", "tied_output"})
    if (m.has(key)) {
      m.fail(key, "not used with kind hf (the shape comes from model.path's config.json)");
      m.allow(key);
    }
  m.get("path", c.hf_path);
  m.get("chat_template", c.chat_template);
  m.get("system_prompt", c.system_prompt);
  const bool own_max_len = m.has("max_len");
  if (!own_max_len) c.model.max_len = 1024;
  get_int(m, "max_len", c.model.max_len, 2, max_tokens);
  std::error_code ec;
  if (c.hf_path.empty() || !std::filesystem::is_directory(c.hf_path, ec)) {
    m.fail("path", "expected the directory of a Hugging Face checkpoint (config.json, "
                   "*.safetensors, tokenizer.json), got \"" + c.hf_path + "\"");
    return;
  }
  auto config = read_hf_config(c.hf_path);
  if (!config) return m.fail("path", config.err().message);
  const std::string dir = c.hf_path + "/";
  if (!std::filesystem::exists(dir + "tokenizer.json", ec))
    m.fail("path", c.hf_path + " has no tokenizer.json");
  if (!std::filesystem::exists(dir + "model.safetensors", ec) &&
      !std::filesystem::exists(dir + "model.safetensors.index.json", ec))
    m.fail("path", c.hf_path + " has neither model.safetensors nor model.safetensors.index.json");
  // The context: model.max_len, by default 1024 or the model's own when shorter.
  if (!own_max_len && c.model.max_len > config->max_position_embeddings) {
    c.model.max_len = int32_t(config->max_position_embeddings);
    m.record("max_len", std::to_string(c.model.max_len));
  }
  if (c.model.max_len > config->max_position_embeddings)
    m.fail("max_len", "expected at most the model's max_position_embeddings (" +
                          std::to_string(config->max_position_embeddings) + "), got \"" +
                          std::to_string(c.model.max_len) + "\"");
  auto choice = parse_chat_template_choice(c.chat_template);
  if (!choice)
    return m.fail("chat_template",
                  "expected auto, none, chatml or llama3, got \"" + c.chat_template + "\"");
  std::string tokenizer_config;
  if (std::filesystem::exists(dir + "tokenizer_config.json", ec))
    if (auto t = read_text_file(dir + "tokenizer_config.json")) tokenizer_config = *t;
  auto detected = detect_chat_template(tokenizer_config, dir + "tokenizer_config.json");
  if (!detected) return m.fail("chat_template", detected.err().message);
  if (auto format = resolve_chat_format(*choice, c.system_prompt, *detected); !format)
    fail_chat(m, format.err().message);
}

void read_model(config_map m, policy_section& c) {
  read_enum(m, "kind", c.kind, &parse_policy_kind, &policy_kind_name);
  const engine_kind_traits& kind = kind_traits(c.kind);
  if (kind.model_directory()) {
    read_hf_model(m, c);
    if (m.has("base_checkpoint")) {
      m.fail("base_checkpoint", "not used with kind hf (model.path is the base policy)");
      m.allow("base_checkpoint");
    }
  } else {
    read_shape(m, c.model);
    for (const char* key : {"path", "chat_template", "system_prompt"})
      if (m.has(key)) {
        m.fail(key, "only with kind hf (a model directory)");
        m.allow(key);
      }
  }
  m.get("device", c.device);
  if (!parse_device_name(c.device))
    m.fail("device", "expected cpu or cuda:N, got \"" + c.device + "\"");
  if (!kind.model_directory()) m.get("base_checkpoint", c.base_checkpoint);
  // The error_code overloads: a name too long for the file system is reported, not thrown.
  if (std::error_code ec;
      !c.base_checkpoint.empty() && !std::filesystem::exists(c.base_checkpoint, ec))
    m.fail("base_checkpoint", "expected an existing checkpoint, got \"" +
                                  c.base_checkpoint + "\" (" +
                                  (ec ? ec.message() : "not found") + ")");
  read_sim_model(m.child("sim"), c.sim);
  m.finish();
}

void read_sft(config_map m, policy_section& c) {
  get_int(m, "steps", c.sft_steps, 1, max_steps);
  get_int(m, "batch_size", c.sft_batch_size, 1, max_capacity);
  m.get("lr", c.sft_lr, 0, 10);
  expect(m, "lr", c.sft_lr > 0, "a positive number", c.sft_lr);
  m.get("count", c.sft_count, 1, max_prompts);
  m.finish();
}

void read_tasks(config_map m, tasks_section& c) {
  m.get("suite", c.suite);
  m.get("dataset", c.dataset);
  m.get("train", c.train, 1, max_prompts);
  m.get("held_out", c.held_out, 0, max_held_out);
  m.get("difficulty_mix", c.difficulty_mix);
  // Recorded only when given, so that configs written before the key stay equal on resume.
  if (m.has("prompt_format")) {
    m.get("prompt_format", c.prompt_format);
    if (!parse_prompt_format(c.prompt_format))
      m.fail("prompt_format", "expected plain or boxed, got \"" + c.prompt_format + "\"");
  }
  // A dataset as published: which column holds each task field (tasks/dataset.hpp).
  if (m.has("fields")) {
    auto fields = m.child("fields");
    for (const auto& name : dataset_field_names())
      if (fields.has(name)) fields.get(name, c.fields[name]);
    fields.finish();
  }
  // Recorded only when given (as prompt_format above).
  if (m.has("verifier")) m.get("verifier", c.verifier);
  if (m.has("prompt_template")) m.get("prompt_template", c.prompt_template);
  // verl-style data: which verifier scores each data_source (tasks/dataset.hpp).
  if (m.has("verifiers")) {
    auto verifiers = m.child("verifiers");
    for (const auto& source : verifiers.keys()) verifiers.get(source, c.verifiers[source]);
    verifiers.finish();
  }
  const dataset_format format{c.fields, c.verifier, c.prompt_template, c.verifiers};
  if (!format.plain() && c.dataset.empty()) {
    for (const char* key : {"fields", "verifier", "prompt_template", "verifiers"})
      if (m.has(key)) m.fail(key, "read a dataset's lines: set tasks.dataset too");
  } else if (const auto bad = check_dataset_format(format, "fields"); !bad.empty()) {
    const size_t colon = bad.find(": ");
    m.fail(bad.substr(0, colon), bad.substr(colon + 2));
  }
  if (c.dataset.empty()) {
    const auto names = suite_names();
    if (std::find(names.begin(), names.end(), c.suite) == names.end()) {
      std::string known;
      for (const auto& n : names) known += (known.empty() ? "" : ", ") + n;
      m.fail("suite",
             "expected one of " + known + " (or a dataset), got \"" + c.suite + "\"");
    }
  } else if (std::error_code ec; !std::filesystem::is_regular_file(c.dataset, ec)) {
    const bool missing = !ec || ec == std::errc::no_such_file_or_directory;
    m.fail("dataset", "expected an existing JSONL file, got \"" + c.dataset + "\" (" +
                          (missing ? "not found" : ec.message()) + ")");
  }
  double total = 0;
  for (double w : c.difficulty_mix) total += w;
  const bool nonneg = std::all_of(c.difficulty_mix.begin(), c.difficulty_mix.end(),
                                  [](double w) { return w >= 0; });
  if (c.difficulty_mix.size() > 5 || !nonneg || !(total > 0))
    m.fail("difficulty_mix",
           "expected up to 5 weights >= 0 (levels 1..5) with a positive sum");
  m.finish();
}

void read_tracker_estimator(config_map m, tracker_config& t);  // below

void read_tracker(config_map m, pipeline_config& c) {
  auto& t = c.tracker;
  m.get("prompts_per_step", t.prompts_per_step, 1, max_per_step);
  m.get("steps", t.steps, 1, max_steps);
  m.get("sample_budget", t.sample_budget, 0, uint64_t{1} << 50);
  m.get("min_steps", t.min_steps, 0, max_steps);
  if (t.min_steps > t.steps)
    m.fail("min_steps", "expected at most tracker.steps (" + std::to_string(t.steps) + ")");
  // tracker_config's 0 means "no limit"; a pipeline run must end, so the key is required.
  if (t.steps == 0 && !m.has("steps"))
    m.fail("steps", "expected a positive number of training steps (a run must end)");
  m.get("max_lag", t.lag.max_lag, 0, 64);
  double lease = static_cast<double>(t.lease_ns) * 1e-9;
  m.get("lease_seconds", lease, 0.001, max_seconds);
  t.lease_ns = static_cast<uint64_t>(std::llround(lease * 1e9));
  m.get("sync_rounds", t.sync_rounds);
  read_tracker_estimator(m.child("estimator"), t);
  if (c.tasks.dataset.empty() && t.prompts_per_step > c.tasks.train)
    expect(m, "prompts_per_step", false,
           "at most tasks.train (" + std::to_string(c.tasks.train) + ")",
           t.prompts_per_step);
  if (validate(t.strategy).empty())
    for (const auto& issue : validate_for_step(t.strategy, t.prompts_per_step))
      m.fail("prompts_per_step", "strategy." + issue.key + ": " + issue.message);
  if (validate(t.strategy).empty() &&
      max_samples_per_step(t.strategy, t.prompts_per_step) > max_step_samples)
    m.fail("prompts_per_step",
           "a step of " + std::to_string(t.prompts_per_step) + " prompts could draw " +
               std::to_string(max_samples_per_step(t.strategy, t.prompts_per_step)) +
               " samples under this strategy; at most " + std::to_string(max_step_samples) +
               " are allowed");
  m.finish();
}

void read_sampling(config_map m, sampling_params& s) {
  m.get("temperature", s.temperature, 0, 1000);
  expect(m, "temperature", s.temperature > 0, "a number > 0", double{s.temperature});
  m.get("top_p", s.top_p);
  expect(m, "top_p", s.top_p > 0 && s.top_p <= 1, "0 < top_p <= 1", double{s.top_p});
  get_int(m, "max_new_tokens", s.max_new_tokens, 1, max_tokens);
  m.finish();
}

void read_latency(config_map m, sim_latency& l) {
  m.get("step_seconds", l.step_seconds, 0, 60);
  m.get("min_steps", l.min_steps, 1, max_tokens);
  m.get("tail", l.tail, 0, 1000);
  m.get("max_steps", l.max_steps, 1, max_tokens);
  expect(m, "max_steps", l.max_steps >= l.min_steps,
         "at least min_steps (" + std::to_string(l.min_steps) + ")", l.max_steps);
  m.finish();
}

/// bind, curve_keys and curve_clients: the keys of both remote sections.
template <class Section>
void read_endpoint(config_map& m, Section& r) {
  m.get("bind", r.bind);
  // inproc:// would need the workers in this process's ZeroMQ context: not a remote.
  const bool known =
      r.bind.empty() || r.bind.rfind("tcp://", 0) == 0 || r.bind.rfind("ipc://", 0) == 0;
  if (!known)
    m.fail("bind", "expected \"\" (off) or a ZeroMQ endpoint (tcp://HOST:PORT, ipc://PATH), got \"" +
                       r.bind + "\"");
  // The key files are read here, once: a bad one is an error before anything starts.
  m.get("curve_keys", r.curve_keys_file);
  if (!r.curve_keys_file.empty()) {
    if (auto k = read_curve_keys(r.curve_keys_file)) r.curve = *k;
    else m.fail("curve_keys", k.err().message);
  }
  m.get("curve_clients", r.curve_clients_file);
  if (!r.curve_clients_file.empty()) {
    if (r.curve_keys_file.empty())
      m.fail("curve_clients", "needs curve_keys (the run's own keys) as well");
    else if (auto k = read_public_keys(r.curve_clients_file)) r.curve_clients = *k;
    else m.fail("curve_clients", k.err().message);
  }
}

void read_remote(config_map m, remote_verifiers_section& r) {
  read_endpoint(m, r);
  auto& p = r.pool;
  m.get("heartbeat", p.heartbeat, 0.001, 3600);
  m.get("timeout", p.timeout, 0.001, max_seconds);
  expect(m, "timeout", p.timeout > p.heartbeat,
         "more seconds than heartbeat (" + text(p.heartbeat) + ")", p.timeout);
  m.get("local_after", p.local_after, 0, max_seconds);
  m.get("lease", p.lease, 0.001, max_seconds);
  m.get("attempts", p.attempts, 1, 1000);
  m.finish();
}

void read_remote_generators(config_map m, remote_generators_section& r) {
  read_endpoint(m, r);
  m.get("heartbeat", r.heartbeat, 0.001, 3600);
  m.get("timeout", r.timeout, 0.001, max_seconds);
  expect(m, "timeout", r.timeout > r.heartbeat,
         "more seconds than heartbeat (" + text(r.heartbeat) + ")", r.timeout);
  m.get("chunk_bytes", r.chunk_bytes, 4096, 32u << 20);
  m.get("window", r.window, 1, 1024);
  m.finish();
}

void read_actors(config_map m, actors_section& a) {
  m.get("generators", a.generators, 0, max_actors);
  m.get("generator_capacity", a.generator_capacity, 1, max_capacity);
  get_int(m, "generator_threads", a.generator_threads, 1, max_threads);
  m.get("verifiers", a.verifiers, 1, max_actors);
  get_int(m, "learner_threads", a.learner_threads, 1, max_threads);
  m.get("scheduler_threads", a.scheduler_threads, 1, max_threads);
  read_latency(m.child("sim_latency"), a.sim_latency);
  a.sim_latency.capacity = a.generator_capacity;
  read_remote(m.child("remote_verifiers"), a.remote_verifiers);
  read_remote_generators(m.child("remote_generators"), a.remote_generators);
  if (a.generators == 0 && a.remote_generators.bind.empty())
    m.fail("generators", "expected at least 1 without remote generators "
                         "(actors.remote_generators.bind), got \"0\"");
  m.finish();
}

// Replicated learners (docs/guides/cluster.md "Replicated learners"): K ranks around rank 0's TCPStore.
void read_replicas(config_map& m, learner_section& l) {
  m.get("device", l.device);
  if (!l.device.empty() && !parse_device_name(l.device))
    m.fail("device", "expected \"\" (model.device), cpu or cuda:N, got \"" + l.device + "\"");
  auto& r = l.replicas;
  m.get("replicas", r.replicas, 1, 1024);
  m.get("store", r.store);
  const auto colon = r.store.rfind(':');
  const std::string port = colon == std::string::npos ? "" : r.store.substr(colon + 1);
  const bool digits = !port.empty() && port.size() <= 5 &&
                      port.find_first_not_of("0123456789") == std::string::npos;
  const unsigned long number = digits ? std::stoul(port) : 0;
  if (colon == std::string::npos || colon == 0 || number < 1 || number > 65535)
    m.fail("store", "expected HOST:PORT with a port from 1 to 65535, e.g. 127.0.0.1:29510, "
                    "got \"" + r.store + "\"");
  m.get("collective_timeout", r.collective_timeout, 0.1, max_seconds);
  m.get("join_timeout", r.join_timeout, 0.1, max_seconds);
  m.get("check_replicas", r.check_every_step);
}

void read_learner(config_map m, learner_section& l) {
  auto& o = l.optimizer;
  m.get("lr", o.lr, 0, 10);
  expect(m, "lr", o.lr > 0, "a positive number", o.lr);
  m.get("weight_decay", o.weight_decay, 0, 10);
  m.get("beta1", o.beta1);
  expect(m, "beta1", o.beta1 >= 0 && o.beta1 < 1, "0 <= beta1 < 1", o.beta1);
  m.get("beta2", o.beta2);
  expect(m, "beta2", o.beta2 >= 0 && o.beta2 < 1, "0 <= beta2 < 1", o.beta2);
  get_int(m, "warmup_steps", o.warmup_steps, 0, max_steps);
  m.get("grad_clip", o.grad_clip);  // <= 0 disables clipping
  auto& s = l.loss;
  m.get("clip_low", s.clip_low);
  expect(m, "clip_low", s.clip_low >= 0 && s.clip_low < 1, "0 <= clip_low < 1",
         s.clip_low);
  m.get("clip_high", s.clip_high, 0, 1000);
  m.get("dual_clip", s.dual_clip, 1, 1e6);
  expect(m, "dual_clip", s.dual_clip > 1, "a number > 1", s.dual_clip);
  m.get("micro_batch", l.micro_batch, 1, max_capacity);
  m.get("updates_per_step", l.updates_per_step, 1, 1024);
  m.get("checkpoint_every", l.checkpoint_every, 0, max_steps);
  m.get("autocast_bf16", l.autocast_bf16);
  m.get("logprob_tolerance", l.logprob_tolerance, 0, 1000);
  read_replicas(m, l);
  m.finish();
}

void read_eval(config_map m, eval_section& e) {
  m.get("every", e.every, 0, max_steps);
  m.get("every_samples", e.every_samples, 0, uint64_t{1} << 50);
  m.get("greedy", e.greedy);
  m.get("samples", e.samples, 0, 1024);
  m.finish();
}

// tracker.estimator: the Beta-EMA keys (config/sim_reader.hpp) and the learned
// estimator's (algorithms/pass_rate_predictor.hpp).
/// `server:` (model.kind server only): the server, its dialect and where versions go.
void read_server(config_map m, pipeline_config& c) {
  if (c.policy.kind != kind_named("server")) {
    for (const auto& key : m.keys()) {
      m.fail(key, "only with model.kind server (an inference server generates)");
      m.allow(key);
    }
    return m.finish();
  }
  server_section& s = c.server;
  read_enum(m, "dialect", s.dialect, &parse_server_dialect, &server_dialect_name);
  m.get("url", s.url);
  if (auto u = parse_server_url(s.url); !u) m.fail("url", u.err().message);
  m.get("model", s.model);
  m.get("timeout", s.timeout, 0.001, max_seconds);
  m.get("retry_pause", s.retry_pause, 0.001, max_seconds);
  m.get("weights_dir", s.weights_dir);
  m.get("keep_versions", s.keep_versions, 1, 1000);
  m.get("launch", s.launch);
  if (!s.launch.empty())
    if (auto a = launch_arguments(s.launch, "m", "v", 1); !a) m.fail("launch", a.err().message);
  m.get("start_timeout", s.start_timeout, 0.001, max_seconds);
  if (s.launch.empty() && !load_weights_request(s.dialect, "", "").has_value())
    m.fail("launch", "expected a command with server.dialect " +
                         std::string(server_dialect_name(s.dialect)) +
                         " (it loads its model only when it starts, so adarl starts it and "
                         "restarts it with each policy version), got \"\"");
  m.finish();
}

void read_tracker_estimator(config_map m, tracker_config& t) {
  std::string kind = t.estimator == estimator_kind::learned ? "learned" : "ema";
  m.get("kind", kind);
  if (kind == "ema" || kind == "learned")
    t.estimator = kind == "ema" ? estimator_kind::ema : estimator_kind::learned;
  else
    m.fail("kind", "expected ema or learned, got \"" + kind + "\"");
  auto& p = t.predictor;
  m.get("prior_strength", p.prior_strength, 1e-3, 1e6);
  m.get("learning_rate", p.learning_rate, 1e-6, 10.0);
  m.get("l2", p.l2, 0.0, 100.0);
  m.get("steps_per_group", p.steps_per_group, 1, 1000);
  read_estimator(m, t.pass_rate);
}

void read_metrics(config_map m, metrics_section& s) {
  m.get("listen", s.listen);
  m.get("alarm_share", s.alarm_share, 0.0, 1.0);
  if (!s.listen.empty())
    if (auto a = parse_listen_address(s.listen); !a) m.fail("listen", a.err().message);
  m.finish();
}

void read_log(config_map m, log_section& s) {
  static const std::pair<const char*, log_level> levels[] = {
      {"trace", log_level::trace}, {"debug", log_level::debug}, {"info", log_level::info},
      {"warn", log_level::warn},   {"error", log_level::error}};
  std::string level = "info";
  for (const auto& [name, l] : levels)
    if (l == s.level) level = name;
  const auto before = m.errors()->messages.size();
  m.get("level", level);
  bool known = false;
  for (const auto& [name, l] : levels)
    if (level == name) {
      s.level = l;
      known = true;
    }
  if (!known && m.errors()->messages.size() == before)
    m.fail("level", "expected trace, debug, info, warn or error, got \"" + level + "\"");
  m.get("file", s.file);
  m.get("rotate_bytes", s.rotate_bytes, 4096, uint64_t{1} << 40);
  m.get("rotate_files", s.rotate_files, 1, 1000);
  m.finish();
}

// A copy of `n` whose nodes carry no position: an overridden value did not come from
// a line of the file, so its errors must not name one.
YAML::Node without_marks(const YAML::Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Scalar:
      return YAML::Node(n.Scalar());
    case YAML::NodeType::Sequence: {
      YAML::Node out(YAML::NodeType::Sequence);
      for (const auto& e : n) out.push_back(without_marks(e));
      return out;
    }
    case YAML::NodeType::Map: {
      YAML::Node out(YAML::NodeType::Map);
      for (const auto& kv : n)
        out[kv.first.as<std::string>("")] = without_marks(kv.second);
      return out;
    }
    default:
      return YAML::Node(n.Type());
  }
}

// Recursion instead of re-assigning a YAML::Node handle (see config_reader.cpp).
void strip_marks(YAML::Node node, const std::vector<std::string>& keys, size_t i) {
  if (!node.IsMap() || !node[keys[i]].IsDefined()) return;
  if (i + 1 == keys.size()) {
    node[keys[i]] = without_marks(node[keys[i]]);
    return;
  }
  strip_marks(node[keys[i]], keys, i + 1);
}

std::vector<std::string> override_keys(const std::string& assignment) {
  std::vector<std::string> keys;
  std::stringstream ss(assignment.substr(0, assignment.find('=')));
  for (std::string k; std::getline(ss, k, '.');) keys.push_back(k);
  return keys;
}

// read_strategy() range-checks only while no error has been recorded, so the strategy
// section is read with errors of its own, then merged: a problem elsewhere in the file
// must not hide one in the strategy.
strategy_config read_strategy_section(config_map& top, const YAML::Node& root,
                                      const std::shared_ptr<config_errors>& errors) {
  top.child("strategy");  // marks the key known; a non-mapping is reported here
  const YAML::Node node = root["strategy"];
  auto own = std::make_shared<config_errors>();
  own->file = errors->file;
  const bool is_map = node.IsDefined() && node.IsMap();  // absent: an invalid node
  config_map m(is_map ? node : YAML::Node(YAML::NodeType::Map), "strategy", own);
  auto s = read_strategy(m);
  m.finish();
  errors->messages.insert(errors->messages.end(), own->messages.begin(),
                          own->messages.end());
  errors->values.insert(own->values.begin(), own->values.end());
  return s;
}

}  // namespace

result<pipeline_config> read_pipeline_config(const YAML::Node& root,
                                             const std::string& file,
                                             const std::string& stem) {
  auto errors = std::make_shared<config_errors>();
  errors->file = file;
  config_map top(root, "", errors);
  pipeline_config c;
  c.name = stem;
  top.get("name", c.name);
  if (c.name.empty() || c.name.size() > max_run_name ||
      std::any_of(c.name.begin(), c.name.end(), [](char ch) { return uint8_t(ch) < 0x20; }))
    top.fail("name", "expected a run name of 1 to " + std::to_string(max_run_name) +
                         " characters without control characters (it labels every log line "
                         "and metric)");
  c.out = "runs/" + c.name;
  top.get("out", c.out);
  if (c.out.empty()) top.fail("out", "expected an output directory");
  top.get("seed", c.seed);
  top.get("deterministic", c.deterministic);
  top.get("progress", c.progress);
  top.get("stall_seconds", c.stall_seconds, 1, max_seconds);
  {
    config_map w = top.child("weights");
    w.get("path", c.weights_path);
    w.finish();
  }
  read_model(top.child("model"), c.policy);
  read_sft(top.child("sft"), c.policy);
  read_tasks(top.child("tasks"), c.tasks);
  c.tracker.strategy = read_strategy_section(top, root, errors);
  read_tracker(top.child("tracker"), c);
  read_sampling(top.child("sampling"), c.sampling);
  read_actors(top.child("actors"), c.actors);
  read_learner(top.child("learner"), c.learner);
  const engine_kind_traits& kind = kind_traits(c.policy.kind);
  if (c.learner.replicas.replicas > 1 && !kind.trains_model)
    top.fail("learner.replicas", "expected 1 with model.kind " + std::string(kind.name) +
                                     " (it has no learner to replicate), got \"" +
                                     text(c.learner.replicas.replicas) + "\"");
  if (c.learner.autocast_bf16) {
    const std::string& device = c.learner.device.empty() ? c.policy.device : c.learner.device;
    if (!kind.trains_model || !is_cuda_device(device))
      top.fail("learner.autocast_bf16",
               "expected false unless the learner runs on CUDA (bf16 autocast is CUDA only; "
               "the learner's device is " +
                   (kind.trains_model ? "\"" + device + "\"" : std::string(kind.name)) +
                   "), got \"true\"");
  }
  read_eval(top.child("eval"), c.eval);
  read_metrics(top.child("metrics"), c.metrics);
  read_log(top.child("log"), c.log);
  read_server(top.child("server"), c);
  if (c.policy.kind == kind_named("server")) {
    // One generator actor: the server's weights change only between its rows' versions,
    // so every row's version is known (engines/server/server_engine.hpp).
    if (c.actors.generators != 1)
      top.fail("actors.generators", "expected 1 with model.kind server (one generator "
                                    "drives the server; actors.generator_capacity sets the "
                                    "requests in flight), got \"" + text(c.actors.generators) + "\"");
    if (!c.actors.remote_generators.bind.empty())
      top.fail("actors.remote_generators.bind",
               "expected \"\" with model.kind server (the server generates)");
  }
  top.finish();
  c.tracker.seed = c.seed;
  c.tracker.lag.exact = c.deterministic;
  c.sampling.batch_invariant = c.deterministic;
  c.effective = errors->values;
  if (!errors->empty()) {
    auto text = errors->joined();
    if (!text.empty() && text.back() == '\n') text.pop_back();
    return error{text};
  }
  return c;
}

result<bool> apply_overrides(YAML::Node& root, const std::vector<std::string>& overrides,
                             const std::string& file) {
  for (const auto& o : overrides) {
    auto applied = apply_override(root, o);
    if (!applied) return error{file + ": " + applied.err().message};
    strip_marks(root, override_keys(o), 0);
  }
  return true;
}

result<pipeline_config> load_pipeline_config(const std::string& file,
                                             const std::vector<std::string>& overrides) {
  auto loaded = load_yaml_file(file);
  if (!loaded) return loaded.err();
  YAML::Node root = *loaded;
  if (auto ok = apply_overrides(root, overrides, file); !ok) return ok.err();
  return read_pipeline_config(root, file, std::filesystem::path(file).stem().string());
}

}  // namespace adarl
