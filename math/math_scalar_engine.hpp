#pragma once
// Equality of single values of two math answers, decided with GiNaC behind a GiNaC-free
// interface (math/math_ginac_engine.cpp is the one file that includes GiNaC).

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>

#include "math/math_ast.hpp"
#include "math/math_limits.hpp"

namespace adarl {

/// Which of the two answers compared a node belongs to.
enum class math_side : uint8_t { reference, answer };

/// A node of one side, with the signs chosen for its "\pm" nodes: bit k of variant set
/// means minus at the k-th node of plus_minus_nodes(ast, node).
struct math_ref {
  math_side side = math_side::answer;
  uint32_t node = 0;
  uint32_t variant = 0;
  bool chosen = false;  ///< variant is set (math_equivalence expands a value's signs once).
};

/// What a comparison found. bad_reference / bad_answer: that side has no value (a
/// division by zero, log 0, a tuple inside a sum, ...).
enum class math_status : uint8_t {
  equal,
  different,
  bad_reference,
  bad_answer,
  too_complex,
  timeout,
};

/// How values are compared.
struct math_compare_settings {
  math_limits limits;
  /// Relative tolerance |a - b| <= tol * max(|a|, |b|) when a side is written with a
  /// decimal point and the difference is irrational (see math_scalar_engine::equal).
  double relative_tolerance = 1e-6;
  /// When the verification may have used its budget, on the wall clock: a cheap check
  /// between steps. When it has passed, the thread's CPU time decides: "timeout" only
  /// when the verifying thread itself used `budget` since `cpu_start` (descheduling, a
  /// throttled container and waits for the GiNaC mutex do not count); else the deadline
  /// moves by what is left.
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  std::chrono::nanoseconds cpu_start{0};  ///< math_thread_cpu_time() when it started.
  std::chrono::nanoseconds budget = std::chrono::nanoseconds::max();
};

/// CPU time used by the calling thread (CLOCK_THREAD_CPUTIME_ID; a system call of about
/// a microsecond, so not for every step).
std::chrono::nanoseconds math_thread_cpu_time();

/// GiNaC's part of one verification. GiNaC is not thread-safe: its expressions share
/// flyweight objects (the numbers 0, 1, ...) whose reference counts are plain integers,
/// symbols take serial numbers from a global counter, and Digits is global. So an engine
/// holds one process-wide mutex from construction to destruction, and every GiNaC object
/// it makes lives and dies under it: engines on several threads run one at a time (the
/// deadline is moved by the time spent waiting for the mutex). Not copyable.
class math_scalar_engine {
 public:
  /// Blocks until the mutex is free. `reference` and `answer` must outlive the engine.
  math_scalar_engine(const math_ast& reference, const math_ast& answer,
                     math_compare_settings settings);
  ~math_scalar_engine();
  math_scalar_engine(const math_scalar_engine&) = delete;
  math_scalar_engine& operator=(const math_scalar_engine&) = delete;

  /// Whether two scalar nodes have the same value: exactly when GiNaC's arithmetic
  /// decides it (their difference is a number, or normal() makes it 0 or a nonzero
  /// rational function); else numerically at 30 and 60 digits, after giving variables
  /// the same fixed values on both sides (three points, one of them negative): equal
  /// when the difference vanishes as the precision grows (an identity GiNaC does not
  /// prove, such as sin(pi/12) = (sqrt 6 - sqrt 2)/4 or sqrt 12 = 2 sqrt 3), or, when a
  /// side holds a decimal literal, when it is within relative_tolerance. Two rational
  /// values are never compared with a tolerance (0.333 != 1/3). Undecided is different.
  math_status equal(math_ref a, math_ref b);
  /// Whether equations a_lhs = a_rhs and b_lhs = b_rhs are the same: their differences
  /// are equal, opposite, or a nonzero constant multiple of each other.
  math_status same_equation(math_ref a_lhs, math_ref a_rhs, math_ref b_lhs, math_ref b_rhs);
  /// Whether the node has a value within the limits (equal when it has).
  math_status check(math_ref a);

  /// The GiNaC state (math/math_ginac_engine.cpp only).
  struct impl;

 private:
  std::unique_lock<std::mutex> lock_;  // first: released after impl_ is destroyed
  std::unique_ptr<impl> impl_;
};

}  // namespace adarl
