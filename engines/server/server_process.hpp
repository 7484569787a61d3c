#pragma once
// An inference server that adarl starts itself (`server.launch`): for a server that loads
// its model only when it starts (llama.cpp's llama-server), each policy version is a
// restart with the new weights. The command is a template: {model} becomes the weights
// file of the version, {version} its name (adarl-vN, which the server must report back:
// llama-server's --alias), {port} the port of server.url. Torch-free and CAF-free.

#include <memory>
#include <string>

#include "base/loopback_port.hpp"  // free_loopback_port: the port of a server to start
#include "base/result.hpp"
#include "engines/server/server_engine.hpp"

namespace adarl {

/// Where scripts/llama_server.sh puts llama-server: $ADARL_LLAMA_SERVER if set, else
/// ${ADARL_LLAMA_PREFIX:-$HOME/.cache/adarl/llama-server}/bin/llama-server (it may not
/// exist).
std::string installed_llama_server();

/// A server process that adarl owns: started with a version's weights, replaced by a
/// restart with the next, stopped (SIGTERM, then SIGKILL after 10 s) when destroyed.
/// Its output is appended to `log_file`. Not thread-safe (the server_link's load lock
/// serialises it).
class server_process {
 public:
  server_process(std::string launch, std::string log_file, double start_timeout);
  ~server_process();
  server_process(const server_process&) = delete;
  server_process& operator=(const server_process&) = delete;

  /// Stops the running process (if any), starts `model` as `version` and waits until
  /// `transport`'s GET /health answers 200. An error names the command, its exit status
  /// when it died, and the last lines of the log.
  result<bool> restart(server_transport& transport, const std::string& model,
                       const std::string& version, int port);
  /// Stops the process (if any): SIGTERM, then SIGKILL after 10 s; `crash`: SIGKILL at
  /// once (what a test of a server that dies does).
  void stop(bool crash = false);
  bool running() const { return pid_ > 0; }

 private:
  std::string launch_, log_;
  double start_timeout_;
  int pid_ = 0;
};

}  // namespace adarl
