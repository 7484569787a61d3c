#include "experiments/run_engines.hpp"

#include <filesystem>
#include <mutex>
#include <ostream>

#include "engines/server/server_engine.hpp"
#include "engines/server/server_process.hpp"
#include "formats/gguf_writer.hpp"
#include "formats/hf_config.hpp"
#include "experiments/cache_dir.hpp"
#include "experiments/run_tasks.hpp"
#include "experiments/sft_job.hpp"
#include "models/weights/checkpoint.hpp"
#include "models/device.hpp"
#include "models/hf_engines.hpp"
#include "models/torch_engines.hpp"

namespace adarl {

result<std::string> base_checkpoint(const pipeline_config& c, std::ostream& log,
                                    const std::atomic<bool>* stop) {
  if (!c.policy.base_checkpoint.empty()) return c.policy.base_checkpoint;
  // The run's own training split only: a held-out item trained on here would make every
  // held-out figure of the run meaningless.
  auto items = sft_items(c);
  if (!items) return items.err();
  if (items->empty()) return error{"sft: no training items"};
  const std::string dir = cache_dir("sft") + "/" + sft_cache_key(c, *items);
  if (std::filesystem::exists(dir + "/meta.json")) {
    // A hit is checked byte for byte: a damaged entry is trained again, never used.
    auto ok = verify_checkpoint(dir);
    if (ok) {
      log << "run: SFT warm start from the cache " << dir << "\n";
      return dir;
    }
    log << "run: the cached SFT warm start is unusable (" << ok.err().message
        << "): training it again\n";
  }
  sft_job_config s;
  s.items = std::move(*items);
  s.model = c.policy.model;
  s.suite = c.tasks.suite;
  s.dataset = c.tasks.dataset;
  s.count = c.policy.sft_count;
  s.seed = c.seed;
  s.difficulty_mix = c.tasks.difficulty_mix;
  s.steps = c.policy.sft_steps;
  s.batch_size = c.policy.sft_batch_size;
  s.lr = c.policy.sft_lr;
  s.eval_count = 0;
  s.out = dir;
  s.device = c.policy.device;
  s.threads = c.actors.learner_threads;
  log << "run: SFT warm start (" << s.steps << " steps), cached in " << dir << "\n";
  auto r = run_sft_job(s, log, stop);
  if (!r && stop && stop->load())
    return error{"SFT warm start " + r.err().message + "; it is cached in " + dir +
                 " only once complete, so it starts over next time"};
  if (!r) return r.err();
  log << "run: SFT loss " << r->loss_before << " -> " << r->loss_after << "\n";
  return dir;
}

namespace {

hf_policy_config hf_policy_of(const pipeline_config& c) {
  hf_policy_config policy;
  policy.path = c.policy.hf_path;
  policy.max_len = c.policy.model.max_len;
  policy.device = c.policy.device;
  policy.init_seed = c.seed;
  return policy;
}

/// The HF learner's config of a run: model.path, learner.device (else model.device),
/// the learner's settings and the codec's padding. Every rank builds its own from this.
hf_learner_config hf_learner_of(const pipeline_config& c, const text_codec& codec) {
  hf_learner_config l;
  l.policy = hf_policy_of(c);
  l.policy.threads = c.actors.learner_threads;
  if (!c.learner.device.empty()) l.policy.device = c.learner.device;
  static_cast<learner_spec&>(l) = learner_spec_of(c);
  l.pad_id = codec.pad_id();
  return l;
}

/// The transformer learner's config of a run (its base checkpoint unset): learner.device
/// (else model.device) and the learner's settings. Every rank builds its own from this.
torch_learner_config torch_learner_of(const pipeline_config& c) {
  auto tok = *tokenizer::from_charset(tokenizer::default_charset());
  torch_learner_config l;
  l.policy.model = c.policy.model;
  l.policy.model.vocab_size = tok.size();
  l.policy.charset = tok.charset();
  l.policy.device = c.learner.device.empty() ? c.policy.device : c.learner.device;
  l.policy.init_seed = c.seed;
  l.policy.threads = c.actors.learner_threads;
  static_cast<learner_spec&>(l) = learner_spec_of(c);
  return l;
}

/// The run's codec: the prompt table's, else opened from the config (adarl compare and
/// a learner rank build engines without a prompt table).
result<std::shared_ptr<const text_codec>> codec_of(const engine_request& r) {
  if (r.prompts && r.prompts->codec) return r.prompts->codec;
  return run_codec(*r.config);
}

/// What every kind's generator config takes from a spec: where it runs, its seed, its
/// capacity and its sampling.
template <class Config>
Config generator_config(const engine_spec& spec, const std::string& device, int32_t threads) {
  Config g;
  g.policy.device = device;
  g.policy.threads = threads;
  g.policy.init_seed = spec.init_seed;
  g.capacity = spec.capacity;
  g.sampling = spec.sampling;
  return g;
}

/// The transformer's generator of a spec: its shape and tokenizer (the weights come from
/// the run, or from init_checkpoint).
torch_generator_config transformer_generator_config(const engine_spec& spec,
                                                    const std::string& device, int32_t threads) {
  auto g = generator_config<torch_generator_config>(spec, device, threads);
  g.policy.model = spec.model;
  g.policy.charset = spec.charset;
  return g;
}

/// An HF generator of a spec: config.json's architecture, the context and the end ids
/// (the weights come from the run as bytes, or from policy.path).
hf_generator_config hf_generator_config_of(const engine_spec& spec, const std::string& device,
                                           int32_t threads) {
  auto g = generator_config<hf_generator_config>(spec, device, threads);
  g.policy.config_json = spec.hf_config;
  g.policy.max_len = spec.max_len;
  g.end_ids = spec.end_ids;
  return g;
}

/// The run's engine spec: what a remote generator of the run is built from, so that a
/// local one is built the same way.
engine_spec spec_of(const engine_request& r) {
  static const prompt_table no_prompts;
  return run_engine_spec(*r.config, r.prompts ? *r.prompts : no_prompts);
}

result<engine_factories> hf_engines(const engine_request& r) {
  const pipeline_config& c = *r.config;
  auto codec = codec_of(r);
  if (!codec) return codec.err();
  // Not through the run's spec: it would read config.json for a generator that loads
  // model.path, and take end ids the codec gives here anyway.
  hf_generator_config g;
  g.policy = hf_policy_of(c);
  g.policy.threads = c.actors.generator_threads;
  g.capacity = c.actors.generator_capacity;
  g.sampling = c.sampling;
  g.end_ids = (*codec)->end_ids();
  const hf_learner_config l = hf_learner_of(c, **codec);
  engine_factories f;
  f.generator = [g](uint32_t) { return make_hf_generator(g); };
  f.learner = [l, join = r.join] { return make_hf_learner(l, join); };
  return f;
}

/// What the server kind's generators ask the server for: server: with the run's sampling,
/// the codec's end ids and the model's vocabulary.
result<server_config> server_config_of(const pipeline_config& c, const text_codec& codec) {
  server_config s;
  s.dialect = c.server.dialect;
  s.url = c.server.url;
  s.timeout = c.server.timeout;
  s.retry_pause = c.server.retry_pause;
  s.capacity = c.actors.generator_capacity;
  // The model's own vocabulary (config.json's vocab_size, which may pad the tokenizer's):
  // an id the model can draw is not garbage, wherever it lies.
  auto model = read_hf_config(c.policy.hf_path);
  if (!model) return model.err();
  s.vocab = int32_t(model->vocab_size);
  s.draw.sampling = c.sampling;
  s.draw.end_ids = codec.end_ids();
  s.draw.model = c.server.model;
  return s;
}

/// The server kind: the hf kind's learner; one generator whose rows are requests to the
/// server (engines/server/server_engine.hpp), which loads each version the learner makes
/// from the HF directories the publisher writes under server.weights_dir.
result<engine_factories> server_engines(const engine_request& r) {
  const pipeline_config& c = *r.config;
  auto codec = codec_of(r);
  if (!codec) return codec.err();
  auto transport = make_http_transport(c.server.url);
  if (!transport) return transport.err();
  auto s = server_config_of(c, **codec);
  if (!s) return s.err();
  const std::string root =
      c.server.weights_dir.empty() ? c.out + "/server-weights" : c.server.weights_dir;
  auto publish = make_hf_weight_publisher(hf_policy_of(c), root, c.server.keep_versions);
  if (!publish) return error{"server.weights_dir: " + publish.err().message};
  // llama-server reads GGUF: each version's HF directory is converted beside it.
  const bool gguf = is_llama_server(c.server.dialect);
  weight_publisher publisher = *publish;
  if (gguf)
    publisher = [hf = *publish](const weights_ptr& w) -> result<std::string> {
      auto dir = hf(w);
      if (!dir) return dir.err();
      const std::string file = *dir + "/model.gguf";
      if (auto ok = write_gguf_from_hf(*dir, file, weight_version_name(w->version)); !ok)
        return ok.err();
      return file;
    };
  auto link = std::make_shared<server_link>(std::move(*s), std::move(*transport), publisher);
  if (r.warn) link->on_warning(r.warn);
  if (!c.server.launch.empty()) {
    const auto address = parse_server_url(c.server.url);
    if (!address) return error{"server.url: " + address.err().message};
    link->own_process(std::make_unique<server_process>(c.server.launch, c.out + "/server.log",
                                                       c.server.start_timeout),
                      address->port);
    // The base policy: model.path itself, or its GGUF.
    std::string base = c.policy.hf_path;
    if (gguf) {
      std::error_code ec;
      std::filesystem::create_directories(root + "/v0", ec);
      base = root + "/v0/model.gguf";
      if (auto ok = write_gguf_from_hf(c.policy.hf_path, base, weight_version_name(0)); !ok)
        return error{"model.path as GGUF for server.launch: " + ok.err().message};
    }
    if (auto ok = link->start(base); !ok) return ok.err();
    // The server adarl started: its dialect and sampling (an outside one's are checked
    // before the run: check_server()).
    if (auto ok = probe_server(link->config(), link->transport(), 0); !ok) return ok.err();
  }
  const hf_learner_config l = hf_learner_of(c, **codec);
  engine_factories f;
  f.generator = [link](uint32_t) -> result<std::unique_ptr<generation_engine>> {
    return make_server_generator(link);
  };
  f.learner = [l, join = r.join] { return make_hf_learner(l, join); };
  return f;
}

result<engine_factories> transformer_engines(const engine_request& r) {
  const pipeline_config& c = *r.config;
  if (r.base.empty()) return error{"model.kind transformer: its engines need a base checkpoint"};
  auto g = transformer_generator_config(spec_of(r), c.policy.device, c.actors.generator_threads);
  g.policy.init_checkpoint = r.base;
  torch_learner_config l = torch_learner_of(c);
  l.policy.init_checkpoint = r.base;
  engine_factories f;
  f.generator = [g](uint32_t) { return make_torch_generator(g); };
  f.learner = [l, join = r.join] { return make_torch_learner(l, join); };
  return f;
}

result<std::unique_ptr<generation_engine>> hf_generator_of(const engine_spec& spec,
                                                           const std::string& device,
                                                           int32_t threads) {
  return make_hf_generator(hf_generator_config_of(spec, device, threads));
}

result<std::unique_ptr<generation_engine>> transformer_generator_of(const engine_spec& spec,
                                                                    const std::string& device,
                                                                    int32_t threads) {
  return make_torch_generator(transformer_generator_config(spec, device, threads));
}

result<uint64_t> hf_learner_rank(const pipeline_config& c, uint32_t rank, int32_t threads,
                                 const std::atomic<bool>* stop) {
  auto codec = run_codec(c);  // the learner's padding
  if (!codec) return codec.err();
  auto l = hf_learner_of(c, **codec);
  l.replicas.rank = rank;
  if (threads > 0) l.policy.threads = threads;
  return serve_hf_learner_replica(l, stop);
}

result<uint64_t> transformer_learner_rank(const pipeline_config& c, uint32_t rank,
                                          int32_t threads, const std::atomic<bool>* stop) {
  auto l = torch_learner_of(c);
  l.replicas.rank = rank;
  if (threads > 0) l.policy.threads = threads;
  return serve_learner_replica(l, stop);
}

}  // namespace

void register_torch_engines() {
  static std::once_flag once;
  std::call_once(once, [] {
    register_engines(kind_named("transformer"),
                     {&transformer_engines, &transformer_generator_of, &transformer_learner_rank});
    register_engines(kind_named("hf"), {&hf_engines, &hf_generator_of, &hf_learner_rank});
    // No worker generator: the server is the generator on another machine.
    register_engines(kind_named("server"), {&server_engines, nullptr, &hf_learner_rank});
  });
}

learner_spec learner_spec_of(const pipeline_config& c) {
  learner_spec l;
  l.optimizer = c.learner.optimizer;
  l.loss = c.learner.loss;
  l.temperature = c.sampling.temperature;
  l.micro_batch = int32_t(c.learner.micro_batch);
  l.updates_per_step = int32_t(c.learner.updates_per_step);
  l.autocast_bf16 = c.learner.autocast_bf16;
  l.replicas = c.learner.replicas;
  return l;
}

result<bool> check_device(const pipeline_config& c) {
  if (!kind_traits(c.policy.kind).trains_model) return true;
  auto d = parse_device(c.policy.device);
  if (!d) return error{"model.device: " + d.err().message};
  if (!c.learner.device.empty())
    if (auto l = parse_device(c.learner.device); !l)
      return error{"learner.device: " + l.err().message};
  return true;
}

result<bool> check_server(const pipeline_config& c) {
  if (c.policy.kind != kind_named("server") || !c.server.launch.empty()) return true;
  auto codec = run_codec(c);
  if (!codec) return codec.err();
  auto s = server_config_of(c, **codec);
  if (!s) return s.err();
  auto transport = make_http_transport(c.server.url);
  if (!transport) return transport.err();
  return probe_server(*s, **transport, c.server.start_timeout);
}

result<engine_factories> run_engines(const pipeline_config& c, prompt_table_ptr prompts,
                                     std::ostream& log, const replica_join_watch& join) {
  register_torch_engines();
  engine_request r;
  r.config = &c;
  r.prompts = std::move(prompts);
  r.join = join;
  if (kind_traits(c.policy.kind).sft_warm_start()) {
    auto base = base_checkpoint(c, log, join.stop);
    if (!base) return base.err();
    r.base = *base;
  }
  return engines_for(r);
}

}  // namespace adarl
