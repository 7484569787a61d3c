#include "algorithms/step_types.hpp"

#include <algorithm>
#include <cmath>

namespace adarl {

std::string_view exit_name(exit_kind e) {
  switch (e) {
    case exit_kind::pos:
      return "pos";
    case exit_kind::balance:
      return "balance";
    case exit_kind::fallback_missing_positives:
    case exit_kind::fallback_missing_negatives:
      return "fallback";
    case exit_kind::uniform:
      return "uniform";
    case exit_kind::allocated:
      return "allocated";
    case exit_kind::dropped:
      return "dropped";
    case exit_kind::skipped:
      return "skipped";
  }
  return "?";
}

bool finished_group::zero_gradient() const {
  if (advantages.empty()) return true;
  auto [lo, hi] = std::minmax_element(advantages.begin(), advantages.end());
  return std::fabs(static_cast<double>(*hi) - *lo) < 1e-9;
}

}  // namespace adarl
