// `adarl run CONFIG [key.path=value ...] [--resume DIR]`: train end to end.
// Links LibTorch (the built-in policy's engines and the SFT warm start).
#include <CLI/CLI.hpp>

#include <atomic>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "models/checkpoint.hpp"
#include "models/sim_engines.hpp"
#include "models/torch_engines.hpp"
#include "pipelines/pipeline.hpp"
#include "runtime/commands.hpp"
#include "runtime/pipeline_reader.hpp"
#include "runtime/run_tasks.hpp"
#include "runtime/sft_job.hpp"

namespace adarl {

namespace {

std::atomic<bool> stop_requested{false};

extern "C" void on_sigint(int) {
  // A second Ctrl-C ends the process at once.
  if (stop_requested.exchange(true)) std::_Exit(130);
}

/// The base checkpoint of a transformer run: the configured one, or the SFT warm start
/// cached under runs/sft-cache/<key> (trained now when absent).
result<std::string> base_checkpoint(const pipeline_config& c) {
  if (!c.policy.base_checkpoint.empty()) return c.policy.base_checkpoint;
  const std::string dir = "runs/sft-cache/" + sft_cache_key(c);
  if (read_checkpoint_meta(dir)) {
    std::cout << "run: SFT warm start from the cache " << dir << "\n";
    return dir;
  }
  sft_job_config s;
  s.model = c.policy.model;
  s.suite = c.tasks.suite;
  s.dataset = c.tasks.dataset;
  s.count = c.policy.sft_count;
  s.seed = c.seed;
  s.difficulty_mix = c.tasks.difficulty_mix;
  s.steps = c.policy.sft_steps;
  s.batch_size = c.policy.sft_batch_size;
  s.lr = c.policy.sft_lr;
  s.eval_count = 0;
  s.out = dir;
  s.device = c.policy.device;
  s.threads = c.actors.learner_threads;
  std::cout << "run: SFT warm start (" << s.steps << " steps), cached in " << dir << "\n";
  auto r = run_sft_job(s, std::cout);
  if (!r) return r.err();
  std::cout << "run: SFT loss " << r->loss_before << " -> " << r->loss_after << "\n";
  return dir;
}

engine_factories torch_factories(const pipeline_config& c, const std::string& base) {
  auto tok = *tokenizer::from_charset(tokenizer::default_charset());
  torch_policy_config policy;
  policy.model = c.policy.model;
  policy.model.vocab_size = tok.size();
  policy.charset = tok.charset();
  policy.device = c.policy.device;
  policy.init_checkpoint = base;
  policy.init_seed = c.seed;
  torch_generator_config g;
  g.policy = policy;
  g.policy.threads = c.actors.generator_threads;
  g.capacity = c.actors.generator_capacity;
  g.sampling = c.sampling;
  torch_learner_config l;
  l.policy = policy;
  l.policy.threads = c.actors.learner_threads;
  l.optimizer = c.learner.optimizer;
  l.loss = c.learner.loss;
  l.temperature = c.sampling.temperature;
  l.micro_batch = int32_t(c.learner.micro_batch);
  engine_factories f;
  f.generator = [g](uint32_t) { return make_torch_generator(g); };
  f.learner = [l] { return make_torch_learner(l); };
  return f;
}

void print_line(const std::string& file, bool last, const char* label) {
  std::ifstream f(file);
  std::string line, keep;
  while (std::getline(f, line)) {
    keep = line;
    if (!last) break;
  }
  if (!keep.empty()) std::cout << label << keep << "\n";
}

int run_command(const std::string& file, const std::vector<std::string>& overrides,
                const std::string& resume) {
  auto config = load_pipeline_config(file, overrides);
  if (!config) {
    std::cerr << config.err().message << "\n";
    return 2;
  }
  const pipeline_config& c = *config;
  std::cout << describe(c) << "\n";
  auto prompts = load_run_prompts(c);
  if (!prompts) {
    std::cerr << file << ": " << prompts.err().message << "\n";
    return 2;
  }
  run_options o;
  o.log = &std::cerr;
  o.stop = &stop_requested;
  if (!resume.empty()) {
    auto ckpt = resolve_checkpoint(resume);
    if (!ckpt) {
      std::cerr << "--resume: " << ckpt.err().message << "\n";
      return 2;
    }
    o.resume_from = *ckpt;
    std::cout << "run: resuming from " << *ckpt << "\n";
  }
  engine_factories engines;
  if (c.policy.kind == policy_kind::simulated) {
    engines = sim_factories(c, *prompts);
  } else {
    auto base = base_checkpoint(c);
    if (!base) {
      std::cerr << "run: warm start: " << base.err().message << "\n";
      return 1;
    }
    engines = torch_factories(c, *base);
  }
  std::filesystem::create_directories(c.out);
  stop_requested = false;
  auto previous = std::signal(SIGINT, on_sigint);
  auto r = run_pipeline(c, *prompts, engines, o);
  std::signal(SIGINT, previous);
  if (!r) {
    std::cerr << "run: " << r.err().message << "\n";
    return 1;
  }
  std::cout << "run: " << (r->interrupted ? "stopped" : "finished") << " at version "
            << r->version << "; checkpoint " << r->checkpoint << "\n";
  print_line(c.out + "/metrics.jsonl", false, "first step: ");
  print_line(c.out + "/metrics.jsonl", true, "last step:  ");
  print_line(c.out + "/eval.jsonl", false, "first eval: ");
  print_line(c.out + "/eval.jsonl", true, "last eval:  ");
  if (r->interrupted)
    std::cout << "continue with: adarl run " << file << " --resume " << c.out << "\n";
  return 0;
}

}  // namespace

void add_run_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("run", "train a policy end to end from a pipeline config");
  auto file = std::make_shared<std::string>();
  auto resume = std::make_shared<std::string>();
  auto overrides = std::make_shared<std::vector<std::string>>();
  cmd->add_option("config", *file, "pipeline YAML (see configs/quickstart.yaml)")->required();
  cmd->add_option("overrides", *overrides, "key.path=value overrides");
  cmd->add_option("--resume", *resume, "continue a run from its output directory or a checkpoint");
  cmd->callback([&exit_code, file, overrides, resume] {
    exit_code = run_command(*file, *overrides, *resume);
  });
}

}  // namespace adarl
