#include "tasks/verifier_registry.hpp"

namespace adarl {

void verifier_registry::add(std::unique_ptr<verifier> v) {
  const std::string key(v->name());
  by_name_[key] = std::move(v);
}

result<const verifier*> verifier_registry::find(const std::string& name) const {
  auto it = by_name_.find(name);
  if (it != by_name_.end()) return static_cast<const verifier*>(it->second.get());
  std::string known;
  for (const auto& [k, v] : by_name_) known += (known.empty() ? "" : ", ") + k;
  return error{"unknown verifier \"" + name + "\" (known: " + known + ")"};
}

std::vector<std::string> verifier_registry::names() const {
  std::vector<std::string> out;
  for (const auto& [k, v] : by_name_) out.push_back(k);
  return out;
}

}  // namespace adarl
