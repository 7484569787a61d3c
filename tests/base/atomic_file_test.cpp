// Files a user keeps are replaced whole or not at all (base/atomic_file.hpp).
#include "base/atomic_file.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace adarl {
namespace {

namespace fs = std::filesystem;

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

fs::path fresh(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("adarl_atomic_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

size_t entries(const fs::path& dir) {
  return size_t(std::distance(fs::directory_iterator(dir), fs::directory_iterator()));
}

TEST(AtomicFileTest, ReplacesTheWholeFileAndLeavesNoTemporary) {
  const auto dir = fresh("replace");
  const auto f = (dir / "done.json").string();
  ASSERT_TRUE(write_file_atomic(f, "first, longer content\n"));
  ASSERT_TRUE(write_file_atomic(f, "second\n"));
  EXPECT_EQ(read(f), "second\n");
  EXPECT_EQ(entries(dir), 1u);
}

TEST(AtomicFileTest, AFailedWriteLeavesTheOldFileAndNamesIt) {
  const auto dir = fresh("fail");
  const auto f = (dir / "keep.txt").string();
  ASSERT_TRUE(write_file_atomic(f, "kept\n"));
  // Renaming a file over a non-empty directory fails after the temporary was written
  // (a read-only directory would not stop root): the target stays, the temporary goes.
  const auto blocked = (dir / "blocked").string();
  fs::create_directories(blocked + "/inside");
  auto r = write_file_atomic(blocked, "new\n");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.err().message.rfind(blocked + ": cannot rename", 0), 0u) << r.err().message;
  EXPECT_TRUE(fs::is_directory(blocked + "/inside"));
  EXPECT_EQ(read(f), "kept\n");
  EXPECT_EQ(entries(dir), 2u);  // keep.txt and blocked: no temporary left behind
}

TEST(AtomicFileTest, ReplaceDirectoryKeepsACompleteCopyAndRemovesTheOld) {
  const auto dir = fresh("dir");
  const auto target = (dir / "step-000004").string(), staged = target + ".partial";
  fs::create_directories(target);
  std::ofstream(target + "/a") << "old";
  fs::create_directories(staged);
  std::ofstream(staged + "/a") << "new";
  ASSERT_TRUE(sync_tree(staged));
  ASSERT_TRUE(replace_directory(staged, target));
  EXPECT_EQ(read(target + "/a"), "new");
  EXPECT_FALSE(fs::exists(staged));
  EXPECT_FALSE(fs::exists(target + ".old"));
  auto missing = replace_directory(staged, target);  // nothing staged: the copy stays
  EXPECT_FALSE(missing.ok());
  EXPECT_EQ(read(target + "/a"), "new");
}

}  // namespace
}  // namespace adarl
