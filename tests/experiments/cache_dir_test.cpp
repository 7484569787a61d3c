// Where the warm starts and selections are cached (experiments/cache_dir.hpp): never a folder
// of the current directory when a home is known.
#include "experiments/cache_dir.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>

namespace adarl {
namespace {

/// Sets (or unsets, with nullopt) an environment variable for one scope.
class scoped_env {
 public:
  scoped_env(const char* name, std::optional<std::string> value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) ::setenv(name, value->c_str(), 1);
    else ::unsetenv(name);
  }
  ~scoped_env() {
    if (old_) ::setenv(name_, old_->c_str(), 1);
    else ::unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST(CacheDirTest, AdarlCacheThenXdgThenHome) {
  scoped_env home("HOME", "/home/u");
  {
    scoped_env xdg("XDG_CACHE_HOME", std::nullopt);
    scoped_env own("ADARL_CACHE", std::nullopt);
    EXPECT_EQ(cache_dir("sft"), "/home/u/.cache/adarl/sft");
  }
  {
    scoped_env xdg("XDG_CACHE_HOME", "/var/c");
    scoped_env own("ADARL_CACHE", std::nullopt);
    EXPECT_EQ(cache_dir("select"), "/var/c/adarl/select");
    scoped_env set("ADARL_CACHE", "/data/adarl");
    EXPECT_EQ(cache_dir("select"), "/data/adarl/select");
  }
  scoped_env xdg("XDG_CACHE_HOME", std::nullopt);
  scoped_env own("ADARL_CACHE", std::nullopt);
  scoped_env nohome("HOME", std::nullopt);
  EXPECT_EQ(cache_dir("sft"), ".adarl-cache/sft");
}

}  // namespace
}  // namespace adarl
