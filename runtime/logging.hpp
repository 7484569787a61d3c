#pragma once
// Where the lines of a run and of a remote worker go (spdlog): the run's terminal shows
// warnings and errors only (beside the progress line and the start-up lines that
// cli/run_command.cpp prints itself); its log file has every component's lines at
// log.level and above, with time, level and name, rotated by size.

#include <iosfwd>
#include <string>

#include "actors/log.hpp"
#include "base/result.hpp"
#include "pipelines/pipeline_config.hpp"

namespace adarl {

/// The file `s.file` names for a run writing to `out`: a relative path is under `out`;
/// "" = no file.
std::string log_file_path(const log_section& s, const std::string& out);

/// The run's logger: a stderr sink for warnings and errors ("warning: SOURCE: text"; at
/// level error, errors only) and, unless s.file is "", a size-rotated file sink
/// (s.rotate_bytes, s.rotate_files kept) for every line at s.level and above, as
/// "[2026-12-01 10:00:00.123] [info] [learner] checkpoint ... written". The file is
/// appended to (a resumed run continues it); lines at info and above are flushed at
/// once. A file that cannot be opened is an error naming it. Every write to the file is
/// checked: at the first that fails (a full disk, a file size limit) the file gets no
/// more lines, "error: log: FILE: cannot write: REASON" goes to stderr once, every later
/// line is reported to the logger's error handler (a pipeline's copies end the run on
/// it: actors/failure.hpp) and log_write_failure() says it. Thread-safe once made.
result<logger_ptr> open_run_log(const log_section& s, const std::string& out);

/// The first failed write to the log file of a logger made by open_run_log (or a copy of
/// it), "FILE: cannot write: REASON"; "" while none, or without a file. Thread-safe.
std::string log_write_failure(const logger_ptr& log);

/// A remote worker's logger named `name` ("worker gpu1-4242"): lines at `level` and
/// above on `out` (none when null) as "[2026-12-01 10:00:00.123] [info] worker gpu1-4242:
/// text". `out` must outlive it. Thread-safe.
logger_ptr open_worker_log(std::ostream* out, const std::string& name,
                           log_level level = log_level::info);

}  // namespace adarl
