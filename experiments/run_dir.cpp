#include "experiments/run_dir.hpp"

#include <cstring>
#include <filesystem>
#include <system_error>

namespace adarl {

namespace fs = std::filesystem;

std::string run_dir_name(const std::string& pattern, std::time_t now) {
  std::tm t{};
  if (!localtime_r(&now, &t)) gmtime_r(&now, &t);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &t);
  std::string base = pattern;
  for (size_t at; (at = base.find(run_dir_placeholder)) != std::string::npos;)
    base.replace(at, run_dir_placeholder.size(), stamp);
  std::string dir = base;
  std::error_code ec;
  for (int n = 2; fs::exists(dir, ec); ++n) dir = base + "-" + std::to_string(n);
  return dir;
}

result<std::string> make_run_dir(const std::string& pattern, std::time_t now) {
  const std::string dir = run_dir_name(pattern, now);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return error{"cannot create " + dir + ": " + ec.message()};
  const fs::path p(dir);
  if (fs::path(pattern).filename().string().find(run_dir_placeholder) == std::string::npos)
    return dir;  // {time} names a folder above: no single parent to hold `latest`
  const fs::path link = p.parent_path() / "latest";
  if (fs::exists(link, ec) && !fs::is_symlink(link, ec)) return dir;  // not ours to replace
  // A new link beside the old one, renamed over it: readers never see no `latest`.
  const fs::path tmp = p.parent_path() / ".latest.tmp";
  fs::remove(tmp, ec);
  fs::create_directory_symlink(p.filename(), tmp, ec);
  if (!ec) fs::rename(tmp, link, ec);
  if (ec) return error{"cannot point " + link.string() + " at " + dir + ": " + ec.message()};
  return dir;
}

}  // namespace adarl
