#include "base/content_hash.hpp"

#include <cstdio>
#include <fstream>
#include <memory>
#include <vector>

#include <xxhash.h>

namespace adarl {

namespace {
std::string hex(XXH128_hash_t h) {
  char buf[33];
  std::snprintf(buf, sizeof buf, "%016llx%016llx", (unsigned long long)h.high64,
                (unsigned long long)h.low64);
  return buf;
}
}  // namespace

std::string content_hash(std::string_view bytes) {
  return hex(XXH3_128bits(bytes.data(), bytes.size()));
}

result<std::string> file_content_hash(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return error{path + ": cannot open the file to hash it"};
  std::unique_ptr<XXH3_state_t, decltype(&XXH3_freeState)> state(XXH3_createState(),
                                                                 &XXH3_freeState);
  if (!state || XXH3_128bits_reset(state.get()) == XXH_ERROR)
    return error{path + ": cannot hash the file (no memory)"};
  std::vector<char> buf(1 << 20);
  while (in) {
    in.read(buf.data(), std::streamsize(buf.size()));
    if (in.gcount() > 0) XXH3_128bits_update(state.get(), buf.data(), size_t(in.gcount()));
  }
  if (in.bad()) return error{path + ": read failed while hashing it"};
  return hex(XXH3_128bits_digest(state.get()));
}

}  // namespace adarl
