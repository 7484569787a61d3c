// A new directory per run for `out: .../{time}` (experiments/run_dir.hpp).
#include "experiments/run_dir.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>

namespace adarl {
namespace {

namespace fs = std::filesystem;

std::string fresh_root(const std::string& name) {
  const auto root = fs::path(testing::TempDir()) / ("run-dir-" + name);
  fs::remove_all(root);
  fs::create_directories(root);
  return root.string();
}

TEST(RunDirTest, TheTimeReplacesThePlaceholder) {
  const auto root = fresh_root("name");
  const auto dir = run_dir_name(root + "/quick/{time}", 1'800'000'000);
  EXPECT_TRUE(std::regex_match(dir, std::regex(".*/quick/20[0-9]{6}-[0-9]{6}"))) << dir;
}

TEST(RunDirTest, EveryRunGetsItsOwnDirectoryAndLatestFollowsTheNewest) {
  const auto root = fresh_root("runs");
  const std::string pattern = root + "/q/{time}";
  auto a = make_run_dir(pattern, 1'800'000'000);
  auto b = make_run_dir(pattern, 1'800'000'000);  // the same second
  ASSERT_TRUE(a && b) << (a ? b.err().message : a.err().message);
  EXPECT_NE(*a, *b);
  EXPECT_EQ(*b, *a + "-2");
  EXPECT_TRUE(fs::is_directory(*a));
  EXPECT_TRUE(fs::is_directory(*b));
  const fs::path latest = fs::path(root) / "q" / "latest";
  ASSERT_TRUE(fs::is_symlink(latest));
  EXPECT_EQ(fs::read_symlink(latest), fs::path(*b).filename());
  EXPECT_EQ(fs::canonical(latest), fs::canonical(*b));
}

TEST(RunDirTest, ALatestThatIsNotALinkIsLeftAlone) {
  const auto root = fresh_root("keep");
  fs::create_directories(root + "/q/latest");
  auto a = make_run_dir(root + "/q/{time}", 1'800'000'000);
  ASSERT_TRUE(a) << a.err().message;
  EXPECT_TRUE(fs::is_directory(root + "/q/latest"));
  EXPECT_FALSE(fs::is_symlink(root + "/q/latest"));
}

TEST(RunDirTest, AnUncreatableDirectoryIsAnErrorNamingIt) {
  const auto root = fresh_root("file");
  { std::ofstream(root + "/q") << "not a directory"; }
  auto a = make_run_dir(root + "/q/{time}", 1'800'000'000);
  ASSERT_FALSE(a);
  EXPECT_NE(a.err().message.find("cannot create " + root + "/q/"), std::string::npos)
      << a.err().message;
}

}  // namespace
}  // namespace adarl
