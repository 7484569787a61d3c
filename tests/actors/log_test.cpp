// log: component loggers carry their names; warnings that arrive as "SOURCE: text" are
// logged under SOURCE; the stream logger shows warnings and errors only.
#include "actors/log.hpp"

#include <gtest/gtest.h>

#include <sstream>

#include <spdlog/logger.h>
#include <spdlog/sinks/ostream_sink.h>

namespace adarl {
namespace {

/// A run logger writing every line at info and above as "LEVEL NAME: text".
logger_ptr capture(std::ostringstream& out) {
  auto sink = std::make_shared<spdlog::sinks::ostream_sink_st>(out);
  sink->set_pattern("%l %n: %v");
  auto log = std::make_shared<spdlog::logger>("run", sink);
  log->set_level(spdlog::level::info);
  return log;
}

TEST(LogTest, ComponentLoggersShareTheRunsSinksUnderTheirOwnNames) {
  std::ostringstream out;
  auto run = capture(out);
  component_log(run, "tracker")->info("step {} generated", 3);
  component_log(run, "generator 1")->debug("below the run's level");
  component_log(run, "learner")->warn("slow");
  EXPECT_EQ(out.str(), "info tracker: step 3 generated\nwarning learner: slow\n");
}

TEST(LogTest, WarningsAndNotesAreLoggedUnderTheirSource) {
  std::ostringstream out;
  auto run = capture(out);
  log_warning(run, "generator 0: cannot load weights: bad bytes");
  log_note(run, "remote generators: worker w1 joined (capacity 8)");
  log_warning(run, "no source here");
  log_warning(run, "a sentence long enough not to be a name before its colon: x");
  log_warning(run, "braces {} pass through: {0}");
  EXPECT_EQ(out.str(),
            "warning generator 0: cannot load weights: bad bytes\n"
            "info remote generators: worker w1 joined (capacity 8)\n"
            "warning run: no source here\n"
            "warning run: a sentence long enough not to be a name before its colon: x\n"
            "warning braces {} pass through: {0}\n");
}

TEST(LogTest, TheStreamLoggerWritesWarningsAndErrorsOnly) {
  std::ostringstream out;
  auto run = stream_log(&out);
  component_log(run, "learner")->info("checkpoint written");
  log_warning(run, "learner: checkpoint x: disk full");
  component_log(run, "tracker")->error("broken");
  EXPECT_EQ(out.str(), "warning: learner: checkpoint x: disk full\nerror: tracker: broken\n");
  stream_log(nullptr)->warn("nowhere");  // a null stream: nothing, no crash
}

}  // namespace
}  // namespace adarl
