// `adarl worker learn CONFIG --rank R`: rank R > 0 of a replicated learner of the
// transformer or an HF model (docs/guides/cluster.md "Replicated learners";
// serve_learner_replica, serve_hf_learner_replica). Links LibTorch.
#include <CLI/CLI.hpp>

#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "config/pipeline_reader.hpp"
#include "experiments/run_engines.hpp"
#include "experiments/run_tasks.hpp"
#include "pipelines/engine_registry.hpp"
#include "runtime/interrupt.hpp"

namespace adarl {

namespace {

// Rank `rank` of c's learner, built as rank 0 builds its own (the registry's learner
// rank of the kind), until rank 0 ends the run.
result<uint64_t> serve_rank(const pipeline_config& c, uint32_t rank, int32_t threads,
                            const std::atomic<bool>* stop) {
  std::cout << "worker learn: rank " << rank << " of " << c.learner.replicas.replicas
            << ", joining rank 0's store at " << c.learner.replicas.store << std::endl;
  register_torch_engines();
  return serve_learner_rank(c, rank, threads, stop);
}

}  // namespace

void add_worker_learn_command(CLI::App& worker, int& exit_code) {
  struct args {
    std::string file;
    std::vector<std::string> overrides;
    uint32_t rank = 0;
    std::string store;
    std::string device;
    int32_t threads = 0;
  };
  auto a = std::make_shared<args>();
  auto* cmd = worker.add_subcommand(
      "learn", "Be a learner rank of a run whose learner.replicas is more than 1");
  cmd->add_option("config", a->file, "the run's config file (the coordinator's, or a copy)")
      ->required();
  cmd->add_option("overrides", a->overrides, "key.path=value overrides, as for adarl run");
  cmd->add_option("--rank", a->rank, "this learner's rank, 1 to learner.replicas - 1")
      ->required()
      ->check(CLI::Range(1u, 1023u));
  cmd->add_option("--store,--connect", a->store,
                  "rank 0's TCPStore HOST:PORT (default: the config's learner.store)");
  cmd->add_option("--device", a->device,
                  "this rank's device, cpu or cuda:N (default: learner.device, else model.device)");
  cmd->add_option("--threads", a->threads, "torch threads (default: actors.learner_threads)")
      ->check(CLI::Range(1, 256));
  cmd->callback([a, &exit_code] {
    auto overrides = a->overrides;
    if (!a->store.empty()) overrides.push_back("learner.store=" + a->store);
    if (!a->device.empty()) overrides.push_back("learner.device=" + a->device);
    auto config = load_pipeline_config(a->file, overrides);
    if (!config) {
      std::cerr << config.err().message << "\n";
      exit_code = 2;
      return;
    }
    const pipeline_config& c = *config;
    if (auto ok = check_replicable(c.policy.kind); !ok) {
      std::cerr << "adarl worker learn: " << a->file << ": " << ok.err().message << "\n";
      exit_code = 2;
      return;
    }
    if (auto ok = check_device(c); !ok) {
      std::cerr << a->file << ": " << ok.err().message << "\n";
      exit_code = 2;
      return;
    }
    sigint_guard guard;  // Ctrl-C: stop between steps
    auto r = serve_rank(c, a->rank, a->threads, &sigint_guard::flag());
    if (!r) {
      std::cerr << "adarl worker learn: " << r.err().message << "\n";
      exit_code = 1;
      return;
    }
    std::cout << "worker learn: rank " << a->rank << " done: rank 0 ended the run at version "
              << *r << "\n";
  });
}

}  // namespace adarl
