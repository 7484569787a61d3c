#include "runtime/logging.hpp"

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <mutex>

#include <spdlog/logger.h>
#include <spdlog/sinks/base_sink.h>
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

/// The log file: spdlog's size-rotated file sink with its failures kept. The first
/// failed write, flush or rotation (a full disk, a file size limit) is remembered as
/// "FILE: cannot write: REASON"; from then on nothing more is written and every line
/// is refused with that error (once per line), so that each logger's error handler
/// hears of it.
class checked_file_sink final : public spdlog::sinks::base_sink<std::mutex> {
 public:
  checked_file_sink(std::string file, size_t rotate_bytes, size_t rotate_files)
      : file_(std::move(file)), inner_(file_, rotate_bytes, rotate_files) {}
  /// The first failure, "" while none. Thread-safe.
  std::string failure() {
    std::lock_guard<std::mutex> lock(mutex_);
    return failure_;
  }

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    checked([&] { inner_.log(msg); });
  }
  // Once failed, a flush has nothing to add: the line before it said so.
  void flush_() override {
    if (failure_.empty()) checked([&] { inner_.flush(); });
  }
  void set_pattern_(const std::string& pattern) override { inner_.set_pattern(pattern); }

 private:
  template <class F>
  void checked(F&& write) {
    if (failure_.empty()) {
      try {
        write();
        return;
      } catch (const std::exception& e) {
        // spdlog's text is "Failed writing to file FILE: REASON": keep the reason.
        const std::string what = e.what();
        const auto colon = what.rfind(": ");
        failure_ = file_ + ": cannot write: " +
                   (colon == std::string::npos ? what : what.substr(colon + 2));
      }
    }
    throw spdlog::spdlog_ex(failure_);
  }
  const std::string file_;
  spdlog::sinks::rotating_file_sink_st inner_;
  std::string failure_;  ///< Guarded by base_sink's mutex_.
};

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
      auto f = std::make_shared<checked_file_sink>(file, s.rotate_bytes, s.rotate_files);
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
  // Not silent: the first failed write of the file is said on stderr at once (a run
  // also ends on it: actors/failure.hpp; the command's exit status says it too).
  auto said = std::make_shared<std::atomic<bool>>(false);
  log->set_error_handler([said](const std::string& what) {
    if (!said->exchange(true)) std::fprintf(stderr, "error: log: %s\n", what.c_str());
  });
  return log;
}

std::string log_write_failure(const logger_ptr& log) {
  if (!log) return "";
  for (const auto& sink : log->sinks())
    if (auto f = std::dynamic_pointer_cast<checked_file_sink>(sink))
      if (auto failure = f->failure(); !failure.empty()) return failure;
  return "";
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
