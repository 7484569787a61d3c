#pragma once
// Verifiers by name, built once at start-up.

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "tasks/verifier.hpp"

namespace adarl {

/// Verifiers by name. Built once at start-up, then read-only (thread-safe to read).
class verifier_registry {
 public:
  /// A registry holding every built-in verifier with default settings: "math",
  /// "general", "general_ci" (case-insensitive), "regex", "expr", and "python" (present
  /// whether or not python3 exists; without it, each verify is a zero reward with
  /// reason "python_unavailable").
  static verifier_registry with_builtins();

  /// Adds or replaces a verifier under its name().
  void add(std::unique_ptr<verifier> v);
  /// The verifier of that name; an unknown name is an error listing the known ones.
  result<const verifier*> find(const std::string& name) const;
  /// Known names, sorted.
  std::vector<std::string> names() const;

 private:
  std::map<std::string, std::unique_ptr<verifier>> by_name_;
};

/// The reward rule every scorer follows: a zero (or NaN) reward carries a reason ("wrong"
/// when none was given), a positive one carries none.
verdict settled(verdict d);

/// Scores one completion with the item's verifier from `registry`. Never throws: an
/// unknown verifier is a zero reward with reason "unknown_verifier", a verifier that
/// throws one with "verifier_error"; a zero reward always carries a reason ("wrong" when
/// the verifier gave none), a positive one never does. Thread-safe.
verdict verify_item(const verifier_registry& registry, const task_item& item,
                    std::string_view completion);

}  // namespace adarl
