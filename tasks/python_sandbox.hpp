#pragma once

// Internal to python_runner: the side of the sandbox that runs after fork, and the
// layout of its private root. Only python_runner.cpp, python_sandbox.cpp and
// python_sandbox_root.cpp include this header.

#include <sys/resource.h>
#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

namespace adarl::sandbox {

/// One thing the private root holds, created in this order.
struct root_entry {
  enum class kind : uint8_t {
    dir,          ///< An empty directory.
    bind_dir,     ///< `source`, a host directory, bound read-only, nosuid, nodev.
    bind_file,    ///< `source`, a host file, bound read-only, nosuid, nodev.
    bind_device,  ///< `source`, a host device node, bound read-only (writes still work).
    symlink,      ///< A symbolic link whose text is `source`.
    tmpfs,        ///< An empty tmpfs, nosuid, nodev, noexec; `source`: its options.
  };
  kind what = kind::dir;
  const char* target = nullptr;  ///< Path relative to the new root: "usr", "dev/null".
  const char* source = nullptr;
};

/// The private root: what it holds, and the strings the entries point into. Built once
/// per runner before any fork; immutable after, so runs on any thread may read it.
class root_layout {
 public:
  /// The layout for `interpreter`: /usr and the top-level links or directories of the
  /// host that lead into it (bin, lib, lib64, sbin...), /etc/ld.so.cache and
  /// /etc/localtime, /dev/{null,zero,random,urandom} and the /dev/std* links, an empty
  /// /proc (a fresh one is mounted there in a new PID namespace) and a tmpfs /tmp of
  /// `tmp_bytes` (at least a page). problem() is set when the host lacks /usr or the
  /// interpreter resolves outside the root.
  static std::shared_ptr<const root_layout> make(const std::string& interpreter,
                                                 uint64_t tmp_bytes);

  const std::vector<root_entry>& entries() const { return entries_; }
  const char* staging() const { return staging_; }         ///< Where the root is built.
  const char* options() const { return options_; }         ///< Its tmpfs's options.
  const std::string& problem() const { return problem_; }  ///< Empty when usable.
  /// What a msg_no_root payload means, e.g. "mount namespace: Operation not permitted"
  /// or "/usr: Permission denied" (binding that entry failed).
  std::string explain(uint32_t failure) const;

 private:
  const char* keep(std::string s);  ///< A copy whose address never changes.

  std::deque<std::string> strings_;  // a deque never moves its elements
  std::vector<root_entry> entries_;
  const char* staging_ = nullptr;
  const char* options_ = nullptr;
  std::string problem_;
};

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
  /// The private root to build (with use_namespaces); null: none.
  const root_layout* root = nullptr;
  char uid_map[32] = {};  ///< "uid uid 1\n": maps the caller's ids into a user
  char gid_map[32] = {};  ///< namespace (when not root), so that it may create files.
};

// Messages on the status pipe, from the sandbox to the caller: a tag byte and a 32-bit
// payload; each write is far below PIPE_BUF, hence atomic.
inline constexpr char msg_isolation = 'I';     ///< Payload: iso_* flags (OR of all).
inline constexpr char msg_setup_failed = 'F';  ///< Payload: errno (fork, setuid, ...).
inline constexpr char msg_exec_failed = 'E';   ///< Payload: errno of execve.
inline constexpr char msg_wait_status = 'W';  ///< Payload: the interpreter's wait status.
inline constexpr char msg_timed_out = 'T';    ///< Killed at the deadline.
/// No private root (the run goes on with the host's filesystem). Payload:
/// step << 16 | errno, with a root_step or root_step_entry + the entry's index.
inline constexpr char msg_no_root = 'R';

inline constexpr uint32_t iso_pid = 1, iso_net = 2, iso_user = 4, iso_dropped = 8,
                          iso_root = 16, iso_proc = 32, iso_chroot = 64;

/// Where building the private root failed (msg_no_root).
enum root_step : uint32_t {
  root_step_id_map = 1,     ///< Writing the user namespace's uid_map or gid_map.
  root_step_unshare = 2,    ///< unshare(CLONE_NEWNS).
  root_step_private = 3,    ///< Making the mounts private.
  root_step_staging = 4,    ///< Mounting the tmpfs of the new root.
  root_step_read_only = 5,  ///< Making the new root read-only.
  root_step_pivot = 6,      ///< pivot_root and chroot both refused.
  root_step_entry = 16,     ///< + index of the root_entry that failed.
};

/// Descriptor numbers in the supervisor after it arranged them.
inline constexpr int fd_status = 3;   ///< Write end of the status pipe (close-on-exec).
inline constexpr int fd_control = 4;  ///< Read end of the control pipe: when the caller
                                      ///< closes its end, the supervisor kills the run.

/// The supervisor, run in the child of the caller's fork with `fds` = the interpreter's
/// stdin, stdout, stderr, the status pipe and the control pipe. It isolates itself
/// (process group, PID, network and, when not root, user namespaces), forks the target
/// — in a new PID namespace a minimal init that forks the interpreter, else the
/// interpreter itself — which enters the private root and drops root; the supervisor
/// waits for it, killing it at the deadline or when the control pipe closes; then
/// reaps it and exits. Never returns.
[[noreturn]] void run_supervisor(const plan& p, const int (&fds)[5]);

/// What enter_private_root obtained.
struct root_outcome {
  uint32_t flags = 0;    ///< iso_root, with iso_proc and iso_chroot where they apply.
  uint32_t failure = 0;  ///< Without iso_root: step << 16 | errno, for msg_no_root.
  bool fatal = false;    ///< The old root stayed attached after pivot_root: stop the run.
};

/// In the target, after fork: a new mount namespace whose root is p.root (with a fresh
/// /proc when `with_proc`), entered by pivot_root (chroot where that is refused: the
/// interpreter never holds CAP_SYS_CHROOT, so it cannot leave it). On failure the
/// host's mounts are left as they were (except when fatal). Async-signal-safe.
root_outcome enter_private_root(const plan& p, bool with_proc);

}  // namespace adarl::sandbox
