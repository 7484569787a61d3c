#include "experiments/select_job.hpp"

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <mutex>
#include <sstream>
#include <string_view>
#include <thread>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "base/atomic_file.hpp"
#include "base/random_keys.hpp"
#include "experiments/cache_dir.hpp"
#include "experiments/run_engines.hpp"
#include "experiments/run_tasks.hpp"
#include "pipelines/pipeline.hpp"
#include "runtime/interrupt.hpp"
#include "tasks/dataset.hpp"

namespace adarl {

namespace {

/// Catches the first evaluation (version 0: the pool's measurement) as it is written.
class first_eval : public run_observer {
 public:
  void on_step(const nlohmann::json&) override {}
  void on_tracker(const tracker_status&) override {}
  void on_eval(const eval_report& r) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (r.version != 0 || done_) return;
    rates_ = r.prompt_sampled;
    done_ = true;
  }
  bool done() const {
    std::lock_guard<std::mutex> lock(mu_);
    return done_;
  }
  std::vector<float> rates() const {
    std::lock_guard<std::mutex> lock(mu_);
    return rates_;
  }

 private:
  mutable std::mutex mu_;
  bool done_ = false;
  std::vector<float> rates_;
};

/// Hashes a file's bytes into `h`; false when it cannot be read.
bool hash_file(const std::string& file, uint64_t& h) {
  std::ifstream f(file, std::ios::binary);
  if (!f) return false;
  std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  h = mix_keys(mix_keys(h, uint64_t(std::hash<std::string>{}(bytes))), uint64_t(bytes.size()));
  return true;
}

std::string sampling_text(const pipeline_config& c) {
  std::ostringstream s;
  s << c.sampling.temperature << ' ' << c.sampling.top_p << ' ' << c.sampling.max_new_tokens
    << ' ' << c.tasks.prompt_format << ' ' << c.seed << ' ' << c.policy.model.max_len;
  return s.str();
}

/// The pool's k-sample measurement: an evaluation of version 0 over the pool (held-out
/// part of the table), stopped as soon as it is written.
result<std::vector<uint32_t>> measure(const pipeline_config& c, const select_job& job,
                                      const std::string& scratch, std::ostream& log) {
  pipeline_config e = c;
  e.eval.greedy = false;
  e.eval.samples = job.window.k;
  e.eval.every = 0;
  e.eval.every_samples = 0;
  e.tracker.steps = 1;
  e.tracker.sample_budget = 0;
  e.tracker.prompts_per_step = 1;
  e.tracker.strategy = strategy_config{};
  e.tracker.strategy.kind = strategy_kind::grpo;
  e.tracker.strategy.uniform.group_size = 2;  // the one training step is a formality
  e.out = scratch;
  e.progress = false;
  e.effective.clear();
  e.learner.checkpoint_every = 0;
  e.metrics.listen.clear();
  auto table = make_run_prompts(e, {job.pool.front()}, job.pool);
  if (!table) return table.err();
  register_torch_engines();
  engine_request request;
  request.config = &e;
  request.prompts = *table;
  request.base = job.policy;
  auto built = engines_for(request);
  if (!built) return built.err();
  const engine_factories engines = std::move(*built);
  auto seen = std::make_shared<first_eval>();
  std::atomic<bool> stop{false}, finished{false};
  bool interrupted = false;
  result<run_outcome> r = error{"not run"};
  {
    sigint_guard guard;
    // Stops the run once the measurement is written (or on Ctrl-C).
    std::thread watch([&] {
      while (!finished.load()) {
        if (seen->done() || sigint_guard::flag().load()) {
          interrupted = !seen->done();
          stop = true;
          return;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
    });
    run_options o;
    o.stop = &stop;
    o.stop_line = "";  // the measurement's own end, not a user's stop: nothing to say
    o.observer = seen;
    o.log = &log;
    r = run_pipeline(e, *table, engines, o);
    finished = true;
    watch.join();
  }
  std::error_code ec;
  std::filesystem::remove_all(scratch, ec);
  if (!r) return r.err();
  if (interrupted) return error{"stopped (Ctrl-C) before the measurement was complete"};
  const auto rates = seen->rates();
  if (rates.size() != job.pool.size())
    return error{"the measurement covered " + std::to_string(rates.size()) + " of " +
                 std::to_string(job.pool.size()) + " prompts"};
  std::vector<uint32_t> correct;
  for (float x : rates) correct.push_back(correct_of(x, job.window.k));
  return correct;
}

}  // namespace

result<std::string> policy_identity(const std::string& checkpoint) {
  uint64_t h = 0x5e1ec7ull;
  for (const char* f : {"meta.json", "model.bin"})
    if (!hash_file(checkpoint + "/" + f, h))
      return error{checkpoint + "/" + f + ": cannot read the policy's checkpoint"};
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return std::string(buf);
}

namespace {

/// Every prompt of a cached selection must be the pool's prompt of that id, field for
/// field: the cache stores answers and tests that the run would use unchecked, so an
/// entry edited in place (or a pool regenerated differently) is measured again.
result<bool> check_against_pool(const selection& s, const std::vector<task_item>& pool,
                                const std::string& dir) {
  std::unordered_map<std::string_view, const task_item*> by_id;
  for (const auto& item : pool) by_id.emplace(item.id, &item);
  for (size_t i = 0; i < s.kept.size(); ++i) {
    const task_item& cached = s.kept[i].item;
    auto it = by_id.find(cached.id);
    if (it == by_id.end())
      return error{dir + "/selected.jsonl:" + std::to_string(i + 1) + ": prompt " + cached.id +
                   " is not in the pool"};
    if (to_jsonl(cached) != to_jsonl(*it->second))
      return error{dir + "/selected.jsonl:" + std::to_string(i + 1) + ": prompt " + cached.id +
                   " differs from the pool's (edited after it was cached?)"};
  }
  return true;
}

}  // namespace

result<selection> select_prompts(const pipeline_config& c, const select_job& job,
                                 std::ostream& log) {
  if (auto bad = check_window(job.window); !bad.empty()) return error{bad};
  if (job.pool.empty()) return error{"the pool holds no prompts"};
  // The kind and its policy: a warm-started kind's base checkpoint by its bytes, any
  // other by its fingerprint (pipelines/engine_registry.hpp).
  std::string identity = std::string(policy_kind_name(c.policy.kind)) + ":";
  if (kind_traits(c.policy.kind).sft_warm_start()) {
    auto id = policy_identity(job.policy);
    if (!id) return id.err();
    identity += *id;
  } else {
    identity += policy_fingerprint(c.policy);
  }
  select_pool pool = job.describe;
  pool.sampling = sampling_text(c);
  pool.items = items_hash(job.pool);
  const std::string key = select_cache_key(identity, pool, job.window);
  const std::string dir = job.cache_root.empty() ? "" : job.cache_root + "/" + key;
  if (!dir.empty() && std::filesystem::exists(dir + "/selection.json")) {
    auto cached = read_selection_cache(dir);
    if (cached)
      if (auto ok = check_against_pool(*cached, job.pool, dir); !ok) cached = ok.err();
    if (cached) {
      log << "select: " << pool.split << " prompts from the cache " << dir << "\n";
      return cached;
    }
    log << "select: the cache entry is unusable (" << cached.err().message << "); measuring again\n";
  }
  log << "select: " << job.pool.size() << " " << pool.split << " prompts x " << job.window.k
      << " samples" << (dir.empty() ? "" : ", cached in " + dir) << "\n";
  const auto t0 = std::chrono::steady_clock::now();
  // Per process: two selections of one key (two compares sharing it) never share it.
  const std::string scratch = staging_path(
      (dir.empty() ? std::filesystem::temp_directory_path().string() + "/adarl-select-" + key
                   : dir) + "/measure");
  auto correct = measure(c, job, scratch, log);
  if (!correct) return correct.err();
  auto s = select_in_window(job.pool, *correct, job.window);
  log << "select: measured in "
      << std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() << " s\n";
  if (!dir.empty())
    if (auto ok = write_selection_cache(dir, s); !ok) return ok.err();
  return s;
}

}  // namespace adarl
