#pragma once
// Loggers of the run's components (spdlog). A run has one logger with its sinks (the
// terminal and the log file: runtime/logging.hpp); each component logs through a copy
// named after it ("tracker", "generator 0", "remote generators"), so that every line
// says who wrote it.

#include <iosfwd>
#include <memory>
#include <string>

namespace spdlog {
class logger;
}

namespace adarl {

/// A logger; spdlog's loggers and the sinks runtime/ gives them are thread-safe.
using logger_ptr = std::shared_ptr<spdlog::logger>;

/// A copy of `run` named `name`: the same sinks and level. With no `run` (an embedding
/// program, a test), a logger that prints warnings and errors on stderr. O(sinks).
logger_ptr component_log(const logger_ptr& run, std::string name);

/// A run's logger that writes warnings and errors to `out` as "warning: NAME: text"
/// (nothing when `out` is null): the pipeline's default when it is given no logger.
/// `out` must outlive the logger and its copies; lines are written whole under a lock.
logger_ptr stream_log(std::ostream* out, std::string name = "run");

/// Logs a warning that arrives as "SOURCE: text" (the actors' and the hubs' warning
/// strings) under the name SOURCE, through a copy of `run`; one without such a prefix
/// under `fallback`. Thread-safe.
void log_warning(const logger_ptr& run, const std::string& warning,
                 const std::string& fallback = "run");

/// The same at the info level (joins and other events a user may look up later).
void log_note(const logger_ptr& run, const std::string& note, const std::string& fallback = "run");

}  // namespace adarl
