#include "pipelines/pipeline.hpp"

#include <caf/all.hpp>

#include <algorithm>

#include "engines/sim/sim_engines.hpp"
#include "pipelines/engine_registry.hpp"
#include "pipelines/pipeline_handle.hpp"

namespace adarl {

namespace {

struct pipeline_system_config : caf::actor_system_config {
  explicit pipeline_system_config(uint32_t threads) {
    set("scheduler.max-threads", static_cast<size_t>(std::max<uint32_t>(threads, 1)));
    // The actors log through their supervisor; CAF's own console output stays quiet.
    set("logger.console", caf::atom("none"));
  }
};

}  // namespace

result<std::unique_ptr<generation_engine>> sim_engine_of(const engine_spec& spec) {
  auto tok = tokenizer::from_charset(tokenizer::default_charset());
  if (!tok) return tok.err();
  return make_sim_generator(spec.world, spec.latency, *tok);
}

engine_factories sim_factories(const pipeline_config& c, prompt_table_ptr prompts) {
  auto spec = std::make_shared<const engine_spec>(run_engine_spec(c, *prompts));
  engine_factories f;
  f.generator = [spec](uint32_t) { return sim_engine_of(*spec); };
  f.learner = [spec, updates = c.learner.updates_per_step]()
      -> result<std::unique_ptr<learner_engine>> {
    return make_sim_learner(spec->world, updates);
  };
  return f;
}

result<run_outcome> run_pipeline(const pipeline_config& c, prompt_table_ptr prompts,
                                 const engine_factories& engines, const run_options& o) {
  pipeline_system_config cfg(c.actors.scheduler_threads);
  caf::actor_system sys{cfg};
  pipeline_components parts;
  parts.engines = engines;
  auto run = start_pipeline(sys, c, std::move(prompts), std::move(parts), o);
  if (!run) return run.err();
  return (*run)->wait();
}

}  // namespace adarl
