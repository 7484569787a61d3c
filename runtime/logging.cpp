#include "runtime/logging.hpp"

#include <filesystem>

#include <spdlog/logger.h>
#include <spdlog/sinks/null_sink.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/sinks/rotating_file_sink.h>
#include <spdlog/sinks/stdout_sinks.h>

namespace adarl {

namespace {

spdlog::level::level_enum spdlog_level(log_level l) {
  switch (l) {
    case log_level::trace: return spdlog::level::trace;
    case log_level::debug: return spdlog::level::debug;
    case log_level::info: return spdlog::level::info;
    case log_level::warn: return spdlog::level::warn;
    case log_level::error: return spdlog::level::err;
  }
  return spdlog::level::info;
}

}  // namespace

std::string log_file_path(const log_section& s, const std::string& out) {
  if (s.file.empty()) return "";
  const std::filesystem::path p(s.file);
  return p.is_absolute() ? s.file : (std::filesystem::path(out) / p).string();
}

result<logger_ptr> open_run_log(const log_section& s, const std::string& out) {
  const auto level = spdlog_level(s.level);
  std::vector<spdlog::sink_ptr> sinks;
  auto terminal = std::make_shared<spdlog::sinks::stderr_sink_mt>();
  terminal->set_level(std::max(level, spdlog::level::warn));
  terminal->set_pattern("%l: %n: %v");
  sinks.push_back(terminal);
  if (const auto file = log_file_path(s, out); !file.empty()) {
    try {
      std::error_code ec;
      std::filesystem::create_directories(std::filesystem::path(file).parent_path(), ec);
      auto f = std::make_shared<spdlog::sinks::rotating_file_sink_mt>(file, s.rotate_bytes,
                                                                      s.rotate_files);
      f->set_level(level);
      f->set_pattern("[%Y-%m-%d %H:%M:%S.%e] [%l] [%n] %v");
      sinks.push_back(f);
    } catch (const spdlog::spdlog_ex& e) {
      return error{"log.file: cannot write \"" + file + "\": " + e.what()};
    }
  }
  auto log = std::make_shared<spdlog::logger>("run", sinks.begin(), sinks.end());
  log->set_level(level);
  log->flush_on(spdlog::level::info);
  return log;
}

logger_ptr open_worker_log(std::ostream* out, const std::string& name, log_level level) {
  spdlog::sink_ptr sink;
  if (out)
    sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(*out, /*force_flush=*/true);
  else
    sink = std::make_shared<spdlog::sinks::null_sink_mt>();
  sink->set_pattern("[%Y-%m-%d %H:%M:%S.%e] [%l] %n: %v");
  auto log = std::make_shared<spdlog::logger>(name, std::move(sink));
  log->set_level(spdlog_level(level));
  return log;
}

}  // namespace adarl
