#include "config/resume_check.hpp"

#include <fstream>
#include <set>

#include <nlohmann/json.hpp>

namespace adarl {

bool is_state_key(const std::string& key) {
  auto under = [&](const char* prefix) { return key.rfind(prefix, 0) == 0; };
  if (key == "seed" || key == "deterministic") return true;
  if (under("model.")) return key != "model.device" && key != "model.base_checkpoint";
  if (under("tasks.") || under("strategy.") || under("tracker.estimator.")) return true;
  return key == "tracker.prompts_per_step" || key == "tracker.max_lag" ||
         key == "tracker.sync_rounds";
}

std::vector<std::string> state_differences(const std::map<std::string, std::string>& saved,
                                           const std::map<std::string, std::string>& now) {
  std::set<std::string> keys;
  for (const auto& [k, v] : saved)
    if (is_state_key(k)) keys.insert(k);
  for (const auto& [k, v] : now)
    if (is_state_key(k)) keys.insert(k);
  std::vector<std::string> out;
  for (const auto& k : keys) {
    const auto a = saved.find(k), b = now.find(k);
    const std::string then = a == saved.end() ? "absent" : "\"" + a->second + "\"";
    const std::string is = b == now.end() ? "absent" : "\"" + b->second + "\"";
    if (then != is) out.push_back(k + ": " + then + " then, " + is + " now");
  }
  return out;
}

}  // namespace adarl
