#include "experiments/compare_prompts.hpp"

#include <ostream>

#include "experiments/cache_dir.hpp"
#include "experiments/run_tasks.hpp"
#include "experiments/select_job.hpp"

namespace adarl {

result<prompt_table_ptr> compare_prompts(const compare_plan& plan, const std::string& base,
                                         std::ostream& log) {
  const auto& c = plan.base;
  const auto& sel = plan.settings.select;
  if (!sel.enabled) return load_run_prompts(c);
  auto items = load_run_items(c, sel.train_pool, sel.held_out_pool);
  if (!items) return items.err();
  // A pool that came out smaller than asked is said, not measured as if it were full.
  for (const auto& line : pool_shortfall(c, *items, sel.train_pool, sel.held_out_pool,
                                         "compare.select.train_pool",
                                         "compare.select.held_out_pool"))
    log << "compare: warning: " << line << "\n";
  const select_window w{sel.k, sel.min_correct, sel.max_correct};
  const std::string source = c.tasks.dataset.empty() ? c.tasks.suite : c.tasks.dataset;
  std::vector<task_item> chosen[2];
  const uint32_t want[2] = {c.tasks.train, c.tasks.held_out};
  for (int part = 0; part < 2; ++part) {
    select_job job;
    job.policy = base;
    job.cache_root = cache_dir("select");
    job.pool = part == 0 ? items->train : items->held_out;
    job.window = w;
    job.describe = {source, part == 0 ? "train" : "held-out", part == 0 ? c.seed : held_out_key,
                    uint32_t(job.pool.size()), c.tasks.difficulty_mix, ""};
    auto s = select_prompts(c, job, log);
    if (!s) return error{"compare.select: " + s.err().message};
    log << (part == 0 ? "training" : "held-out") << " pool:\n"
        << histogram_text(s->histogram, s->window);
    for (const auto& k : s->kept)
      if (chosen[part].size() < want[part]) chosen[part].push_back(k.item);
    if (chosen[part].size() < want[part])
      log << "compare: warning: only " << chosen[part].size() << " selected "
          << job.describe.split << " prompts for tasks."
          << (part == 0 ? "train " : "held_out ") << want[part]
          << " (raise compare.select." << (part == 0 ? "train_pool" : "held_out_pool")
          << ")\n";
  }
  log << "compare: " << chosen[0].size() << " training and " << chosen[1].size()
      << " held-out prompts selected\n";
  return make_run_prompts(c, chosen[0], chosen[1]);
}

}  // namespace adarl
