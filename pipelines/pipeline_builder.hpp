#pragma once
// Building a pipeline in code: a config (pipeline_config, or read from YAML with
// config/pipeline_reader.hpp) and the caller's components, started in the caller's
// actor system. The one-stop entry point of a program that embeds adarl.

#include <caf/fwd.hpp>

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "actors/prompt_table.hpp"
#include "actors/run_observer.hpp"
#include "base/result.hpp"
#include "pipelines/pipeline.hpp"
#include "pipelines/pipeline_config.hpp"
#include "pipelines/pipeline_handle.hpp"
#include "pipelines/task_source.hpp"
#include "tasks/verifier.hpp"
#include "tasks/verifier_registry.hpp"

namespace adarl {

/// A reward rule as a C++ callable: scores `completion` (the policy's text) for `item`.
/// Must be thread-safe (verifiers score batches in parallel) and quick; a throw is
/// caught and scored 0 with reason "verifier_error"; a zero reward without a reason
/// gets "wrong".
using reward_rule = std::function<verdict(const task_item& item, std::string_view completion)>;

/// A verifier named `name` that scores with `rule` (for verifier_registry::add).
std::unique_ptr<verifier> make_verifier(std::string name, reward_rule rule);

/// Collects a run's config and components, then starts it. Not thread-safe; a builder
/// may start several runs (each with its own `out`).
///
///     pipeline_builder b(config);
///     b.verifier("my_rule", my_rule).tasks(my_tasks).observer(my_observer);
///     auto run = b.start(system);          // actors spawned into `system`
///     auto outcome = (*run)->wait();
class pipeline_builder {
 public:
  /// A builder over `config` (validated already: read_pipeline_config does that).
  explicit pipeline_builder(pipeline_config config);

  /// The items of the run; default: config_tasks (the config's suite or dataset).
  pipeline_builder& tasks(task_source source);
  /// A prompt table built by the caller (its own codec); replaces tasks().
  pipeline_builder& prompts(prompt_table_ptr table);
  /// Adds (or replaces, by name) a named verifier; items name it in task_item::verifier.
  pipeline_builder& verifier(std::unique_ptr<adarl::verifier> v);
  /// The same from a callable (make_verifier).
  pipeline_builder& verifier(std::string name, reward_rule rule);
  /// Verifier actors of the caller's in place of adarl's (pipeline_handle.hpp).
  pipeline_builder& verifier_actors(verifier_factory factory);
  /// The engines (engines/engine.hpp); default: the simulated ones for model.kind
  /// simulated. Either member may be left unset to keep the default for it.
  pipeline_builder& engines(engine_factories factories);
  /// Told of every step line, evaluation and tracker status (actors/run_observer.hpp).
  pipeline_builder& observer(std::shared_ptr<run_observer> observer);
  /// Everything else of run_options (resume_from, stop flag, log stream, logger,
  /// cluster); the observer set above is kept unless `options` carries one.
  pipeline_builder& options(run_options options);

  /// The config as it stands.
  const pipeline_config& config() const { return config_; }
  /// The run's prompts: the table given to prompts(), else the task source's items
  /// tokenized with the character tokenizer in tasks.prompt_format. Errors: the
  /// source's, an unknown verifier name, text the tokenizer cannot express.
  result<prompt_table_ptr> build_prompts() const;
  /// Spawns the run into `sys` (start_pipeline) and returns its handle at once.
  result<std::unique_ptr<pipeline_handle>> start(caf::actor_system& sys) const;

 private:
  pipeline_config config_;
  task_source source_;
  prompt_table_ptr table_;
  std::shared_ptr<verifier_registry> registry_;
  pipeline_components components_;
  run_options options_;
};

}  // namespace adarl
