// The python sandbox's private root: its layout, prepared before fork, and its
// construction in the target after fork (async-signal-safe from enter_private_root on).
//
// The target unshares a mount namespace, makes every mount private, mounts a small
// tmpfs on a host directory (the staging point, hidden by it), creates the layout's
// entries there (read-only binds of /usr and of the few host files Python reads, device
// binds, links, an empty tmpfs /tmp, and a fresh /proc in a new PID namespace), makes
// that tmpfs read-only and pivots into it, detaching the host's tree. What the
// interpreter sees is that tree and nothing else.
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "tasks/python_sandbox.hpp"

namespace adarl::sandbox {

namespace {

/// Host directories on which the new root's tmpfs may be mounted (within the new mount
/// namespace only), first existing one wins. Never /usr, /dev or /proc: their contents
/// are bound into the root, from under the staging point's parent.
constexpr const char* staging_candidates[] = {"/tmp", "/mnt", "/srv", "/opt", "/home"};
/// Top-level names that Debian makes links into /usr (merged /usr), or directories on
/// systems that do not.
constexpr const char* top_level[] = {"bin", "sbin", "lib", "lib32", "lib64", "libx32"};
/// Host files Python reads when present: the loader's cache (each library found
/// without searching the default directories) and the time zone.
constexpr const char* etc_files[] = {"/etc/ld.so.cache", "/etc/localtime"};
constexpr const char* devices[] = {"null", "zero", "random", "urandom"};
/// Options of the new root's tmpfs, read-only once built; it only holds mount points.
constexpr const char* root_options = "mode=0755,size=64k,nr_inodes=128";
/// Files in the private /tmp: enough for any test program, bounded for the kernel.
constexpr int tmp_inodes = 1024;

bool is_dir(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

}  // namespace

const char* root_layout::keep(std::string s) {
  return strings_.emplace_back(std::move(s)).c_str();
}

std::shared_ptr<const root_layout> root_layout::make(const std::string& interpreter,
                                                     uint64_t tmp_bytes) {
  auto l = std::make_shared<root_layout>();
  using k = root_entry::kind;
  auto add = [&](k what, std::string target, std::string source = "") {
    const char* t = l->keep(std::move(target));
    l->entries_.push_back(
        {what, t, source.empty() ? nullptr : l->keep(std::move(source))});
  };
  for (const char* dir : staging_candidates) {
    if (is_dir(dir)) {
      l->staging_ = dir;
      break;
    }
  }
  l->options_ = root_options;
  if (l->staging_ == nullptr) l->problem_ = "no host directory to build the root on";
  if (!is_dir("/usr")) l->problem_ = "the host has no /usr";
  add(k::bind_dir, "usr", "/usr");
  std::vector<std::string> roots = {"/usr/"};  // where the interpreter may live
  for (const char* name : top_level) {
    const std::string host = std::string("/") + name;
    struct stat st {};
    if (::lstat(host.c_str(), &st) != 0) continue;
    if (S_ISLNK(st.st_mode)) {
      char text[PATH_MAX];
      const ssize_t n = ::readlink(host.c_str(), text, sizeof text);
      if (n > 0 && static_cast<size_t>(n) < sizeof text) {
        add(k::symlink, name, std::string(text, static_cast<size_t>(n)));
      }
    } else if (S_ISDIR(st.st_mode)) {
      add(k::bind_dir, name, host);
      roots.push_back(host + "/");
    }
  }
  add(k::dir, "etc");
  for (const char* file : etc_files) {
    struct stat st {};
    if (::stat(file, &st) == 0 && S_ISREG(st.st_mode)) add(k::bind_file, file + 1, file);
  }
  add(k::dir, "dev");
  for (const char* dev : devices) {
    const std::string host = std::string("/dev/") + dev;
    struct stat st {};
    if (::stat(host.c_str(), &st) == 0 && S_ISCHR(st.st_mode)) {
      add(k::bind_device, host.substr(1), host);
    }
  }
  // Dangling when the run has no /proc (no PID namespace); harmless then.
  add(k::symlink, "dev/fd", "/proc/self/fd");
  add(k::symlink, "dev/stdin", "/proc/self/fd/0");
  add(k::symlink, "dev/stdout", "/proc/self/fd/1");
  add(k::symlink, "dev/stderr", "/proc/self/fd/2");
  add(k::dir, "proc");
  // tmpfs reads size=0 as "no limit": at least a page.
  const uint64_t tmp_size = tmp_bytes < 4096 ? 4096 : tmp_bytes;
  add(k::tmpfs, "tmp",
      "mode=1777,size=" + std::to_string(tmp_size) +
          ",nr_inodes=" + std::to_string(tmp_inodes));
  char* real = ::realpath(interpreter.c_str(), nullptr);
  const std::string resolved = real != nullptr ? real : interpreter;
  ::free(real);
  bool inside = false;
  for (const std::string& r : roots) inside = inside || resolved.rfind(r, 0) == 0;
  if (!inside && l->problem_.empty()) {
    l->problem_ = "the interpreter " + resolved + " is outside /usr";
  }
  return l;
}

std::string root_layout::explain(uint32_t failure) const {
  const uint32_t step = failure >> 16;
  const int error = static_cast<int>(failure & 0xffff);
  std::string what;
  switch (step) {
    case root_step_id_map:
      what = "user namespace id maps";
      break;
    case root_step_unshare:
      what = "mount namespace";
      break;
    case root_step_private:
      what = error == EINVAL ? "making mounts private (/ is not a mount point: a chroot?)"
                             : "making mounts private";
      break;
    case root_step_staging:
      what = std::string("tmpfs on ") + staging_;
      break;
    case root_step_read_only:
      what = "read-only root";
      break;
    case root_step_pivot:
      what = "pivot_root and chroot";
      break;
    default: {
      const size_t i = step - root_step_entry;
      what = step >= root_step_entry && i < entries_.size()
                 ? std::string("/") + entries_[i].target
                 : "step " + std::to_string(step);
    }
  }
  return what + ": " + std::strerror(error);
}

namespace {

uint32_t failure_code(uint32_t step) {
  return step << 16 | (static_cast<uint32_t>(errno) & 0xffff);
}

/// The MS_* flags of the mount at `path` that a remount must keep: in a user namespace
/// the kernel refuses to clear flags the parent namespace set.
unsigned long kept_flags(const char* path) {
  struct statfs s {};
  if (::statfs(path, &s) != 0) return 0;
  unsigned long f = 0;
  if (s.f_flags & ST_NOSUID) f |= MS_NOSUID;
  if (s.f_flags & ST_NODEV) f |= MS_NODEV;
  if (s.f_flags & ST_NOEXEC) f |= MS_NOEXEC;
  return f;
}

/// Binds `source` at `target` read-only (a bind ignores MS_RDONLY: it takes a remount).
bool bind_read_only(const char* source, const char* target, unsigned long flags) {
  if (::mount(source, target, nullptr, MS_BIND, nullptr) != 0) return false;
  flags |= MS_BIND | MS_REMOUNT | MS_RDONLY | kept_flags(target);
  return ::mount(nullptr, target, nullptr, flags, nullptr) == 0;
}

/// An empty file to bind a file or device onto.
bool make_file(const char* path) {
  const int fd = ::open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0444);
  return fd >= 0 && ::close(fd) == 0;
}

bool make_entry(const root_entry& e) {
  using k = root_entry::kind;
  switch (e.what) {
    case k::dir:
      return ::mkdir(e.target, 0755) == 0;
    case k::bind_dir:
      return ::mkdir(e.target, 0755) == 0 &&
             bind_read_only(e.source, e.target, MS_NOSUID | MS_NODEV);
    case k::bind_file:
      return make_file(e.target) &&
             bind_read_only(e.source, e.target, MS_NOSUID | MS_NODEV);
    case k::bind_device:  // writes to a device node ignore the read-only flag
      return make_file(e.target) &&
             bind_read_only(e.source, e.target, MS_NOSUID | MS_NOEXEC);
    case k::symlink:
      return ::symlink(e.source, e.target) == 0;
    case k::tmpfs:
      return ::mkdir(e.target, 0755) == 0 &&
             ::mount("tmpfs", e.target, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
                     e.source) == 0;
  }
  return false;
}

/// A /proc of the caller's (new) PID namespace, showing the interpreter only processes
/// it may ptrace (hidepid: not the init, a copy of the caller) and, where the kernel
/// knows subset=pid (5.8), no system-wide files.
bool mount_proc() {
  const unsigned long f = MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_RDONLY;
  return ::mount("proc", "proc", "proc", f, "hidepid=invisible,subset=pid") == 0 ||
         ::mount("proc", "proc", "proc", f, "hidepid=2") == 0;
}

/// Failed before pivoting: puts the host's view back (the staging tmpfs and all under
/// it go), keeps errno, returns the failure.
root_outcome undo(const root_layout& l, uint32_t step) {
  root_outcome o;
  o.failure = failure_code(step);
  const int saved = errno;
  [[maybe_unused]] const int r = ::chdir("/");
  ::umount2(l.staging(), MNT_DETACH);
  errno = saved;
  return o;
}

}  // namespace

root_outcome enter_private_root(const plan& p, bool with_proc) {
  const root_layout& l = *p.root;
  root_outcome o;
  if (::unshare(CLONE_NEWNS) != 0) {
    o.failure = failure_code(root_step_unshare);
    return o;
  }
  // Private first, so that nothing below propagates back to the host.
  if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) {
    o.failure = failure_code(root_step_private);
    return o;
  }
  if (::mount("tmpfs", l.staging(), "tmpfs", MS_NOSUID | MS_NODEV, l.options()) != 0) {
    o.failure = failure_code(root_step_staging);
    return o;
  }
  if (::chdir(l.staging()) != 0) return undo(l, root_step_staging);
  const std::vector<root_entry>& entries = l.entries();
  for (size_t i = 0; i < entries.size(); ++i) {
    if (!make_entry(entries[i]))
      return undo(l, root_step_entry + static_cast<uint32_t>(i));
  }
  uint32_t flags = iso_root;
  if (with_proc && mount_proc()) flags |= iso_proc;
  if (::mount(nullptr, ".", nullptr,
              MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, nullptr) != 0) {
    return undo(l, root_step_read_only);
  }
  // pivot_root(".", ".") stacks the old root on the new one; detaching it leaves no
  // path to the host's tree. In a chroot (the kernel refuses pivot_root there) chroot
  // instead: the host's tree stays mounted but unreachable without CAP_SYS_CHROOT.
  if (::syscall(SYS_pivot_root, ".", ".") == 0) {
    if (::umount2(".", MNT_DETACH) != 0) {
      o.fatal = true;
      return o;
    }
  } else if (::chroot(".") == 0) {
    flags |= iso_chroot;
  } else {
    return undo(l, root_step_pivot);
  }
  if (::chdir("/") != 0) {
    o.fatal = true;
    return o;
  }
  o.flags = flags;
  return o;
}

}  // namespace adarl::sandbox
