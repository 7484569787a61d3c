#pragma once
// The one steady clock of the actors, their pipeline and benches: seconds since a time
// point, and a monotonic nanosecond count (leases, latencies).

#include <chrono>
#include <cstdint>

namespace adarl {

using steady_clock = std::chrono::steady_clock;

inline double seconds_since(steady_clock::time_point t) {
  return std::chrono::duration<double>(steady_clock::now() - t).count();
}

inline uint64_t now_ns() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   steady_clock::now().time_since_epoch())
                                   .count());
}

}  // namespace adarl
