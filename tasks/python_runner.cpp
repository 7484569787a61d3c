// The caller's side of the python sandbox (the one place in tasks/ that spawns
// processes); what runs after fork is in python_sandbox.cpp.
#include "tasks/python_runner.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>
#include <vector>

#include "tasks/python_sandbox.hpp"

namespace adarl {

namespace {

using clock_type = std::chrono::steady_clock;

/// How long after the deadline the caller waits for the supervisor (which kills the
/// run at the deadline itself) before it kills the supervisor: a backstop only.
constexpr std::chrono::milliseconds supervisor_grace{1000};
/// Extra time to collect output after the supervisor exits, in case a stray process
/// (possible only without a PID namespace) keeps the pipes open.
constexpr std::chrono::milliseconds drain_grace{100};
/// Poll period for waitpid where pidfd_open is unavailable (kernel < 5.3).
constexpr int waitpid_poll_ms = 1;

/// An owned descriptor.
class unique_fd {
 public:
  unique_fd() = default;
  explicit unique_fd(int fd) : fd_(fd) {}
  unique_fd(const unique_fd&) = delete;
  unique_fd& operator=(const unique_fd&) = delete;
  unique_fd(unique_fd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  unique_fd& operator=(unique_fd&& other) noexcept {
    reset(std::exchange(other.fd_, -1));
    return *this;
  }
  ~unique_fd() { reset(); }
  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  void reset(int fd = -1) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_ = -1;
};

/// The caller's ends of the sandbox's descriptors and the supervisor's pid.
struct spawned {
  pid_t pid = -1;
  unique_fd in, out, err, status, control, pidfd;
  std::string error;  ///< Why spawning failed (pid == -1).
};

spawned spawn(const sandbox::plan& plan) {
  spawned s;
  // stdin is a socket so that writing after the reader is gone fails with EPIPE
  // (MSG_NOSIGNAL) instead of raising a process-wide SIGPIPE.
  int in[2], out[2] = {-1, -1}, err[2] = {-1, -1}, status[2] = {-1, -1},
             control[2] = {-1, -1};
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, in) != 0) {
    s.error = std::string("socketpair: ") + std::strerror(errno);
    return s;
  }
  const bool piped = pipe2(out, O_CLOEXEC) == 0 && pipe2(err, O_CLOEXEC) == 0 &&
                     pipe2(status, O_CLOEXEC) == 0 && pipe2(control, O_CLOEXEC) == 0;
  const int saved_errno = errno;
  s.in.reset(in[0]);
  s.out.reset(out[0]);
  s.err.reset(err[0]);
  s.status.reset(status[0]);
  s.control.reset(control[1]);
  const unique_fd in_child(in[1]), out_child(out[1]), err_child(err[1]),
      status_child(status[1]), control_child(control[0]);
  if (!piped) {
    s.error = std::string("pipe: ") + std::strerror(saved_errno);
    return s;
  }
  const pid_t pid = fork();
  if (pid < 0) {
    s.error = std::string("fork: ") + std::strerror(errno);
    return s;
  }
  if (pid == 0) {
    const int fds[5] = {in_child.get(), out_child.get(), err_child.get(),
                        status_child.get(), control_child.get()};
    sandbox::run_supervisor(plan, fds);
  }
  s.pid = pid;
#ifdef SYS_pidfd_open
  const long pidfd = ::syscall(SYS_pidfd_open, pid, 0);
  if (pidfd >= 0) s.pidfd.reset(static_cast<int>(pidfd));
#endif
  for (const unique_fd* fd : {&s.in, &s.out, &s.err, &s.status}) {
    fcntl(fd->get(), F_SETFL, fcntl(fd->get(), F_GETFL) | O_NONBLOCK);
  }
  return s;
}

/// What the caller gathered from one sandbox.
struct collected {
  bool timed_out = false;
  bool output_over = false;
  std::string out, err, status;
};

/// Reads up to one buffer from `fd` into `dst` (at most `cap` kept); closes on EOF.
/// Returns false when the cap was passed.
bool drain(unique_fd& fd, std::string& dst, size_t cap, char* buf, size_t buf_size) {
  const ssize_t n = ::read(fd.get(), buf, buf_size);
  if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) fd.reset();
  if (n <= 0) return true;
  const size_t keep = std::min(static_cast<size_t>(n), cap - std::min(cap, dst.size()));
  dst.append(buf, keep);
  return keep == static_cast<size_t>(n);
}

/// Writes what the socket takes of input[written..]; closes it when done or broken.
void feed(unique_fd& in, std::string_view input, size_t& written) {
  constexpr size_t chunk = 64 << 10;
  const size_t n = std::min(input.size() - written, chunk);
  const ssize_t k =
      ::send(in.get(), input.data() + written, n, MSG_NOSIGNAL | MSG_DONTWAIT);
  if (k > 0) written += static_cast<size_t>(k);
  if (written == input.size() || (k < 0 && errno != EAGAIN && errno != EINTR)) in.reset();
}

/// Feeds stdin, drains the pipes, closes the control pipe when output passes the cap
/// (the supervisor then kills the run), and reaps the supervisor, killing it if it
/// outlives the deadline by supervisor_grace. Returns once it is reaped and the pipes
/// are closed (or drain_grace after it was reaped).
collected collect(spawned& s, std::string_view input, size_t cap,
                  clock_type::time_point deadline) {
  collected c;
  size_t written = 0;
  if (input.empty()) s.in.reset();
  bool reaped = false, killed = false;
  auto until = deadline + supervisor_grace;
  std::vector<char> buf(64 << 10);
  while (true) {
    const auto now = clock_type::now();
    if (!reaped) {
      int st = 0;
      const pid_t r = waitpid(s.pid, &st, WNOHANG);
      if (r == s.pid || (r < 0 && errno != EINTR)) {
        reaped = true;
        until = now + drain_grace;
        s.pidfd.reset();
      } else if (!killed && now >= until) {
        kill(s.pid, SIGKILL);  // the supervisor is stuck; its children die with it
        killed = c.timed_out = true;
      }
    }
    if (reaped &&
        ((!s.out.valid() && !s.err.valid() && !s.status.valid()) || now >= until)) {
      break;
    }
    pollfd pfds[5];
    nfds_t n = 0;
    const std::pair<const unique_fd*, short> watched[] = {{&s.in, POLLOUT},
                                                          {&s.out, POLLIN},
                                                          {&s.err, POLLIN},
                                                          {&s.status, POLLIN},
                                                          {&s.pidfd, POLLIN}};
    for (const auto& [fd, events] : watched) {
      if (fd->valid()) pfds[n++] = {fd->get(), events, 0};
    }
    auto wait_ms = std::chrono::ceil<std::chrono::milliseconds>(until - now).count();
    if (!reaped && !s.pidfd.valid())
      wait_ms = std::min<int64_t>(wait_ms, waitpid_poll_ms);
    if (killed && !reaped) wait_ms = waitpid_poll_ms;
    if (::poll(pfds, n, static_cast<int>(std::max<int64_t>(wait_ms, 0))) <= 0) continue;
    for (nfds_t i = 0; i < n; ++i) {
      const int fd = pfds[i].fd;
      if (pfds[i].revents == 0) continue;
      if (fd == s.in.get()) {
        feed(s.in, input, written);
      } else if (fd == s.out.get() || fd == s.err.get()) {
        const bool is_out = fd == s.out.get();
        if (!drain(is_out ? s.out : s.err, is_out ? c.out : c.err, cap, buf.data(),
                   buf.size())) {
          c.output_over = true;
          s.control.reset();  // the supervisor kills the run
        }
      } else if (fd == s.status.get()) {
        drain(s.status, c.status, /*cap=*/1024, buf.data(), buf.size());
      }
    }
  }
  return c;
}

/// The messages of a status pipe.
struct status_report {
  bool have_wait = false;
  bool timed_out = false;
  uint32_t isolation = 0;
  uint32_t no_root = 0;  ///< Payload of msg_no_root; 0 if none came.
  int wait_status = 0;
  char failure = 0;  ///< msg_setup_failed or msg_exec_failed; 0 if none.
  int failure_errno = 0;
};

status_report parse_status(std::string_view bytes) {
  status_report r;
  for (; bytes.size() >= 5; bytes.remove_prefix(5)) {
    uint32_t payload = 0;
    std::memcpy(&payload, bytes.data() + 1, sizeof payload);
    switch (bytes[0]) {
      case sandbox::msg_isolation:  // from the supervisor, then from the target
        r.isolation |= payload;
        break;
      case sandbox::msg_no_root:
        r.no_root = payload;
        break;
      case sandbox::msg_timed_out:
        r.timed_out = true;
        break;
      case sandbox::msg_wait_status:
        r.have_wait = true;
        r.wait_status = static_cast<int>(payload);
        break;
      default:
        r.failure = bytes[0];
        r.failure_errno = static_cast<int>(payload);
        break;
    }
  }
  return r;
}

}  // namespace

std::string python_isolation::describe() const {
  std::string ns;
  for (const auto& [on, name] : {std::pair{pid_namespace, "pid"},
                                 {net_namespace, "net"},
                                 {user_namespace, "user"},
                                 {private_root, "mount"}}) {
    if (on) ns += (ns.empty() ? "" : "+") + std::string(name);
  }
  std::string out = ns.empty() ? "" : ns + " namespaces, ";
  if (private_root) {
    out += "private read-only root";
    if (chrooted) out += " (by chroot)";
    out += own_proc ? " with its own /proc, " : ", ";
  } else {
    out += "host filesystem visible";
    out += root_problem.empty() ? ", " : " (" + root_problem + "), ";
  }
  if (dropped_root) out += "root dropped to the sandbox uid, ";
  return out + "rlimits, own process group";
}

std::string_view to_string(python_status s) {
  switch (s) {
    case python_status::exited:
      return "exited";
    case python_status::timeout:
      return "timeout";
    case python_status::signaled:
      return "signaled";
    case python_status::memory_limit:
      return "memory_limit";
    case python_status::output_limit:
      return "output_limit";
    case python_status::unavailable:
      return "unavailable";
    case python_status::program_too_large:
      return "program_too_large";
    case python_status::sandbox_error:
      return "sandbox_error";
  }
  return "unknown";
}

std::string find_python3() {
  constexpr const char* system_python = "/usr/bin/python3";
  auto executable = [](const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
           ::access(path.c_str(), X_OK) == 0;
  };
  if (executable(system_python)) return system_python;
  const char* path = std::getenv("PATH");
  std::string_view dirs = path ? path : "";
  while (!dirs.empty()) {
    const size_t colon = dirs.find(':');
    const std::string_view dir = dirs.substr(0, colon);
    dirs = colon == std::string_view::npos ? std::string_view{} : dirs.substr(colon + 1);
    if (dir.empty()) continue;
    const std::string candidate = std::string(dir) + "/python3";
    if (executable(candidate)) return candidate;
  }
  return "";
}

python_runner::python_runner(python_config config)
    : config_(std::move(config)),
      interpreter_(config_.interpreter.empty() ? find_python3() : config_.interpreter) {
  if (!config_.interpreter.empty() && ::access(interpreter_.c_str(), X_OK) != 0) {
    interpreter_.clear();
  }
  if (interpreter_.empty()) return;
  char* real = ::realpath(interpreter_.c_str(), nullptr);
  exec_path_ = real != nullptr ? real : interpreter_;
  std::free(real);
  if (config_.use_namespaces && config_.private_root) {
    root_ = sandbox::root_layout::make(exec_path_, config_.tmp_bytes);
  }
}

python_isolation python_runner::isolation_of(uint32_t flags, uint32_t no_root) const {
  python_isolation iso{.pid_namespace = (flags & sandbox::iso_pid) != 0,
                       .net_namespace = (flags & sandbox::iso_net) != 0,
                       .user_namespace = (flags & sandbox::iso_user) != 0,
                       .dropped_root = (flags & sandbox::iso_dropped) != 0,
                       .private_root = (flags & sandbox::iso_root) != 0,
                       .own_proc = (flags & sandbox::iso_proc) != 0,
                       .chrooted = (flags & sandbox::iso_chroot) != 0,
                       .root_problem = {}};
  if (iso.private_root) return iso;
  if (!config_.use_namespaces) {
    iso.root_problem = "namespaces disabled";
  } else if (!config_.private_root) {
    iso.root_problem = "private_root disabled";
  } else if (root_ == nullptr) {
    iso.root_problem = "no interpreter";
  } else if (!root_->problem().empty()) {
    iso.root_problem = root_->problem();
  } else if (no_root != 0) {
    iso.root_problem = root_->explain(no_root);
  } else {
    iso.root_problem = "the sandbox did not report it";
  }
  return iso;
}

namespace {

/// The limits and credentials of a run, and argv/envp pointing into `strings`.
sandbox::plan make_plan(const python_config& cfg, const sandbox::root_layout* root,
                        std::vector<std::string>& strings, std::vector<char*>& ptrs,
                        bool exec) {
  sandbox::plan p;
  if (root != nullptr && root->problem().empty()) p.root = root;
  std::snprintf(p.uid_map, sizeof p.uid_map, "%u %u 1\n", getuid(), getuid());
  std::snprintf(p.gid_map, sizeof p.gid_map, "%u %u 1\n", getgid(), getgid());
  const auto secs = std::chrono::ceil<std::chrono::seconds>(cfg.timeout).count();
  const auto cpu = static_cast<rlim_t>(std::max<int64_t>(secs, 1) + 1);
  p.cpu = {cpu, cpu + 1};
  p.as = {static_cast<rlim_t>(cfg.memory_bytes), static_cast<rlim_t>(cfg.memory_bytes)};
  p.fsize = {static_cast<rlim_t>(cfg.file_bytes), static_cast<rlim_t>(cfg.file_bytes)};
  p.nofile = {cfg.open_files, cfg.open_files};
  p.nproc = {cfg.processes, cfg.processes};
  p.uid = cfg.sandbox_uid;
  p.gid = cfg.sandbox_gid;
  p.use_namespaces = cfg.use_namespaces;
  p.exec = exec;
  p.caller = getpid();
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  const auto timeout_ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(cfg.timeout);
  p.deadline_ns = int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec + timeout_ns.count();
  // strings: interpreter, its arguments, then the environment; ptrs: argv, nullptr,
  // envp, nullptr. `strings` is complete before pointers into it are taken.
  const size_t argc = strings.size() - 3;
  for (size_t i = 0; i < strings.size(); ++i) {
    ptrs.push_back(strings[i].data());
    if (i + 1 == argc) ptrs.push_back(nullptr);
  }
  ptrs.push_back(nullptr);
  p.path = strings[0].c_str();  // the resolved path: it exists in the private root
  p.argv = ptrs.data();
  p.envp = ptrs.data() + argc + 1;
  return p;
}

std::vector<std::string> command_line(const std::string& interpreter,
                                      std::string_view program) {
  // Three environment entries last (make_plan relies on the count); -I ignores PYTHON*
  // variables, the user site and the script directory; -S skips site; -B writes no
  // bytecode.
  return {interpreter,
          "-I",
          "-S",
          "-B",
          "-c",
          std::string(program),
          "PATH=/usr/bin:/bin",
          "LC_ALL=C.UTF-8",
          "HOME=/"};
}

}  // namespace

python_run python_runner::run(std::string_view program, std::string_view input) const {
  const auto start = clock_type::now();
  python_run r;
  if (!available()) {
    r.status = python_status::unavailable;
    r.detail = "no python3 (looked at /usr/bin/python3 and PATH)";
    return r;
  }
  if (program.size() > config_.max_program_bytes ||
      program.find('\0') != std::string_view::npos) {
    r.status = python_status::program_too_large;
    r.detail = "program over " + std::to_string(config_.max_program_bytes) +
               " bytes or holding a NUL byte";
    return r;
  }
  std::vector<std::string> strings = command_line(exec_path_, program);
  std::vector<char*> ptrs;
  const sandbox::plan plan =
      make_plan(config_, root_.get(), strings, ptrs, /*exec=*/true);
  spawned s = spawn(plan);
  if (s.pid < 0) {
    r.status = python_status::sandbox_error;
    r.detail = s.error;
    return r;
  }
  collected c = collect(s, input, config_.output_bytes, start + config_.timeout);
  const status_report rep = parse_status(c.status);
  r.out = std::move(c.out);
  r.err = std::move(c.err);
  r.isolation = isolation_of(rep.isolation, rep.no_root);
  r.elapsed =
      std::chrono::duration_cast<std::chrono::milliseconds>(clock_type::now() - start);
  if (rep.failure == sandbox::msg_exec_failed) {
    r.status = python_status::unavailable;
    r.detail = "cannot execute " + interpreter_ + ": " + std::strerror(rep.failure_errno);
  } else if (rep.failure != 0) {
    r.status = python_status::sandbox_error;
    r.detail = std::string("sandbox setup failed: ") + std::strerror(rep.failure_errno);
  } else if (rep.timed_out || c.timed_out) {
    r.status = python_status::timeout;
  } else if (c.output_over) {
    r.status = python_status::output_limit;
  } else if (rep.have_wait && WIFEXITED(rep.wait_status)) {
    r.exit_code = WEXITSTATUS(rep.wait_status);
    const bool oom = r.exit_code != 0 && r.err.find("MemoryError") != std::string::npos;
    r.status = oom ? python_status::memory_limit : python_status::exited;
  } else if (rep.have_wait && WIFSIGNALED(rep.wait_status)) {
    r.term_signal = WTERMSIG(rep.wait_status);
    r.status =
        r.term_signal == SIGXCPU ? python_status::timeout : python_status::signaled;
  } else {
    r.status = python_status::sandbox_error;
    r.detail = "the sandbox supervisor ended without reporting";
  }
  return r;
}

python_isolation python_runner::probe_isolation() const {
  std::vector<std::string> strings = command_line(exec_path_, "");
  std::vector<char*> ptrs;
  const sandbox::plan plan =
      make_plan(config_, root_.get(), strings, ptrs, /*exec=*/false);
  spawned s = spawn(plan);
  if (s.pid < 0) return {};
  const collected c =
      collect(s, "", /*cap=*/0, clock_type::now() + std::chrono::seconds(1));
  const status_report rep = parse_status(c.status);
  return isolation_of(rep.isolation, rep.no_root);
}

}  // namespace adarl
