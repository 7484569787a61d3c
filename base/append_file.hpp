#pragma once
// A file that grows by whole records (a JSONL line, a CSV row), every write checked:
// the metrics files of a run. A record that cannot be written whole (a full disk, a
// file size limit) is cut off again, so the file always ends with a complete record,
// and the error names the file and the system's reason.

#include <cstdint>
#include <string>
#include <string_view>

#include "base/result.hpp"

namespace adarl {

/// An open file appended to with checked writes. Move-only; not thread-safe (one owner,
/// e.g. an actor). The destructor closes without reporting: call close() to know.
class append_file {
 public:
  /// Opens (creates) `path` for appending; `truncate` empties it first. An error names
  /// the file and the reason (e.g. "runs/x/metrics.jsonl: cannot open: Permission
  /// denied").
  static result<append_file> open(const std::string& path, bool truncate);

  append_file() = default;
  append_file(append_file&& other) noexcept;
  append_file& operator=(append_file&& other) noexcept;
  append_file(const append_file&) = delete;
  append_file& operator=(const append_file&) = delete;
  ~append_file();

  /// Appends `bytes` whole: write(2) until all of it is written (short writes go on,
  /// EINTR is retried). On failure (ENOSPC, EFBIG past RLIMIT_FSIZE, EIO...) the file
  /// is cut back to its size before the call and the error is "PATH: cannot write:
  /// REASON"; the file stays usable. O(bytes).
  result<bool> append(std::string_view bytes);
  /// Flushes what was written to the disk (fsync); "PATH: cannot flush: REASON". A
  /// device that cannot be synced (EINVAL, e.g. /dev/full) counts as flushed.
  result<bool> sync();
  /// sync(), then close(2): either failing is an error naming the file. Idempotent.
  result<bool> close();

  /// The file's path as opened.
  const std::string& path() const { return path_; }
  /// Bytes in the file (as this handle wrote them, after what it held at open).
  uint64_t size() const { return size_; }
  bool is_open() const { return fd_ >= 0; }

 private:
  append_file(std::string path, int fd, uint64_t size);
  std::string path_;
  int fd_ = -1;
  uint64_t size_ = 0;
};

}  // namespace adarl
