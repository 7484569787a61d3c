// custom_engine: a generation engine and a learner engine written outside adarl (a
// tabular policy: one logit per prompt, answered right with probability sigmoid(logit))
// plugged into the pipeline through engines/engine.hpp.
#include <caf/all.hpp>

#include <atomic>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <vector>

#include <adarl/engines/engine.hpp>
#include <adarl/tokenizers/tokenizer.hpp>
#include <adarl/pipelines/pipeline_builder.hpp>

namespace {

/// The policy's parameters at one version (immutable once published).
struct table_weights : adarl::policy_weights {
  std::vector<double> logits;  ///< One per prompt id.
};

double sigmoid(double x) { return 1 / (1 + std::exp(-x)); }

/// A uniform in [0, 1) from a sample's random stream (the stream is already keyed by
/// seed, step, prompt and sample index).
double uniform_of(uint64_t stream) {
  stream ^= stream >> 33;
  stream *= 0xff51afd7ed558ccdull;
  stream ^= stream >> 33;
  return double(stream >> 11) * 0x1.0p-53;
}

/// Generator: every admitted row finishes at the next step() with the prompt's answer
/// (probability p) or a wrong one.
class table_generator final : public adarl::generation_engine {
 public:
  table_generator(adarl::prompt_table_ptr prompts, std::shared_ptr<std::atomic<uint64_t>> drawn)
      : prompts_(std::move(prompts)), drawn_(std::move(drawn)) {}
  uint32_t capacity() const override { return 64; }
  uint32_t active() const override { return uint32_t(rows_.size()); }
  void admit(adarl::generation_job job) override { rows_.push_back(std::move(job)); }
  void step(std::vector<adarl::generation_result>& out) override {
    for (const auto& job : rows_) {
      const double p = weights_ ? sigmoid(weights_->logits.at(job.prompt_id)) : 0.5;
      const bool right = job.greedy ? p > 0.5 : uniform_of(job.stream) < p;
      const auto& answer = prompts_->rows.at(job.prompt_id).item.answer;
      adarl::generation_result r;
      r.ticket = job.ticket;
      if (auto ids = tok_.encode(right ? answer : "?", "answer")) r.tokens = std::move(*ids);
      r.tokens.push_back(adarl::tokenizer::eos);
      r.logprobs.assign(r.tokens.size(), 0.f);
      r.logprobs[0] = float(std::log(std::max(right ? p : 1 - p, 1e-30)));
      r.ended = true;
      r.version = version();
      out.push_back(std::move(r));
      *drawn_ += 1;
    }
    rows_.clear();
  }
  adarl::result<bool> load(const adarl::weights_ptr& w) override {
    auto t = std::dynamic_pointer_cast<const table_weights>(w);
    if (!t) return adarl::error{"table_generator: weights of another engine"};
    weights_ = std::move(t);
    return true;
  }
  uint64_t version() const override { return weights_ ? weights_->version : 0; }

 private:
  adarl::prompt_table_ptr prompts_;
  std::shared_ptr<std::atomic<uint64_t>> drawn_;
  adarl::tokenizer tok_ = *adarl::tokenizer::from_charset(adarl::tokenizer::default_charset());
  std::shared_ptr<const table_weights> weights_;
  std::vector<adarl::generation_job> rows_;
};

/// Learner: REINFORCE on the logits, logit += lr * advantage * d log p(y) / d logit.
class table_learner final : public adarl::learner_engine {
 public:
  explicit table_learner(size_t prompts) : logits_(prompts, -1.0) {}
  adarl::result<adarl::train_stats> train(const std::vector<adarl::train_sample>& batch) override {
    if (batch.empty()) return adarl::train_stats{};
    for (const auto& s : batch) {
      double& x = logits_.at(s.prompt_id);
      x += 0.5 * s.advantage * ((s.reward > 0.5 ? 1.0 : 0.0) - sigmoid(x));
    }
    ++version_;
    adarl::train_stats st;
    st.samples = batch.size();
    return st;
  }
  adarl::weights_ptr snapshot() override {
    auto w = std::make_shared<table_weights>();
    w->version = version_;
    w->logits = logits_;
    return w;
  }
  uint64_t version() const override { return version_; }
  adarl::result<bool> save(const std::string& dir) override {
    std::filesystem::create_directories(dir);
    std::ofstream f(dir + "/table.txt");
    f << version_;
    for (double x : logits_) f << ' ' << x;
    return bool(f) ? adarl::result<bool>(true) : adarl::error{dir + ": cannot write"};
  }
  adarl::result<bool> restore(const std::string& dir) override {
    std::ifstream f(dir + "/table.txt");
    f >> version_;
    for (double& x : logits_) f >> x;
    return bool(f) ? adarl::result<bool>(true) : adarl::error{dir + ": cannot read"};
  }

 private:
  std::vector<double> logits_;
  uint64_t version_ = 0;
};

}  // namespace

int main() {
  caf::actor_system_config cfg;
  cfg.set("scheduler.max-threads", size_t{2});
  caf::actor_system system{cfg};

  adarl::pipeline_config config;
  config.name = "custom_engine";
  config.out = "custom_engine_run";
  config.progress = false;
  config.deterministic = true;
  config.tracker.lag.exact = true;
  config.policy.kind = adarl::policy_kind::simulated;  // no built-in model to load
  config.tasks.suite = "math";
  config.tasks.train = 16;
  config.tasks.held_out = 8;
  config.tracker.steps = 6;
  config.tracker.prompts_per_step = 8;
  config.tracker.strategy.kind = adarl::strategy_kind::ada_seq;

  adarl::pipeline_builder builder(config);
  auto prompts = builder.build_prompts();  // the suite's items, tokenized
  if (!prompts) {
    std::cerr << "custom_engine: " << prompts.err().message << "\n";
    return 1;
  }
  auto drawn = std::make_shared<std::atomic<uint64_t>>(0);
  adarl::engine_factories engines;
  engines.generator = [table = *prompts, drawn](uint32_t)
      -> adarl::result<std::unique_ptr<adarl::generation_engine>> {
    return std::unique_ptr<adarl::generation_engine>(std::make_unique<table_generator>(table, drawn));
  };
  engines.learner = [n = (*prompts)->rows.size()]()
      -> adarl::result<std::unique_ptr<adarl::learner_engine>> {
    return std::unique_ptr<adarl::learner_engine>(std::make_unique<table_learner>(n));
  };
  auto run = builder.prompts(*prompts).engines(engines).start(system);
  auto outcome = run ? (*run)->wait() : adarl::result<adarl::run_outcome>(run.err());
  if (!outcome) {
    std::cerr << "custom_engine: " << outcome.err().message << "\n";
    return 1;
  }
  std::cout << "custom_engine: the table engine drew " << *drawn << " completions; trained to "
            << "version " << outcome->version << "; checkpoint " << outcome->checkpoint << "\n";
  return *drawn > 0 ? 0 : 1;
}
