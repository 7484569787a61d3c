#pragma once
// What the fuzz targets share: an invariant check that stops the run with a message
// (libFuzzer then saves the input as a crash), kept in release builds unlike assert.

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

/// Aborts with the failed condition and `what` when `cond` is false.
#define FUZZ_CHECK(cond, what)                                                       \
  do {                                                                               \
    if (!(cond)) {                                                                   \
      std::fprintf(stderr, "%s:%d: invariant failed: %s (%s)\n", __FILE__, __LINE__, \
                   #cond, std::string(what).c_str());                                \
      std::abort();                                                                  \
    }                                                                                \
  } while (false)

namespace adarl::fuzz {

/// True when `part` is a view into `whole` (same buffer, within its bounds).
inline bool is_view_into(std::string_view part, std::string_view whole) {
  return part.data() >= whole.data() &&
         part.data() + part.size() <= whole.data() + whole.size();
}

/// True when `s` starts with `prefix`.
inline bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

}  // namespace adarl::fuzz
