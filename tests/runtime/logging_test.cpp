// The run's log file is written with every failure kept (runtime/logging.hpp): a full
// disk under adarl.log is said on stderr once, named by log_write_failure(), and every
// later line reaches the logger's error handler (which a pipeline turns into the end of
// the run). /dev/full behind a link stands for the full disk.
#include "runtime/logging.hpp"

#include <gtest/gtest.h>
#include <spdlog/logger.h>

#include <filesystem>
#include <fstream>

namespace adarl {
namespace {

namespace fs = std::filesystem;

std::string fresh(const std::string& name) {
  const auto dir = fs::temp_directory_path() / ("adarl_logging_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

TEST(RunLogTest, LinesGoToTheFileAndNoFailureIsReported) {
  const auto out = fresh("ok");
  log_section s;
  auto log = open_run_log(s, out);
  ASSERT_TRUE(log) << log.err().message;
  (*log)->info("checkpoint written");
  (*log)->flush();
  std::ifstream in(out + "/adarl.log");
  std::string line;
  std::getline(in, line);
  EXPECT_NE(line.find("[info] [run] checkpoint written"), std::string::npos) << line;
  EXPECT_EQ(log_write_failure(*log), "");
}

TEST(RunLogTest, AFullDiskUnderTheLogFileIsSaidOnceAndNamed) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full here";
  const auto out = fresh("full");
  fs::create_symlink("/dev/full", out + "/adarl.log");
  log_section s;
  auto log = open_run_log(s, out);
  ASSERT_TRUE(log) << log.err().message;
  const std::string failure = out + "/adarl.log: cannot write: No space left on device";
  testing::internal::CaptureStderr();
  (*log)->info("first line");  // info lines are flushed at once: the failure shows now
  (*log)->info("second line");
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(err, "error: log: " + failure + "\n") << "once, not per line";
  EXPECT_EQ(log_write_failure(*log), failure);
  // Every later line reaches the error handler (a pipeline's ends the run on it).
  std::vector<std::string> heard;
  auto copy = (*log)->clone("learner");
  copy->set_error_handler([&](const std::string& what) { heard.push_back(what); });
  copy->info("third line");
  copy->warn("fourth line");
  EXPECT_EQ(heard, (std::vector<std::string>{failure, failure}));
  EXPECT_EQ(log_write_failure(copy), failure);
}

TEST(RunLogTest, AFileThatCannotBeOpenedIsAnErrorNamingIt) {
  const auto out = fresh("blocked");
  fs::create_directories(out + "/adarl.log/inside");  // a directory where the file goes
  log_section s;
  auto log = open_run_log(s, out);
  ASSERT_FALSE(log);
  EXPECT_NE(log.err().message.find("log.file: cannot write \"" + out + "/adarl.log\""),
            std::string::npos)
      << log.err().message;
}

}  // namespace
}  // namespace adarl
