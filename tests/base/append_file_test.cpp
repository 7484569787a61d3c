// Checked writes (base/append_file.hpp, base/atomic_file.hpp): a full disk and a file
// size limit are errors naming the file and the reason, and leave no torn record and no
// temporary file behind. /dev/full stands for a full disk (every write: ENOSPC) and
// RLIMIT_FSIZE for a size limit (EFBIG past it): neither needs root or a real tmpfs.
#include "base/append_file.hpp"

#include <gtest/gtest.h>
#include <sys/resource.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/atomic_file.hpp"

namespace adarl {
namespace {

namespace fs = std::filesystem;

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

fs::path fresh(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("adarl_append_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

/// Lowers this process's file size limit to `bytes` until destroyed (SIGXFSZ ignored,
/// so that writes past it fail with EFBIG). Tests run one per process under ctest.
class file_size_limit {
 public:
  explicit file_size_limit(rlim_t bytes) {
    ignore_file_size_signal();
    getrlimit(RLIMIT_FSIZE, &saved_);
    rlimit lower = saved_;
    lower.rlim_cur = bytes;
    ok_ = setrlimit(RLIMIT_FSIZE, &lower) == 0;
  }
  ~file_size_limit() { setrlimit(RLIMIT_FSIZE, &saved_); }
  bool ok() const { return ok_; }

 private:
  rlimit saved_{};
  bool ok_ = false;
};

TEST(AppendFileTest, AppendsWholeRecordsAndTruncatesOnlyWhenAsked) {
  const auto f = (fresh("records") / "metrics.jsonl").string();
  {
    auto file = append_file::open(f, /*truncate=*/true);
    ASSERT_TRUE(file) << file.err().message;
    ASSERT_TRUE(file->append("{\"step\":0}\n"));
    ASSERT_TRUE(file->append("{\"step\":1}\n"));
    EXPECT_EQ(file->size(), 22u);
    ASSERT_TRUE(file->close());
    EXPECT_FALSE(file->is_open());
  }
  auto again = append_file::open(f, /*truncate=*/false);  // a resumed run appends
  ASSERT_TRUE(again);
  EXPECT_EQ(again->size(), 22u);
  ASSERT_TRUE(again->append("{\"step\":2}\n"));
  ASSERT_TRUE(again->close());
  EXPECT_EQ(read(f), "{\"step\":0}\n{\"step\":1}\n{\"step\":2}\n");
  auto fresh_file = append_file::open(f, /*truncate=*/true);
  ASSERT_TRUE(fresh_file);
  EXPECT_EQ(read(f), "");
}

TEST(AppendFileTest, AFullDiskIsAnErrorNamingTheFileAndTheReason) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full here";
  // A run's file on a full disk: metrics.jsonl is a link to /dev/full.
  const auto link = fresh("full") / "metrics.jsonl";
  fs::create_symlink("/dev/full", link);
  auto file = append_file::open(link.string(), /*truncate=*/true);
  ASSERT_TRUE(file) << file.err().message;
  auto r = file->append("{\"step\":0}\n");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.err().message, link.string() + ": cannot write: No space left on device");
  EXPECT_EQ(file->size(), 0u);
  EXPECT_TRUE(file->close()) << "a device that cannot be synced counts as flushed";
}

TEST(AppendFileTest, PastTheFileSizeLimitTheRecordIsCutOffAndTheFileEndsWhole) {
  const auto f = (fresh("limit") / "metrics.jsonl").string();
  auto file = append_file::open(f, /*truncate=*/true);
  ASSERT_TRUE(file);
  const std::string line(59, 'x');
  {
    file_size_limit limit(100);
    ASSERT_TRUE(limit.ok());
    ASSERT_TRUE(file->append(line + "\n"));
    // 60 more bytes: the first 40 fit under the limit, then EFBIG.
    auto r = file->append(line + "\n");
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.err().message, f + ": cannot write: File too large");
  }
  EXPECT_EQ(fs::file_size(f), 60u) << "the torn second line was cut off";
  EXPECT_EQ(file->size(), 60u);
  ASSERT_TRUE(file->append("ok\n")) << "the file stays usable once there is room";
  ASSERT_TRUE(file->close());
  EXPECT_EQ(read(f), line + "\nok\n");
}

TEST(AppendFileTest, WritingAClosedFileIsAnError) {
  auto file = append_file::open((fresh("closed") / "eval.jsonl").string(), true);
  ASSERT_TRUE(file);
  ASSERT_TRUE(file->close());
  auto r = file->append("x\n");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.err().message.find("eval.jsonl: cannot write: the file is closed"),
            std::string::npos);
}

TEST(AtomicFileTest, PastTheFileSizeLimitTheOldFileStaysAndNoTemporaryIsLeft) {
  const auto dir = fresh("atomic_limit");
  const auto f = (dir / "report.html").string();
  ASSERT_TRUE(write_file_atomic(f, "old\n"));
  {
    file_size_limit limit(1000);
    ASSERT_TRUE(limit.ok());
    auto r = write_file_atomic(f, std::string(5000, 'x'));
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.err().message.rfind(f + ": cannot write " + f + ".tmp.", 0), 0u)
        << r.err().message;
    EXPECT_NE(r.err().message.find(": File too large"), std::string::npos)
        << r.err().message;
  }
  EXPECT_EQ(read(f), "old\n");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);
}

}  // namespace
}  // namespace adarl
