#pragma once
// config.json, the effective config of a run and of each of its checkpoints: every key
// of the document with its effective value as text. One writer (the pipeline's start and
// the learner's checkpoints) and one reader (the resume check, the run page). Errors name
// the file.

#include <map>
#include <string>

#include "base/result.hpp"

namespace adarl {

/// The format tag config.json carries.
inline constexpr const char* run_config_format = "adarl-config-1";

/// config.json's text for `values` (KEY.PATH -> value).
std::string run_config_text(const std::map<std::string, std::string>& values);

/// The values of a config.json: a file that cannot be opened, is not JSON, has another
/// format or a value that is not a string is an error naming the file (and the key).
result<std::map<std::string, std::string>> read_run_config(const std::string& file);

}  // namespace adarl
