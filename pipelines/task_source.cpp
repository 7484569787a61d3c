#include "pipelines/task_source.hpp"

#include <algorithm>
#include <utility>

#include "base/random_keys.hpp"
#include "tasks/dataset.hpp"
#include "tasks/reference_check.hpp"
#include "tasks/suites.hpp"

namespace adarl {

std::string item_origin(const task_set& set, const task_item& item) {
  auto it = set.origin.find(item.id);
  return it == set.origin.end() ? std::string() : it->second + ": ";
}

result<task_set> config_tasks(const pipeline_config& c, const verifier_registry* known) {
  const auto& t = c.tasks;
  task_set out;
  if (!t.dataset.empty()) {
    const auto builtins = known ? verifier_registry{} : verifier_registry::with_builtins();
    // Unusable references (a solution without a readable answer, python tests not in
    // the cases format) would score 0 forever: refused here, naming FILE:LINE.
    std::vector<uint32_t> lines;
    const dataset_format format{t.fields, t.verifier, t.prompt_template, t.verifiers};
    auto items = load_checked_dataset(t.dataset, known ? *known : builtins, &lines, format);
    if (!items) return items.err();
    for (size_t i = 0; i < items->size() && i < lines.size(); ++i)
      out.origin[(*items)[i].id] = t.dataset + ":" + std::to_string(lines[i]);
    std::vector<std::pair<uint64_t, size_t>> order;
    // Keyed apart from the seed: every seed of a comparison gets the same held-out items.
    for (size_t i = 0; i < items->size(); ++i) order.push_back({mix_keys(held_out_key, i), i});
    std::sort(order.begin(), order.end());
    const size_t h = std::min<size_t>(t.held_out, order.size() / 2);
    for (size_t k = 0; k < order.size(); ++k)
      (k < h ? out.held_out : out.train).push_back((*items)[order[k].second]);
    if (out.train.size() > t.train) out.train.resize(t.train);
  } else {
    // The warm start trains on the suite's items of seed c.seed: RL draws other ones.
    auto tr = generate_suite(t.suite, {mix_keys(c.seed, 0x524c), t.train, t.difficulty_mix,
                                       split::train});
    if (!tr) return tr.err();
    // One held-out set whatever the run's seed, so that seeds are compared on it.
    auto ho = generate_suite(t.suite, {held_out_key, t.held_out, t.difficulty_mix,
                                       split::held_out});
    if (!ho) return ho.err();
    out.train = std::move(*tr);
    out.held_out = std::move(*ho);
  }
  return out;  // no training item is the caller's error to report (it may want none)
}

}  // namespace adarl
