// The learner of a Hugging Face model (models/hf_engines.hpp): the one learner
// (models/train/policy_learner.hpp) over the HF decoder, with checkpoints as HF directories
// (models/weights/hf_weights.hpp); its replica ranks and their join text.
#include <filesystem>
#include <memory>
#include <string>
#include <utility>

#include "models/device.hpp"
#include "models/weights/hf_policy.hpp"
#include "models/train/policy_learner.hpp"

namespace adarl {

namespace {

// An HF directory written back in the input's dtype, with the float32 master weights
// and the optimizer beside it.
class hf_checkpoints final : public learner_checkpoints {
 public:
  hf_checkpoints(hf_model model, hf_source source)
      : model_(std::move(model)), source_(std::move(source)) {}

  result<bool> save(const std::string& dir, policy_optimizer& opt, int64_t step) override {
    return save_hf_checkpoint(dir, model_, source_, &opt, step);
  }
  result<int64_t> load(const std::string& dir, policy_optimizer* opt) override {
    return load_hf_checkpoint(dir, model_, opt);
  }
  bool has_optimizer_state(const std::string& dir) const override {
    return std::filesystem::exists(std::filesystem::path(dir) / "optimizer.safetensors");
  }

 private:
  hf_model model_;
  hf_source source_;  ///< Written back with every checkpoint.
};

// The join text of `c` built as `policy`: its config.json (by hash), length and pad id.
std::string config_text_of(const hf_learner_config& c, const hf_policy& policy) {
  return learner_config_lines(learner_settings_of(c), c.policy.device,
                              {{"model.config_hash", text_hash(policy.source.config_json)},
                               {"model.max_len", std::to_string(c.policy.max_len)},
                               {"learner.pad_id", std::to_string(c.pad_id)}});
}

// The learner of `c` (device and settings checked, the model built), not joined to its
// replicas yet.
result<std::unique_ptr<policy_learner>> build_hf_learner(const hf_learner_config& c) {
  auto device = parse_device(c.policy.device);
  if (!device) return device.err();
  auto settings = learner_settings_of(c);
  if (auto p = learner_settings_problem(settings); !p.empty()) return error{p};
  try {
    at::set_num_threads(c.policy.threads);
    auto policy = build_hf_policy(c.policy, *device);
    if (!policy) return policy.err();
    if (c.pad_id < 0 || c.pad_id >= policy->model->config().vocab_size)
      return error{"learner pad id " + std::to_string(c.pad_id) + " outside the vocabulary"};
    settings.config_text = config_text_of(c, *policy);
    auto model = learner_model_of(policy->model);
    auto checkpoints =
        std::make_unique<hf_checkpoints>(policy->model, std::move(policy->source));
    return std::make_unique<policy_learner>(std::move(settings), *device, std::move(model),
                                            std::move(checkpoints));
  } catch (const std::exception& e) {
    return torch_error("learner", e);
  }
}

}  // namespace

result<std::unique_ptr<learner_engine>> make_hf_learner(const hf_learner_config& c,
                                                       const replica_join_watch& watch) {
  return make_coordinator(c.replicas, [&c] { return build_hf_learner(c); }, watch);
}

result<uint64_t> serve_hf_learner_replica(const hf_learner_config& c,
                                          const std::atomic<bool>* stop,
                                          const replica_step_observer& on_step) {
  // The weights come from rank 0: the architecture from config.json alone.
  auto build = [&c]() -> result<std::unique_ptr<policy_learner>> {
    auto own = c;
    if (!own.policy.path.empty()) {
      auto source = read_hf_source(own.policy.path);
      if (!source) return source.err();
      own.policy.config_json = source->second.config_json;
      own.policy.path.clear();
    }
    return build_hf_learner(own);
  };
  return serve_worker(c.replicas, build, stop, on_step);
}

}  // namespace adarl
