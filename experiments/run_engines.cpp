#include "experiments/run_engines.hpp"

#include <filesystem>
#include <ostream>

#include "engines/sim/sim_engines.hpp"
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

}  // namespace

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

hf_learner_config hf_learner_of(const pipeline_config& c, const text_codec& codec) {
  hf_learner_config l;
  l.policy = hf_policy_of(c);
  l.policy.threads = c.actors.learner_threads;
  if (!c.learner.device.empty()) l.policy.device = c.learner.device;
  static_cast<learner_spec&>(l) = learner_spec_of(c);
  l.pad_id = codec.pad_id();
  return l;
}

engine_factories hf_factories(const pipeline_config& c, const text_codec& codec,
                              const replica_join_watch& join) {
  hf_generator_config g;
  g.policy = hf_policy_of(c);
  g.policy.threads = c.actors.generator_threads;
  g.capacity = c.actors.generator_capacity;
  g.sampling = c.sampling;
  g.end_ids = codec.end_ids();
  const hf_learner_config l = hf_learner_of(c, codec);
  engine_factories f;
  f.generator = [g](uint32_t) { return make_hf_generator(g); };
  f.learner = [l, join] { return make_hf_learner(l, join); };
  return f;
}

engine_factories torch_factories(const pipeline_config& c, const std::string& base,
                                 const replica_join_watch& join) {
  if (c.policy.kind == policy_kind::hf) {
    // The codec's end and pad ids (adarl compare builds engines without a prompt table).
    auto codec = run_codec(c);
    if (!codec) {
      engine_factories f;
      const auto e = codec.err();
      f.generator = [e](uint32_t) -> result<std::unique_ptr<generation_engine>> { return e; };
      f.learner = [e]() -> result<std::unique_ptr<learner_engine>> { return e; };
      return f;
    }
    return hf_factories(c, **codec, join);
  }
  auto tok = *tokenizer::from_charset(tokenizer::default_charset());
  torch_policy_config policy;
  policy.model = c.policy.model;
  policy.model.vocab_size = tok.size();
  policy.charset = tok.charset();
  policy.device = c.policy.device;
  policy.init_checkpoint = base;
  policy.init_seed = c.seed;
  torch_generator_config g;
  g.policy = policy;
  g.policy.threads = c.actors.generator_threads;
  g.capacity = c.actors.generator_capacity;
  g.sampling = c.sampling;
  torch_learner_config l = torch_learner_of(c);
  l.policy.init_checkpoint = base;
  engine_factories f;
  f.generator = [g](uint32_t) { return make_torch_generator(g); };
  f.learner = [l, join] { return make_torch_learner(l, join); };
  return f;
}

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

result<std::unique_ptr<generation_engine>> engine_from_spec(const engine_spec& spec,
                                                            const std::string& device,
                                                            int32_t threads) {
  if (spec.kind == engine_spec::engine_kind::simulated) return sim_engine_of(spec);
  if (spec.kind == engine_spec::engine_kind::hf) {
    hf_generator_config h;
    h.policy.config_json = spec.hf_config;  // weights come from the run as bytes
    h.policy.max_len = spec.max_len;
    h.policy.device = device;
    h.policy.threads = threads;
    h.policy.init_seed = spec.init_seed;
    h.capacity = spec.capacity;
    h.sampling = spec.sampling;
    h.end_ids = spec.end_ids;
    return make_hf_generator(h);
  }
  torch_generator_config g;
  g.policy.model = spec.model;
  g.policy.charset = spec.charset;
  g.policy.device = device;
  g.policy.threads = threads;
  g.policy.init_seed = spec.init_seed;
  g.capacity = spec.capacity;
  g.sampling = spec.sampling;
  return make_torch_generator(g);
}

result<bool> check_device(const pipeline_config& c) {
  if (c.policy.kind == policy_kind::simulated) return true;
  auto d = parse_device(c.policy.device);
  if (!d) return error{"model.device: " + d.err().message};
  if (!c.learner.device.empty())
    if (auto l = parse_device(c.learner.device); !l)
      return error{"learner.device: " + l.err().message};
  return true;
}

result<engine_factories> run_engines(const pipeline_config& c, prompt_table_ptr prompts,
                                     std::ostream& log, const replica_join_watch& join) {
  if (c.policy.kind == policy_kind::simulated) return sim_factories(c, prompts);
  // An HF checkpoint is its own base: no SFT warm start.
  if (c.policy.kind == policy_kind::hf) return hf_factories(c, *prompts->codec, join);
  auto base = base_checkpoint(c, log, join.stop);
  if (!base) return base.err();
  return torch_factories(c, *base, join);
}

}  // namespace adarl
