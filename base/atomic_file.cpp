#include "base/atomic_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <filesystem>

namespace adarl {

namespace fs = std::filesystem;

namespace {

std::string reason() { return std::strerror(errno); }

// fsync of an open path (file or directory); true on success.
bool sync_path(const std::string& path, bool directory) {
  const int fd = ::open(path.c_str(), (directory ? O_DIRECTORY : 0) | O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = ::fsync(fd) == 0 || errno == EINVAL;  // some file systems refuse dirs
  ::close(fd);
  return ok;
}

std::string parent_of(const std::string& path) {
  const fs::path p = fs::path(path).parent_path();
  return p.empty() ? "." : p.string();
}

}  // namespace

result<bool> write_file_atomic(const std::string& path, std::string_view bytes) {
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return error{path + ": cannot create " + tmp + ": " + reason()};
  auto fail = [&](const std::string& what) -> result<bool> {
    const std::string why = reason();
    ::close(fd);
    ::unlink(tmp.c_str());
    return error{path + ": " + what + ": " + why};
  };
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) errno = ENOSPC;  // no room, without an errno of its own
    if (n <= 0) return fail("cannot write " + tmp);
    done += size_t(n);
  }
  if (::fsync(fd) != 0) return fail("cannot flush " + tmp);
  if (::close(fd) != 0) {
    const std::string why = reason();
    ::unlink(tmp.c_str());
    return error{path + ": cannot close " + tmp + ": " + why};
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string why = reason();
    ::unlink(tmp.c_str());
    return error{path + ": cannot rename " + tmp + " to it: " + why};
  }
  if (!sync_path(parent_of(path), /*directory=*/true))
    return error{path + ": written, but its directory cannot be flushed: " + reason()};
  return true;
}

void ignore_file_size_signal() { std::signal(SIGXFSZ, SIG_IGN); }

result<bool> sync_tree(const std::string& dir) {
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const bool is_dir = it->is_directory(ec);
    if (!sync_path(it->path().string(), is_dir))
      return error{it->path().string() + ": cannot flush to the disk: " + reason()};
  }
  if (ec) return error{dir + ": cannot list: " + ec.message()};
  if (!sync_path(dir, /*directory=*/true)) return error{dir + ": cannot flush: " + reason()};
  return true;
}

std::string staging_path(const std::string& target) {
  return target + ".tmp." + std::to_string(::getpid());
}

result<bool> replace_directory(const std::string& staged, const std::string& target) {
  std::error_code ec;
  const std::string old = target + ".old." + std::to_string(::getpid());
  const bool had = fs::exists(target, ec);
  if (had) {
    fs::remove_all(old, ec);
    fs::rename(target, old, ec);
    if (ec) return error{target + ": cannot move the previous copy aside: " + ec.message()};
  }
  fs::rename(staged, target, ec);
  if (ec) {
    const std::string why = ec.message();
    if (had) fs::rename(old, target, ec);  // put the previous copy back
    return error{target + ": cannot move " + staged + " in place: " + why};
  }
  if (!sync_path(parent_of(target), /*directory=*/true))
    return error{target + ": moved in place, but its directory cannot be flushed: " +
                 reason()};
  if (had) fs::remove_all(old, ec);
  return true;
}

}  // namespace adarl
