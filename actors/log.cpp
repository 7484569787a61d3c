#include "actors/log.hpp"

#include <spdlog/logger.h>
#include <spdlog/sinks/null_sink.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/sinks/stdout_sinks.h>

namespace adarl {

namespace {

/// The stderr sink of loggers made without a run's: warnings and errors only.
spdlog::sink_ptr fallback_sink() {
  static const spdlog::sink_ptr sink = [] {
    auto s = std::make_shared<spdlog::sinks::stderr_sink_mt>();
    s->set_level(spdlog::level::warn);
    s->set_pattern("%l: %n: %v");
    return spdlog::sink_ptr(s);
  }();
  return sink;
}

}  // namespace

logger_ptr component_log(const logger_ptr& run, std::string name) {
  if (run) return run->clone(std::move(name));
  auto log = std::make_shared<spdlog::logger>(std::move(name), fallback_sink());
  log->set_level(spdlog::level::info);
  return log;
}

logger_ptr stream_log(std::ostream* out, std::string name) {
  spdlog::sink_ptr sink;
  if (out) {
    sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(*out, /*force_flush=*/true);
    sink->set_level(spdlog::level::warn);
    sink->set_pattern("%l: %n: %v");
  } else {
    sink = std::make_shared<spdlog::sinks::null_sink_mt>();
  }
  auto log = std::make_shared<spdlog::logger>(std::move(name), std::move(sink));
  log->set_level(spdlog::level::info);
  return log;
}

namespace {

void log_sourced(const logger_ptr& run, spdlog::level::level_enum level, const std::string& line,
                 const std::string& fallback) {
  // The source is a few words ("generator 0", "remote generators"), not a sentence.
  const auto colon = line.find(": ");
  const bool named = colon != std::string::npos && colon > 0 && colon <= 32;
  auto log = component_log(run, named ? line.substr(0, colon) : fallback);
  log->log(level, "{}", named ? line.substr(colon + 2) : line);
}

}  // namespace

void log_warning(const logger_ptr& run, const std::string& warning, const std::string& fallback) {
  log_sourced(run, spdlog::level::warn, warning, fallback);
}

void log_note(const logger_ptr& run, const std::string& note, const std::string& fallback) {
  log_sourced(run, spdlog::level::info, note, fallback);
}

}  // namespace adarl
