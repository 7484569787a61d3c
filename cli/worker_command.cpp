// `adarl worker verify`: a remote verifier worker (net/verify_worker.hpp).
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>

#include "cli/commands.hpp"
#include "net/curve_key_files.hpp"
#include "net/remote_wire.hpp"
#include "net/verify_worker.hpp"
#include "runtime/interrupt.hpp"

namespace adarl {

CLI::App* add_worker_command(CLI::App& app, int& exit_code) {
  auto* worker = app.add_subcommand(
      "worker", "Serve a run from another process or machine over ZeroMQ");
  auto o = std::make_shared<verify_worker_options>();
  auto* verify = worker->add_subcommand(
      "verify", "Score completions for runs whose actors.remote_verifiers.bind is set");
  verify->add_option("--connect", o->connect, "the run's endpoint, e.g. tcp://host:5557")
      ->required();
  verify->add_option("--name", o->name, "unique worker name (default: host-pid)");
  verify->add_option("--credit", o->credit, "batches in flight to this worker (default 2)")
      ->check(CLI::Range(1u, 1024u));
  verify->add_option("--threads", o->threads, "scoring threads (default 0: all cores)");
  verify->add_option("--heartbeat", o->heartbeat, "seconds between heartbeats (default 0.5)")
      ->check(CLI::PositiveNumber);
  verify->add_option("--timeout", o->timeout,
                     "seconds of coordinator silence before connecting again (default 3)")
      ->check(CLI::PositiveNumber);
  verify->add_option("--server-key", o->server_key,
                     "the run's CURVE public key (Z85): encrypts the link");
  verify->add_option("--keys", o->keys_file,
                     "this worker's CURVE key file (adarl worker keygen), for runs that "
                     "only admit listed workers");
  verify->callback([o, &exit_code] {
    if (o->timeout <= o->heartbeat) {
      std::cerr << "adarl worker verify: --timeout must be more than --heartbeat\n";
      exit_code = 2;
      return;
    }
    sigint_guard guard;  // Ctrl-C: say bye and stop
    const auto registry = verifier_registry::with_builtins();
    auto r = run_verify_worker(*o, registry, sigint_guard::flag(), &std::cerr);
    if (!r) {
      std::cerr << "adarl worker verify: " << r.err().message << "\n";
      exit_code = 2;
    }
  });
  auto out = std::make_shared<std::string>();
  auto* keygen = worker->add_subcommand(
      "keygen", "Write a CURVE key pair (for a run or a worker) and print its public key");
  keygen->add_option("--out", *out, "key file to write (owner-readable only)")->required();
  keygen->callback([out, &exit_code] {
    auto keys = make_curve_keys();
    auto written = keys ? write_curve_keys(*keys, *out) : result<bool>(keys.err());
    if (!written) {
      std::cerr << "adarl worker keygen: " << written.err().message << "\n";
      exit_code = 1;
      return;
    }
    std::cout << keys->public_key << "\n";
  });
  worker->callback([worker, &exit_code] {
    if (worker->get_subcommands().empty()) {
      std::cerr << "adarl worker: expected a subcommand: verify, generate, learn or keygen (see --help)\n";
      exit_code = 2;
    }
  });
  return worker;
}

}  // namespace adarl
