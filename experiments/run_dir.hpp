#pragma once
// A new directory for every run of a config whose `out` holds {time}
// (configs/quickstart.yaml: runs/quickstart/{time}), with a `latest` link beside it, so
// that the same command can be run again and again without overwriting a run.

#include <ctime>
#include <string>
#include <string_view>

#include "base/result.hpp"

namespace adarl {

/// The placeholder of `out` that each run replaces with its start time.
inline constexpr std::string_view run_dir_placeholder = "{time}";

/// `pattern` with {time} replaced by `now` as local YYYYMMDD-HHMMSS (UTC where the
/// local zone is unknown), suffixed "-2", "-3", ... when that directory exists already.
/// Pure but for the existence checks; O(length).
std::string run_dir_name(const std::string& pattern, std::time_t now);

/// Creates run_dir_name(pattern, now) and, when {time} is in the last component, points
/// a `latest` symbolic link in its parent at it (replaced atomically; a `latest` that is not a link is left alone). Returns the
/// directory. Errors name the directory and the system's reason.
result<std::string> make_run_dir(const std::string& pattern, std::time_t now = std::time(nullptr));

}  // namespace adarl
