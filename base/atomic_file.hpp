#pragma once
// Files a user keeps are replaced atomically: written to a temporary file next to the
// target, flushed to the disk (fsync), then renamed over it, and the directory entry
// synced. A crash or a full disk leaves either the old file or the new one, never a
// torn mix. Shared by datasets, metrics, reports, checkpoints and the commands.

#include <string>
#include <string_view>

#include "base/result.hpp"

namespace adarl {

/// Replaces `path` with `bytes`: PATH.tmp.PID, fsync, rename, fsync of the directory.
/// On failure the temporary file is removed, `path` is unchanged and the error names
/// the file and the system's reason. Thread-safe for distinct paths. O(bytes).
result<bool> write_file_atomic(const std::string& path, std::string_view bytes);

/// Flushes every regular file under `dir` (recursively) and the directories themselves
/// to the disk, so that a rename of `dir` that follows publishes complete files.
/// O(files + bytes not yet written back).
result<bool> sync_tree(const std::string& dir);

/// A scratch name beside `target` that belongs to this process alone (TARGET.tmp.PID):
/// two processes writing the same target never share their staging. O(1).
std::string staging_path(const std::string& target);

/// Puts the directory `staged` in place of `target`: when `target` exists it is first
/// renamed aside (TARGET.old.PID), then `staged` is renamed to `target`, then the old copy
/// is removed. At every moment one complete copy exists under one of the two names.
/// The parent directory is synced. Both must be on one file system.
result<bool> replace_directory(const std::string& staged, const std::string& target);

/// Makes a write past the file size limit (RLIMIT_FSIZE, `ulimit -f`) fail with EFBIG,
/// reported like any failed write, instead of killing the process with SIGXFSZ.
/// Process-wide; a program that checks its writes calls it once at start. Children
/// inherit it across exec unless they reset their signals (the python sandbox does).
void ignore_file_size_signal();

}  // namespace adarl
