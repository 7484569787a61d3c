#include "tasks/verifier_registry.hpp"

#include <nlohmann/json.hpp>

#include "base/jsonl_text.hpp"

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
  // Quoted as a JSON string: a name from a dataset may hold a newline, and each line of
  // a dataset's error message must name the file (tasks/dataset.hpp).
  return error{"unknown verifier " + json_quoted(name) + " (known: " + known + ")"};
}

std::vector<std::string> verifier_registry::names() const {
  std::vector<std::string> out;
  for (const auto& [k, v] : by_name_) out.push_back(k);
  return out;
}

verdict verify_item(const verifier_registry& registry, const task_item& item,
                    std::string_view completion) {
  auto v = registry.find(item.verifier);
  if (!v) return {0.f, "unknown_verifier"};
  verdict d;
  try {
    d = (*v)->verify(item, completion);
  } catch (...) {  // verifiers promise not to throw; a broken one costs a zero reward
    return {0.f, "verifier_error"};
  }
  return settled(std::move(d));
}

verdict settled(verdict d) {
  if (!(d.reward > 0.f)) return {0.f, d.reason.empty() ? "wrong" : std::move(d.reason)};
  return {d.reward, std::string()};
}

}  // namespace adarl
