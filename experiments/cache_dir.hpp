#pragma once
// Where adarl keeps what it can compute again: the SFT warm starts and the prompt
// selections, shared by every run of the same settings whatever the current directory.

#include <string>
#include <string_view>

namespace adarl {

/// The cache folder `sub` ("sft", "select") under the cache root: $ADARL_CACHE if set,
/// else $XDG_CACHE_HOME/adarl, else $HOME/.cache/adarl, else .adarl-cache in the current
/// directory (no home). Reads the environment; creates nothing. O(1).
std::string cache_dir(std::string_view sub);

}  // namespace adarl
