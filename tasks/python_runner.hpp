#pragma once
// Running a Python program in the sandbox: rlimits, namespaces, time and output limits.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace adarl {

namespace sandbox {
class root_layout;
}

/// Settings of the python sandbox. Each rlimit is lowered to the caller's hard limit
/// where that is lower (raising one needs CAP_SYS_RESOURCE, which root in a container
/// may lack).
struct python_config {
  /// Interpreter; empty = /usr/bin/python3 if executable, else python3 on PATH
  /// (/usr/bin first: version-manager shims on PATH are scripts that need the caller's
  /// environment and home directory, which the sandbox does not give them).
  std::string interpreter;
  /// Wall clock per run, start to exit; RLIMIT_CPU is this rounded up to seconds, + 1.
  std::chrono::milliseconds timeout{2000};
  uint64_t memory_bytes = 256ull << 20;  ///< RLIMIT_AS (address space).
  uint64_t file_bytes = 0;               ///< RLIMIT_FSIZE: no file writes.
  uint32_t open_files = 32;              ///< RLIMIT_NOFILE.
  /// RLIMIT_NPROC: processes and threads. Counted per run when the run gets its own user
  /// namespace; otherwise per user id, shared by concurrent runs (see isolation).
  uint32_t processes = 32;
  size_t output_bytes = 64u << 10;    ///< Cap on each of stdout and stderr.
  size_t max_program_bytes = 100000;  ///< Longer programs are refused (argv limit).
  /// When running as root: the ids the program runs under (nobody).
  uint32_t sandbox_uid = 65534;
  uint32_t sandbox_gid = 65534;
  bool use_namespaces = true;  ///< Try PID, network, user and mount namespaces.
  /// With use_namespaces: give the program a private root (see python_isolation).
  bool private_root = true;
  /// Size of the private root's /tmp (a tmpfs: kernel memory, outside memory_bytes;
  /// at least a page). file_bytes still caps each file written there.
  uint64_t tmp_bytes = 16ull << 20;
};

/// The isolation a run obtained (rlimits and the process group always apply).
struct python_isolation {
  bool pid_namespace = false;   ///< Own PID namespace: its death kills every descendant.
  bool net_namespace = false;   ///< Own network namespace: no network.
  bool user_namespace = false;  ///< Own user namespace: RLIMIT_NPROC counted per run.
  bool dropped_root = false;    ///< Was root, runs as sandbox_uid/sandbox_gid.
  /// Own mount namespace whose root holds only /usr (and the /bin, /lib... links into
  /// it), /etc/ld.so.cache and /etc/localtime, all read-only, /dev/null, zero, random
  /// and urandom, an empty tmpfs /tmp that dies with the run, and /proc (see
  /// own_proc): no other file of the host or of the run is visible.
  bool private_root = false;
  /// /proc of the run's PID namespace, showing only the program's own processes;
  /// without it /proc is empty.
  bool own_proc = false;
  /// The private root was entered by chroot, pivot_root being refused: the host's
  /// tree stays mounted, out of reach without CAP_SYS_CHROOT (which the program never
  /// holds).
  bool chrooted = false;
  /// Without private_root: why, e.g. "mount namespace: Operation not permitted".
  std::string root_problem;
  /// E.g. "pid+net+user+mount namespaces, private read-only root with its own /proc,
  /// root dropped to the sandbox uid, rlimits, own process group", or with "host
  /// filesystem visible (why)" in place of the root.
  std::string describe() const;
};

/// How a run ended.
enum class python_status {
  exited,             ///< Exited by itself (see exit_code).
  timeout,            ///< Killed at the wall-clock timeout (or by RLIMIT_CPU's SIGXCPU).
  signaled,           ///< Killed by a signal (see term_signal).
  memory_limit,       ///< Failed with MemoryError (best effort; RLIMIT_AS is the cause).
  output_limit,       ///< Wrote more than output_bytes to stdout or stderr; killed.
  unavailable,        ///< No interpreter, or it could not be executed.
  program_too_large,  ///< Program over max_program_bytes or holding a NUL byte.
  sandbox_error,      ///< The sandbox could not be set up (fork or pipes failed).
};

/// A stable lower-case name: "exited", "timeout", ...
std::string_view to_string(python_status s);

/// The outcome of one run.
struct python_run {
  python_status status = python_status::sandbox_error;
  int exit_code = -1;   ///< With status exited or memory_limit; -1 otherwise.
  int term_signal = 0;  ///< With status signaled (or timeout by RLIMIT_CPU).
  std::string out;      ///< Captured stdout, at most output_bytes.
  std::string err;      ///< Captured stderr, at most output_bytes.
  std::chrono::milliseconds elapsed{0};
  python_isolation isolation;  ///< What this run obtained.
  std::string detail;          ///< Why, for unavailable and sandbox_error.
};

/// Runs Python programs in a subprocess sandbox.
///
/// Each run forks a supervisor (tasks/python_sandbox.cpp), which takes its own process
/// group and, where the kernel allows, new namespaces: as root, PID and network
/// namespaces; otherwise a user namespace with PID and network ones; else none. It then
/// forks the target, which enters a new mount namespace with the private root
/// (tasks/python_sandbox_root.cpp; where refused, the run goes on with the host's
/// filesystem and isolation says why) and, as root, drops to sandbox_uid/sandbox_gid
/// and adds a user namespace (so RLIMIT_NPROC counts this run's processes only). With a
/// PID namespace the target is a minimal init whose child is the interpreter (the
/// init's death kills every process of the namespace: fork bombs, setsid escapes),
/// else the interpreter itself, as a process-group leader, with the supervisor as
/// child subreaper killing any orphan left. The supervisor and the init are not
/// dumpable (the program cannot read their memory, a copy of the caller's). The
/// interpreter gets the rlimits (CPU, address space, file size, open files, processes,
/// no core), a parent-death signal and no_new_privs, keeps only stdin, stdout and
/// stderr, and execs `python3 -I -S -B -c program` with a minimal environment in /. The
/// supervisor kills the target at the wall-clock deadline, or when the caller closes the
/// control pipe because output passed the cap, and reaps it; the caller drains the pipes
/// and reaps the supervisor (killing it one second after the deadline should it hang), so
/// no zombie is left.
///
/// Limits of the fallbacks: without a user namespace, RLIMIT_NPROC counts every process
/// of the uid, so a fork bomb in one run can make concurrent runs fail (sandbox_error);
/// without a network namespace the program has the network; without a private root it
/// reads whatever the uid may read on the host; without a PID namespace
/// and without /proc/thread-self/children, an orphan that left the process group lives
/// on.
///
/// Thread-safe: run is const and may be called concurrently (descriptors are
/// close-on-exec and closed in the supervisor). Blocks for at most timeout plus a few
/// milliseconds (plus one second if the supervisor hangs). Never throws except
/// std::bad_alloc.
class python_runner {
 public:
  /// Looks up the interpreter (config.interpreter or the default search).
  explicit python_runner(python_config config = {});

  /// True when an interpreter was found.
  bool available() const { return !interpreter_.empty(); }
  /// Path of the interpreter; empty when unavailable.
  const std::string& interpreter() const { return interpreter_; }
  const python_config& config() const { return config_; }

  /// Runs `program` with `input` on stdin. Blocks until it ends or is killed.
  python_run run(std::string_view program, std::string_view input) const;

  /// The isolation a run gets here, found by setting up a sandbox that exits instead of
  /// executing the interpreter. Blocks ~1-2 ms.
  python_isolation probe_isolation() const;

 private:
  /// The python_isolation of iso_* `flags` and a msg_no_root payload (0: none).
  python_isolation isolation_of(uint32_t flags, uint32_t no_root) const;

  python_config config_;
  std::string interpreter_;
  std::string exec_path_;  ///< interpreter_ with its links resolved (they may lead
                           ///< through /etc, which the private root lacks).
  std::shared_ptr<const sandbox::root_layout> root_;  ///< Null when unavailable.
};

/// The default interpreter search (see python_config::interpreter); empty if none.
std::string find_python3();

}  // namespace adarl
