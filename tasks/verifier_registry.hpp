#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "algorithms/result.hpp"
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

}  // namespace adarl
