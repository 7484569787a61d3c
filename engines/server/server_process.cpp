#include "engines/server/server_process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <thread>

extern char** environ;

namespace adarl {

namespace {

/// The last `n` lines of `path` ("" when it cannot be read).
std::string tail_of(const std::string& path, size_t n) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    lines.push_back(line);
    if (lines.size() > n) lines.erase(lines.begin());
  }
  std::string out;
  for (const auto& l : lines) out += "  " + l + "\n";
  return out;
}

}  // namespace

std::string installed_llama_server() {
  if (const char* p = std::getenv("ADARL_LLAMA_SERVER"); p && *p) return p;
  if (const char* p = std::getenv("ADARL_LLAMA_PREFIX"); p && *p)
    return std::string(p) + "/bin/llama-server";
  const char* home = std::getenv("HOME");
  return std::string(home ? home : "") + "/.cache/adarl/llama-server/bin/llama-server";
}

server_process::server_process(std::string launch, std::string log_file,
                               double start_timeout)
    : launch_(std::move(launch)),
      log_(std::move(log_file)),
      start_timeout_(start_timeout) {}

server_process::~server_process() {
  stop();
}

void server_process::stop(bool crash) {
  if (pid_ <= 0) return;
  ::kill(pid_, crash ? SIGKILL : SIGTERM);
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (::waitpid(pid_, nullptr, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > end) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  pid_ = 0;
}

result<bool> server_process::restart(server_transport& transport,
                                     const std::string& model, const std::string& version,
                                     int port) {
  stop();
  auto args = launch_arguments(launch_, model, version, port);
  if (!args) return args.err();
  std::vector<char*> argv;
  for (auto& a : *args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log_.c_str(),
                                   O_WRONLY | O_CREAT | O_APPEND, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0)
    return error{"server.launch: cannot start " + (*args)[0] + ": " + std::strerror(rc)};
  pid_ = pid;
  const auto end =
      std::chrono::steady_clock::now() + std::chrono::duration<double>(start_timeout_);
  while (std::chrono::steady_clock::now() < end) {
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = 0;
      return error{"server.launch: " + (*args)[0] + " exited (status " +
                   std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) +
                   ") before answering /health; the end of " + log_ + ":\n" +
                   tail_of(log_, 8)};
    }
    auto r = transport.send({"/health", std::nullopt}, 2.0);
    if (r && r->status == 200) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  stop();
  return error{"server.launch: " + (*args)[0] + " did not answer /health within " +
               std::to_string(int(start_timeout_)) + " s; the end of " + log_ + ":\n" +
               tail_of(log_, 8)};
}

}  // namespace adarl
