// verifier_registry::with_builtins: the one place that knows every built-in verifier.
#include <memory>

#include "tasks/expr_verifier.hpp"
#include "tasks/general_verifier.hpp"
#include "tasks/math_verifier.hpp"
#include "tasks/python_verifier.hpp"
#include "tasks/verifier_registry.hpp"

namespace adarl {

verifier_registry verifier_registry::with_builtins() {
  verifier_registry r;
  r.add(std::make_unique<general_verifier>());
  r.add(std::make_unique<general_verifier>(general_verifier_config{
      .name = "general_ci", .trim = true, .fold_case = true, .after_marker = false}));
  r.add(std::make_unique<regex_verifier>());
  r.add(std::make_unique<math_verifier>());
  r.add(std::make_unique<expr_verifier>());
  r.add(std::make_unique<python_verifier>());
  return r;
}

}  // namespace adarl
