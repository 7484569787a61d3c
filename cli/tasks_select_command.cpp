// `adarl tasks select`: parses the flags, reads the config and the pool, calls the
// selection job (experiments/select_job.hpp) and writes the selected prompts.
#include <CLI/CLI.hpp>

#include <filesystem>
#include <iostream>
#include <memory>

#include "cli/commands.hpp"
#include "config/config_reader.hpp"
#include "config/pipeline_reader.hpp"
#include "experiments/cache_dir.hpp"
#include "experiments/run_engines.hpp"
#include "experiments/run_tasks.hpp"
#include "experiments/select_job.hpp"
#include "runtime/interrupt.hpp"

namespace adarl {

namespace {

struct select_args {
  std::string file;
  std::vector<std::string> overrides;
  std::string out, checkpoint, split = "train";
  uint32_t pool = 2000, count = 0;
  select_window window;
  bool no_cache = false;
};

/// The pipeline document of CONFIG (a compare config's `compare:` section is ignored).
result<pipeline_config> read_config(const select_args& a) {
  auto loaded = load_yaml_file(a.file);
  if (!loaded) return loaded.err();
  YAML::Node root = *loaded;
  if (auto ok = apply_overrides(root, a.overrides, a.file); !ok) return ok.err();
  if (!root.IsMap()) return error{a.file + ": expected a mapping at the top level"};
  root.remove("compare");
  return read_pipeline_config(root, a.file, std::filesystem::path(a.file).stem().string());
}

/// The transformer checkpoint to measure with: --checkpoint, else the run's base
/// checkpoint (the SFT warm start, trained now when it is not cached). 0, or the exit
/// status (130 when stopped).
int transformer_policy(const select_args& a, const pipeline_config& c, std::string& policy) {
  if (!a.checkpoint.empty()) {
    policy = a.checkpoint;
    return 0;
  }
  auto base = base_checkpoint(c, std::cout, &sigint_guard::flag());
  if (!base && sigint_guard::flag().load()) {
    std::cerr << "adarl tasks select: stopped: " << base.err().message
              << "; run the same command again to go on\n";
    return 130;
  }
  if (!base) {
    std::cerr << "adarl tasks select: warm start: " << base.err().message << "\n";
    return 1;
  }
  policy = *base;
  return 0;
}

int select_command(const select_args& a) {
  sigint_guard guard;  // before any work: a stop during the warm start counts too
  if (a.out.empty()) {
    std::cerr << "adarl tasks select: --out is required (the JSONL file of selected prompts)\n";
    return 2;
  }
  if (a.split != "train" && a.split != "held-out") {
    std::cerr << "adarl tasks select: --split: expected train or held-out, got \"" << a.split
              << "\"\n";
    return 2;
  }
  if (auto bad = check_window(a.window); !bad.empty()) {
    std::cerr << "adarl tasks select: " << bad << "\n";
    return 2;
  }
  auto c = read_config(a);
  if (!c) {
    std::cerr << c.err().message << "\n";
    return 2;
  }
  const bool train = a.split == "train";
  auto items = load_run_items(*c, train ? a.pool : 1, train ? 1 : a.pool);
  if (!items) {
    std::cerr << a.file << ": " << items.err().message << "\n";
    return 2;
  }
  select_job job;
  job.pool = train ? items->train : items->held_out;
  job.window = a.window;
  job.cache_root = a.no_cache ? "" : cache_dir("select");
  job.describe = {c->tasks.dataset.empty() ? c->tasks.suite : c->tasks.dataset, a.split,
                  train ? c->seed : held_out_key, uint32_t(job.pool.size()),
                  c->tasks.difficulty_mix, ""};
  if (kind_traits(c->policy.kind).sft_warm_start())
    if (int status = transformer_policy(a, *c, job.policy); status != 0) return status;
  auto s = select_prompts(*c, job, std::cout);
  if (!s) {
    std::cerr << "adarl tasks select: " << s.err().message << "\n";
    return sigint_guard::flag().load() ? 130 : 1;
  }
  if (a.count && s->kept.size() > a.count) s->kept.resize(a.count);
  std::cout << histogram_text(s->histogram, s->window);
  if (auto ok = write_selected(a.out, *s); !ok) {
    std::cerr << "adarl tasks select: " << ok.err().message << "\n";
    return 1;
  }
  std::cout << "wrote " << s->kept.size() << " prompts to " << a.out << "\n";
  return 0;
}

}  // namespace

void add_tasks_select_command(CLI::App& tasks, int& exit_code) {
  auto a = std::make_shared<select_args>();
  auto* cmd = tasks.add_subcommand(
      "select", "Keep the prompts a policy solves sometimes: K samples each, a window of correct");
  cmd->add_option("config", a->file, "pipeline or compare YAML: tasks, model, sampling")
      ->required();
  cmd->add_option("overrides", a->overrides, "key.path=value overrides");
  cmd->add_option("--out", a->out, "JSONL file of the selected prompts (written atomically)");
  cmd->add_option("--checkpoint", a->checkpoint,
                  "policy checkpoint (default: model.base_checkpoint, else the SFT base)");
  cmd->add_option("--split", a->split, "train (default) or held-out: which pool");
  cmd->add_option("--pool", a->pool, "candidate prompts (default 2000)")->check(CLI::PositiveNumber);
  cmd->add_option("--count", a->count, "keep at most this many (default: all in the window)");
  cmd->add_option("--k", a->window.k, "samples per prompt (default 16)");
  cmd->add_option("--min-correct", a->window.min_correct, "fewest correct to keep (default 1)");
  cmd->add_option("--max-correct", a->window.max_correct, "most correct to keep (default 5)");
  cmd->add_flag("--no-cache", a->no_cache, "measure again, write no cache entry");
  cmd->callback([&exit_code, a] { exit_code = select_command(*a); });
}

}  // namespace adarl
