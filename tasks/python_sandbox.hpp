#pragma once

// Internal to python_runner: the side of the sandbox that runs after fork. Only
// python_runner.cpp and python_sandbox.cpp include this header.

#include <sys/resource.h>
#include <sys/types.h>

#include <cstdint>

namespace adarl::sandbox {

/// Everything the sandbox's processes need, prepared by the caller before fork: after
/// fork they call only async-signal-safe system calls (the caller may have threads), so
/// nothing here may allocate.
struct plan {
  const char* path = nullptr;   ///< Interpreter.
  char* const* argv = nullptr;  ///< Null-terminated.
  char* const* envp = nullptr;  ///< Null-terminated.
  rlimit cpu{}, as{}, fsize{}, nofile{}, nproc{};
  uid_t uid = 0;  ///< Ids to drop to when root.
  gid_t gid = 0;
  bool use_namespaces = true;
  bool exec = true;         ///< False: report the isolation and exit (a probe).
  pid_t caller = 0;         ///< To detect the caller's death before PDEATHSIG.
  int64_t deadline_ns = 0;  ///< CLOCK_MONOTONIC time at which the run is killed.
};

// Messages on the status pipe, from the sandbox to the caller: a tag byte and a 32-bit
// payload; each write is far below PIPE_BUF, hence atomic.
inline constexpr char msg_isolation = 'I';     ///< Payload: iso_* flags obtained.
inline constexpr char msg_setup_failed = 'F';  ///< Payload: errno (fork, setuid, ...).
inline constexpr char msg_exec_failed = 'E';   ///< Payload: errno of execve.
inline constexpr char msg_wait_status = 'W';  ///< Payload: the interpreter's wait status.
inline constexpr char msg_timed_out = 'T';    ///< Killed at the deadline.

inline constexpr uint32_t iso_pid = 1, iso_net = 2, iso_user = 4, iso_dropped = 8;

/// Descriptor numbers in the supervisor after it arranged them.
inline constexpr int fd_status = 3;   ///< Write end of the status pipe (close-on-exec).
inline constexpr int fd_control = 4;  ///< Read end of the control pipe: when the caller
                                      ///< closes its end, the supervisor kills the run.

/// The supervisor, run in the child of the caller's fork with `fds` = the interpreter's
/// stdin, stdout, stderr, the status pipe and the control pipe. It isolates itself
/// (process group, namespaces, ids), forks the target — in a new PID namespace a
/// minimal init that forks the interpreter, else the interpreter itself — and waits for
/// it, killing it at the deadline or when the control pipe closes; then reaps it and
/// exits. Never returns.
[[noreturn]] void run_supervisor(const plan& p, const int (&fds)[5]);

}  // namespace adarl::sandbox
