#pragma once
// The non-linear objectives f(p) and their weights f'(p) (linear, log, power).

#include <string_view>

#include "base/result.hpp"

namespace adarl {

/// Which non-linear objective J_f = E_x[f(p(x))] a strategy optimises.
enum class objective_kind {
  linear,  ///< f(p) = p: standard RL, weight 1.
  log,     ///< f(p) = log p: weight 1/p.
  power,   ///< f(p) = p^a with 0 < a < 1: weight a p^(a-1).
};

/// An objective f and its per-prompt weight f'(p) (docs/algorithm.md "The objective and its weight").
/// Pure and thread-safe; every call is O(1).
struct objective {
  objective_kind kind = objective_kind::log;
  double alpha = 0.5;  ///< Exponent of the power objective; ignored otherwise.

  /// f(p). For log at p = 0 this is -infinity.
  double value(double p) const;
  /// f'(p), the weight of a prompt with pass rate p. For log and power at p = 0 this
  /// is +infinity: callers add an epsilon or clamp p first.
  double weight(double p) const;
  /// The name used in configs: "linear", "log" or "power".
  std::string_view name() const;
};

/// Parses "linear", "log" or "power"; an unknown name is an error listing the known ones.
result<objective_kind> parse_objective_kind(std::string_view name);

}  // namespace adarl
