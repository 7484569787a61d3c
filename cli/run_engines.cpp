#include "cli/run_engines.hpp"

#include <ostream>

#include "models/checkpoint.hpp"
#include "models/device.hpp"
#include "models/sim_engines.hpp"
#include "models/torch_engines.hpp"
#include "cli/run_tasks.hpp"
#include "cli/sft_job.hpp"

namespace adarl {

result<std::string> base_checkpoint(const pipeline_config& c, std::ostream& log) {
  if (!c.policy.base_checkpoint.empty()) return c.policy.base_checkpoint;
  const std::string dir = "runs/sft-cache/" + sft_cache_key(c);
  if (read_checkpoint_meta(dir)) {
    log << "run: SFT warm start from the cache " << dir << "\n";
    return dir;
  }
  sft_job_config s;
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
  auto r = run_sft_job(s, log);
  if (!r) return r.err();
  log << "run: SFT loss " << r->loss_before << " -> " << r->loss_after << "\n";
  return dir;
}

engine_factories torch_factories(const pipeline_config& c, const std::string& base) {
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
  torch_learner_config l;
  l.policy = policy;
  l.policy.threads = c.actors.learner_threads;
  l.optimizer = c.learner.optimizer;
  l.loss = c.learner.loss;
  l.temperature = c.sampling.temperature;
  l.micro_batch = int32_t(c.learner.micro_batch);
  engine_factories f;
  f.generator = [g](uint32_t) { return make_torch_generator(g); };
  f.learner = [l] { return make_torch_learner(l); };
  return f;
}

result<std::unique_ptr<generation_engine>> engine_from_spec(const engine_spec& spec,
                                                            const std::string& device,
                                                            int32_t threads) {
  if (spec.kind == engine_spec::engine_kind::simulated) return sim_engine_of(spec);
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
  return true;
}

result<engine_factories> run_engines(const pipeline_config& c, prompt_table_ptr prompts,
                                     std::ostream& log) {
  if (c.policy.kind == policy_kind::simulated) return sim_factories(c, prompts);
  auto base = base_checkpoint(c, log);
  if (!base) return base.err();
  return torch_factories(c, *base);
}

}  // namespace adarl
