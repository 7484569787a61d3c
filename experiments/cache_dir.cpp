#include "experiments/cache_dir.hpp"

#include <cstdlib>

namespace adarl {

namespace {
std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}
}  // namespace

std::string cache_dir(std::string_view sub) {
  std::string root = env("ADARL_CACHE");
  if (root.empty() && !env("XDG_CACHE_HOME").empty()) root = env("XDG_CACHE_HOME") + "/adarl";
  if (root.empty() && !env("HOME").empty()) root = env("HOME") + "/.cache/adarl";
  if (root.empty()) root = ".adarl-cache";
  return root + "/" + std::string(sub);
}

}  // namespace adarl
