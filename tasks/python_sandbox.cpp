// The python sandbox after fork. Three processes: the supervisor (child of the caller,
// in the caller's PID namespace), the target it kills on timeout, and the interpreter.
// With a new PID namespace the target is a minimal init (PID 1) whose child is the
// interpreter, so python keeps ordinary signal semantics and the init's death takes
// every process of the namespace with it; without one, the target is the interpreter,
// leading its own process group. The target, before it becomes either, enters the
// private root (python_sandbox_root.cpp) and drops root. Only async-signal-safe calls
// from here on.
#include "tasks/python_sandbox.hpp"

#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace adarl::sandbox {

namespace {

/// Poll period of the supervisor where pidfd_open is unavailable (kernel < 5.3).
constexpr int waitpid_poll_ms = 1;

void send_msg(char tag, uint32_t payload) {
  char buf[5] = {tag};
  std::memcpy(buf + 1, &payload, sizeof payload);
  [[maybe_unused]] const ssize_t n = ::write(fd_status, buf, sizeof buf);
}

[[noreturn]] void fail(int code) {
  send_msg(msg_setup_failed, static_cast<uint32_t>(errno));
  _exit(code);
}

int64_t monotonic_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

void close_from(int first) {
#ifdef SYS_close_range
  if (::syscall(SYS_close_range, first, ~0U, 0) == 0) return;
#endif
  rlimit r{};
  int last = 65536;
  if (getrlimit(RLIMIT_NOFILE, &r) == 0 && r.rlim_cur < static_cast<rlim_t>(last)) {
    last = static_cast<int>(r.rlim_cur);
  }
  for (int fd = first; fd < last; ++fd) close(fd);
}

/// fork() without the atfork handlers, which may wait on locks held by threads of the
/// caller that do not exist in this process.
pid_t raw_fork() {
  return static_cast<pid_t>(::syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0));
}

/// Default dispositions and an empty mask: the caller's handlers mean nothing here
/// (and an inherited SIG_IGN for SIGCHLD would break waitpid).
void reset_signals() {
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  for (int sig = 1; sig < NSIG; ++sig) {
    if (sig != SIGKILL && sig != SIGSTOP) sigaction(sig, &dfl, nullptr);
  }
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
}

/// Sets a limit, lowered to the current hard limit: raising a hard limit needs
/// CAP_SYS_RESOURCE, which even root may lack (in containers).
bool set_limit(int resource, rlimit wanted) {
  rlimit now{};
  if (getrlimit(resource, &now) != 0) return false;
  if (now.rlim_max != RLIM_INFINITY) {
    if (wanted.rlim_max == RLIM_INFINITY || wanted.rlim_max > now.rlim_max) {
      wanted.rlim_max = now.rlim_max;
    }
    if (wanted.rlim_cur == RLIM_INFINITY || wanted.rlim_cur > wanted.rlim_max) {
      wanted.rlim_cur = wanted.rlim_max;
    }
  }
  return setrlimit(resource, &wanted) == 0;
}

[[noreturn]] void exec_interpreter(const plan& p) {
  if (!set_limit(RLIMIT_CPU, p.cpu) || !set_limit(RLIMIT_AS, p.as) ||
      !set_limit(RLIMIT_FSIZE, p.fsize) || !set_limit(RLIMIT_NOFILE, p.nofile) ||
      !set_limit(RLIMIT_CORE, {0, 0}) || prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 ||
      prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || chdir("/") != 0) {
    fail(126);
  }
  execve(p.path, p.argv, p.envp);
  send_msg(msg_exec_failed, static_cast<uint32_t>(errno));
  _exit(127);
}

/// PID 1 of the new namespace: forks the interpreter, reaps orphans, and reports the
/// interpreter's status; its exit then kills what the interpreter left behind.
[[noreturn]] void run_init(const plan& p) {
  if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) fail(126);
  const pid_t child = raw_fork();
  if (child < 0) fail(126);
  if (child == 0) exec_interpreter(p);
  close(0);
  close(1);
  close(2);
  while (true) {
    int status = 0;
    const pid_t r = waitpid(-1, &status, 0);
    if (r == child) {
      send_msg(msg_wait_status, static_cast<uint32_t>(status));
      _exit(0);
    }
    if (r < 0 && errno != EINTR) _exit(126);
  }
}

/// Writes `text` to the file at `path`; false (errno set) if it did not all go.
bool write_file(const char* path, const char* text) {
  const int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const size_t n = std::strlen(text);
  const ssize_t k = write(fd, text, n);
  const int saved = k < 0 ? errno : EIO;  // a short write has no errno of its own
  close(fd);
  errno = saved;
  return k == static_cast<ssize_t>(n);
}

/// Maps the caller's ids into the new user namespace (each to itself, so the program
/// holds no capability), which the private root needs to create its mount points.
/// Returns 0 or errno.
int write_id_maps(const plan& p) {
  if (!write_file("/proc/self/uid_map", p.uid_map) ||
      !write_file("/proc/self/setgroups", "deny") ||
      !write_file("/proc/self/gid_map", p.gid_map)) {
    return errno != 0 ? errno : EIO;
  }
  return 0;
}

/// The supervisor's namespaces, which the target inherits: as root, PID and network
/// ones (the target drops root); otherwise a user namespace with them (and its id maps
/// when a private root is wanted; `map_errno` is set if they could not be written).
uint32_t isolate_supervisor(const plan& p, int& map_errno) {
  uint32_t flags = 0;
  if (!p.use_namespaces) return flags;
  if (geteuid() == 0) {
    if (unshare(CLONE_NEWPID | CLONE_NEWNET) == 0) {
      flags |= iso_pid | iso_net;
    } else {
      if (unshare(CLONE_NEWNET) == 0) flags |= iso_net;
      if (unshare(CLONE_NEWPID) == 0) flags |= iso_pid;
    }
    return flags;
  }
  if (unshare(CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET) == 0) {
    flags |= iso_user | iso_pid | iso_net;
  } else if (unshare(CLONE_NEWUSER | CLONE_NEWNET) == 0) {
    flags |= iso_user | iso_net;
  }
  if ((flags & iso_user) && p.root != nullptr) map_errno = write_id_maps(p);
  return flags;
}

/// The target's isolation: the private root (a failure is reported, not fatal), then,
/// when root, the sandbox ids and a user namespace; then RLIMIT_NPROC. The iso_* flags
/// obtained, or -1 (errno set) when root could not drop its privileges or the old root
/// stayed attached.
int64_t isolate_target(const plan& p, uint32_t outer, int map_errno) {
  uint32_t flags = 0;
  if (p.use_namespaces && p.root != nullptr) {
    if (map_errno != 0) {
      send_msg(msg_no_root, root_step_id_map << 16 | static_cast<uint32_t>(map_errno));
    } else {
      const root_outcome r = enter_private_root(p, (outer & iso_pid) != 0);
      if (r.fatal) return -1;
      if (r.flags == 0) send_msg(msg_no_root, r.failure);
      flags |= r.flags;
    }
  }
  if (geteuid() == 0) {
    // RLIMIT_NPROC is as high as allowed while the user namespace is created: the
    // kernel then bounds the count of all processes of the sandbox uid by that, and
    // the count within this namespace by the limit set below, so concurrent runs, one
    // of them a fork bomb, do not starve each other.
    set_limit(RLIMIT_NPROC, {RLIM_INFINITY, RLIM_INFINITY});
    if (setgroups(0, nullptr) != 0 || setgid(p.gid) != 0 || setuid(p.uid) != 0) return -1;
    flags |= iso_dropped;
    if (p.use_namespaces && unshare(CLONE_NEWUSER) == 0) flags |= iso_user;
  }
  if (!set_limit(RLIMIT_NPROC, p.nproc)) return -1;
  return flags;
}

void kill_target(pid_t target) {
  kill(-target, SIGKILL);  // its process group (without a PID namespace)
  kill(target, SIGKILL);
}

/// Waits for `target` until it exits, the deadline passes or the control pipe closes;
/// kills it in the latter two cases; reaps it. Returns its wait status.
int watch(pid_t target, const plan& p) {
  int pidfd = -1;
#ifdef SYS_pidfd_open
  pidfd = static_cast<int>(::syscall(SYS_pidfd_open, target, 0));
#endif
  bool killed = false, control_open = true;
  while (true) {
    int status = 0;
    const pid_t r = waitpid(target, &status, WNOHANG);
    if (r == target || (r < 0 && errno != EINTR)) return status;
    const int64_t left_ms = (p.deadline_ns - monotonic_ns() + 999'999) / 1'000'000;
    if (!killed && left_ms <= 0) {
      kill_target(target);
      killed = true;
      send_msg(msg_timed_out, 0);
    }
    pollfd fds[2] = {{control_open ? fd_control : -1, POLLIN, 0}, {pidfd, POLLIN, 0}};
    int wait_ms = killed ? -1 : static_cast<int>(left_ms < 60'000 ? left_ms : 60'000);
    if (pidfd < 0) wait_ms = waitpid_poll_ms;
    if (poll(fds, 2, wait_ms) > 0 && fds[0].revents != 0) {
      control_open = false;  // the caller closed it (output cap) or died
      if (!killed) kill_target(target);
      killed = true;
    }
  }
}

/// Without a PID namespace: kills and reaps what the run left behind. The supervisor is
/// a child subreaper, so orphans of the run, setsid escapes included, became its
/// children; it kills those listed in /proc until none is left (where /proc lacks the
/// list, it reaps what already died).
void kill_descendants() {
  while (true) {
    while (waitpid(-1, nullptr, WNOHANG) > 0) {
    }
    char buf[4096];
    const int fd = open("/proc/thread-self/children", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    const ssize_t n = read(fd, buf, sizeof buf);
    close(fd);
    if (n <= 0) return;
    pid_t pid = 0;
    for (ssize_t i = 0; i <= n; ++i) {
      if (i < n && buf[i] >= '0' && buf[i] <= '9') {
        pid = pid * 10 + (buf[i] - '0');
      } else if (pid > 0) {
        kill(-pid, SIGKILL);
        kill(pid, SIGKILL);
        pid = 0;
      }
    }
    if (waitpid(-1, nullptr, 0) < 0 && errno == ECHILD) return;
  }
}

/// The target, after the supervisor's fork: its own process group, which kill_target
/// signals; the private root and the sandbox ids; then the init or the interpreter.
[[noreturn]] void run_target(const plan& p, uint32_t outer, int map_errno) {
  close(fd_control);
  setpgid(0, 0);
  if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) fail(126);  // setuid clears it: set again
  const int64_t flags = isolate_target(p, outer, map_errno);
  if (flags < 0) fail(126);
  send_msg(msg_isolation, static_cast<uint32_t>(flags));
  if (!p.exec) _exit(0);
  if (outer & iso_pid) run_init(p);
  exec_interpreter(p);
}

}  // namespace

void run_supervisor(const plan& p, const int (&fds)[5]) {
  int moved[5];
  for (int i = 0; i < 5; ++i) {
    moved[i] = fcntl(fds[i], F_DUPFD, 10);  // above 0..4, so no dup2 below clobbers
    if (moved[i] < 0) _exit(125);
  }
  for (int i = 0; i < 5; ++i) {
    if (dup2(moved[i], i) < 0) _exit(125);
  }
  close_from(5);
  fcntl(fd_status, F_SETFD, FD_CLOEXEC);
  reset_signals();
  setpgid(0, 0);
  int map_errno = 0;
  const uint32_t flags = isolate_supervisor(p, map_errno);
  // The supervisor and the init are copies of the caller's memory: not dumpable, so
  // the program can neither ptrace them nor read their /proc files. (After writing
  // the id maps: a process that is not dumpable may not write its own.)
  if (prctl(PR_SET_DUMPABLE, 0) != 0 || prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) fail(126);
  if (getppid() != p.caller) _exit(126);  // the caller died before PDEATHSIG was set
  send_msg(msg_isolation, flags);
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  const pid_t target = raw_fork();
  if (target < 0) fail(126);
  if (target == 0) run_target(p, flags, map_errno);
  // Only the interpreter may hold the output pipes, so that its exit means EOF.
  close(0);
  close(1);
  close(2);
  const int status = watch(target, p);
  if (!(flags & iso_pid)) {
    kill_descendants();
    send_msg(msg_wait_status, static_cast<uint32_t>(status));
  }
  _exit(0);
}

}  // namespace adarl::sandbox
