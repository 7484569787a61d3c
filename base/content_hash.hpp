#pragma once
// Content hashes: XXH3-128 of bytes or of a file, as 32 lowercase hex digits. One
// definition for every file adarl checks on reading back (checkpoints, the SFT and
// selection caches, the weights sent to remote generators).

#include <string>
#include <string_view>

#include "base/result.hpp"

namespace adarl {

/// XXH3-128 of `bytes`, as 32 lowercase hex digits (high 64 bits first). O(bytes).
std::string content_hash(std::string_view bytes);

/// content_hash of a whole file, read in pieces (no copy of the file in memory); an
/// error names the file when it cannot be opened or read. O(file size).
result<std::string> file_content_hash(const std::string& path);

}  // namespace adarl
