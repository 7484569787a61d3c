#include "tasks/suite_common.hpp"

#include <unordered_set>

namespace adarl {

split split_of(std::string_view prompt) {
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : prompt) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return (h >> 32) % 5 == 0 ? split::held_out : split::train;
}

std::vector<task_item> generate_items(std::string_view suite, const suite_request& req,
                                      const item_maker& make) {
  std::vector<double> mix = req.difficulty_mix;
  mix.resize(5, 0.0);
  double total = 0;
  for (double w : mix) total += w > 0 ? w : 0;
  if (total <= 0) mix.assign(5, 1.0);
  for (double& w : mix) w = w > 0 ? w : 0;
  std::discrete_distribution<uint32_t> level(mix.begin(), mix.end());
  std::mt19937_64 rng(req.seed * 0x9e3779b97f4a7c15ULL + std::hash<std::string_view>{}(suite));

  const std::string part = req.part == split::train ? "train" : "heldout";
  std::vector<task_item> out;
  std::unordered_set<std::string> seen;
  const uint64_t max_tries = 50ULL * req.count + 1000;
  for (uint64_t tries = 0; out.size() < req.count && tries < max_tries; ++tries) {
    const uint32_t lvl = level(rng) + 1;
    task_item item = make(rng, lvl);
    if (split_of(item.prompt) != req.part || !seen.insert(item.prompt).second) continue;
    item.id = std::string(suite) + "-" + part + "-" + std::to_string(req.seed) + "-" +
              std::to_string(out.size());
    item.task = std::string(suite);
    item.difficulty = lvl;
    out.push_back(std::move(item));
  }
  return out;
}

}  // namespace adarl
