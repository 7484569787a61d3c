#include "algorithms/objective.hpp"

#include <cmath>
#include <limits>
#include <string>

namespace adarl {

double objective::value(double p) const {
  switch (kind) {
    case objective_kind::linear:
      return p;
    case objective_kind::log:
      return p > 0 ? std::log(p) : -std::numeric_limits<double>::infinity();
    case objective_kind::power:
      return std::pow(p, alpha);
  }
  return p;
}

double objective::weight(double p) const {
  switch (kind) {
    case objective_kind::linear:
      return 1.0;
    case objective_kind::log:
      return p > 0 ? 1.0 / p : std::numeric_limits<double>::infinity();
    case objective_kind::power:
      return p > 0 ? alpha * std::pow(p, alpha - 1.0)
                   : std::numeric_limits<double>::infinity();
  }
  return 1.0;
}

std::string_view objective::name() const {
  switch (kind) {
    case objective_kind::linear:
      return "linear";
    case objective_kind::log:
      return "log";
    case objective_kind::power:
      return "power";
  }
  return "?";
}

result<objective_kind> parse_objective_kind(std::string_view name) {
  if (name == "linear") return objective_kind::linear;
  if (name == "log") return objective_kind::log;
  if (name == "power") return objective_kind::power;
  return error{"unknown objective \"" + std::string(name) +
               "\" (known: linear, log, power)"};
}

}  // namespace adarl
