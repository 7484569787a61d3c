#include "base/append_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace adarl {

append_file::append_file(std::string path, int fd, uint64_t size)
    : path_(std::move(path)), fd_(fd), size_(size) {}

append_file::append_file(append_file&& other) noexcept
    : path_(std::move(other.path_)), fd_(other.fd_), size_(other.size_) {
  other.fd_ = -1;
}

append_file& append_file::operator=(append_file&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    path_ = std::move(other.path_);
    fd_ = other.fd_;
    size_ = other.size_;
    other.fd_ = -1;
  }
  return *this;
}

append_file::~append_file() {
  if (fd_ >= 0) ::close(fd_);
}

result<append_file> append_file::open(const std::string& path, bool truncate) {
  const int flags = O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | (truncate ? O_TRUNC : 0);
  const int fd = ::open(path.c_str(), flags, 0644);
  if (fd < 0) return error{path + ": cannot open: " + std::strerror(errno)};
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const std::string why = std::strerror(errno);
    ::close(fd);
    return error{path + ": cannot open: " + why};
  }
  return append_file(path, fd, S_ISREG(st.st_mode) ? uint64_t(st.st_size) : 0);
}

result<bool> append_file::append(std::string_view bytes) {
  if (fd_ < 0) return error{path_ + ": cannot write: the file is closed"};
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd_, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n > 0) {
      done += size_t(n);
      continue;
    }
    // n == 0 for a non-empty write means no room, without an errno of its own.
    std::string why = n < 0 ? std::strerror(errno) : std::strerror(ENOSPC);
    // Cut the torn record off again (shrinking is allowed past RLIMIT_FSIZE and on a
    // full disk); a device (EINVAL) holds nothing to cut.
    if (done > 0 && ::ftruncate(fd_, off_t(size_)) != 0 && errno != EINVAL)
      why += std::string(" (the partial record stays: ") + std::strerror(errno) + ")";
    return error{path_ + ": cannot write: " + why};
  }
  size_ += done;
  return true;
}

result<bool> append_file::sync() {
  if (fd_ < 0) return true;
  if (::fsync(fd_) != 0 && errno != EINVAL && errno != EROFS)
    return error{path_ + ": cannot flush: " + std::strerror(errno)};
  return true;
}

result<bool> append_file::close() {
  if (fd_ < 0) return true;
  auto synced = sync();
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0 && synced)
    return error{path_ + ": cannot close: " + std::strerror(errno)};
  return synced;
}

}  // namespace adarl
