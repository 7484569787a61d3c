// observe: a pipeline configured from YAML text, watched in process: a run_observer
// receives every step line (the fields of metrics.jsonl), every held-out evaluation and
// the tracker's counters as they happen.
#include <caf/all.hpp>
#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include <iostream>
#include <memory>
#include <mutex>
#include <vector>

#include <adarl/actors/run_observer.hpp>
#include <adarl/config/pipeline_reader.hpp>
#include <adarl/pipelines/pipeline_builder.hpp>

namespace {

constexpr const char* config_yaml = R"(
out: observe_run
progress: false
model: {kind: simulated}
tasks: {suite: general, train: 32, held_out: 8}
strategy: {kind: ada-est-online}
tracker: {prompts_per_step: 8, steps: 5}
eval: {every: 2}
)";

/// Keeps what it is told; called from the pipeline's threads, so it locks and copies.
class step_printer final : public adarl::run_observer {
 public:
  void on_step(const nlohmann::json& line) override {
    std::lock_guard lock(mutex_);
    std::cout << "step " << line.at("step") << ": real_reward " << line.at("real_reward")
              << ", zero-gradient fraction " << line.at("zero_gradient_fraction")
              << ", samples " << line.at("samples") << std::endl;
    ++steps_;
  }
  void on_eval(const adarl::eval_report& report) override {
    std::lock_guard lock(mutex_);
    std::cout << "evaluation of version " << report.version << ": held-out accuracy "
              << report.greedy_accuracy << std::endl;
    ++evals_;
  }
  void on_tracker(const adarl::tracker_status& status) override {
    std::lock_guard lock(mutex_);
    ++tracker_reports_;  // about once a second: a short run may see none
    last_results_ = status.results;
  }
  void summary() {
    std::lock_guard lock(mutex_);
    std::cout << "observe: " << steps_ << " steps, " << evals_ << " evaluations observed; "
              << tracker_reports_ << " tracker reports (last: " << last_results_ << " results)\n";
  }

 private:
  std::mutex mutex_;
  int steps_ = 0, evals_ = 0, tracker_reports_ = 0;
  uint64_t last_results_ = 0;
};

}  // namespace

int main() {
  auto config = adarl::read_pipeline_config(YAML::Load(config_yaml), "<observe>", "observe");
  if (!config) {
    std::cerr << config.err().message << "\n";
    return 1;
  }
  caf::actor_system_config cfg;
  cfg.set("scheduler.max-threads", size_t{2});
  caf::actor_system system{cfg};
  auto printer = std::make_shared<step_printer>();
  auto run = adarl::pipeline_builder(*config).observer(printer).start(system);
  auto outcome = run ? (*run)->wait() : adarl::result<adarl::run_outcome>(run.err());
  if (!outcome) {
    std::cerr << "observe: " << outcome.err().message << "\n";
    return 1;
  }
  printer->summary();
  return 0;
}
