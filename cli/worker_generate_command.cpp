// `adarl worker generate`: a remote generator worker (net/generate_worker.hpp). Links
// LibTorch: the transformer's engine is built here from the spec the run sends.
#include <CLI/CLI.hpp>

#include <iostream>
#include <memory>

#include "cli/commands.hpp"
#include "experiments/run_engines.hpp"
#include "net/generate_worker.hpp"
#include "runtime/interrupt.hpp"

namespace adarl {

void add_worker_generate_command(CLI::App& worker, int& exit_code) {
  struct args {
    generate_worker_options o;
    int32_t threads = 1;
    std::string device = "cpu";
  };
  auto a = std::make_shared<args>();
  auto* cmd = worker.add_subcommand(
      "generate", "Generate completions for runs whose actors.remote_generators.bind is set");
  cmd->add_option("--connect", a->o.connect, "the run's endpoint, e.g. tcp://host:5558")
      ->required();
  cmd->add_option("--name", a->o.name, "unique worker name (default: host-pid-suffix)");
  cmd->add_option("--threads", a->threads, "torch threads of the engine (default 1)")
      ->check(CLI::Range(1, 256));
  cmd->add_option("--capacity", a->o.capacity,
                  "rows decoded together (default 0: the run's actors.generator_capacity)")
      ->check(CLI::Range(0u, 65536u));
  cmd->add_option("--device", a->device, "cpu or cuda:N (default cpu)");
  cmd->add_option("--heartbeat", a->o.heartbeat, "seconds between heartbeats (default 0.5)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--timeout", a->o.timeout,
                  "seconds of run silence before connecting again (default 10)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--weights-dir", a->o.weights_dir,
                  "where the run's weights.path is mounted here (default: the same path)");
  cmd->add_option("--server-key", a->o.server_key,
                  "the run's CURVE public key (Z85): encrypts the link");
  cmd->add_option("--keys", a->o.keys_file,
                  "this worker's CURVE key file (adarl worker keygen), for runs that only "
                  "admit listed workers");
  cmd->callback([a, &exit_code] {
    if (a->o.timeout <= a->o.heartbeat) {
      std::cerr << "adarl worker generate: --timeout must be more than --heartbeat\n";
      exit_code = 2;
      return;
    }
    register_torch_engines();
    const spec_engine_factory make = [a](const engine_spec& spec) {
      return generator_for_spec(spec, a->device, a->threads);
    };
    sigint_guard guard;  // Ctrl-C: say bye and stop
    auto r = run_generate_worker(a->o, make, sigint_guard::flag(), &std::cerr);
    if (!r) {
      std::cerr << "adarl worker generate: " << r.err().message << "\n";
      exit_code = 2;
    }
  });
}

}  // namespace adarl
