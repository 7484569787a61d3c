#pragma once
// The parts of a run outside this process, seen from the pipeline: net/config_cluster.hpp
// makes them for the remote verifier and generator workers of a config (ZeroMQ hubs),
// so that pipelines/ knows no sockets. An embedding program may bring its own.

#include <caf/fwd.hpp>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "actors/prompt_table.hpp"
#include "base/result.hpp"
#include "messages/interfaces.hpp"

namespace adarl {

struct pipeline_config;

/// What the pipeline hands the cluster parts while it builds a run.
struct cluster_context {
  caf::actor_system* sys = nullptr;
  const pipeline_config* config = nullptr;
  prompt_table_ptr prompts;
  tracker_actor tracker;
  metrics_actor metrics;
  /// Warnings (losses, refusals) as strings, like the actors' own: "SOURCE: text".
  std::function<void(const std::string&)> warn;
  /// Events worth a line in the log but not on the terminal (a worker joined), the same way.
  std::function<void(const std::string&)> note;
  /// Start-up lines for the user ("remote generators: listening on ...").
  std::function<void(const std::string&)> say;
};

/// Remote parts of one run. Created before the run's generators, closed (sockets and
/// threads ended) before its actors go away. Not thread-safe: the pipeline calls it.
class cluster_parts {
 public:
  virtual ~cluster_parts() = default;
  /// The actors completions go to for scoring: `local` itself, or actors in front of
  /// remote workers with `local` as their fallback. An error ends the run before it
  /// starts (a bad or busy endpoint).
  virtual result<std::vector<verifier_actor>> scorers(const cluster_context& c,
                                                      const std::vector<verifier_actor>& local) = 0;
  /// Generators beside the local ones: actors the learner sends every weights version
  /// to (remote workers join the tracker through them). Results go to `scorers`.
  virtual result<std::vector<generator_actor>> generators(
      const cluster_context& c, const std::vector<verifier_actor>& scorers) = 0;
  /// Ends the remote parts; returns their closing lines (what workers did).
  virtual std::vector<std::string> close() = 0;
};

/// Makes a run's cluster parts (one per run).
using cluster_factory = std::function<std::unique_ptr<cluster_parts>()>;

}  // namespace adarl
