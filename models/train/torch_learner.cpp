// The transformer's learner (models/torch_engines.hpp): the one learner
// (models/train/policy_learner.hpp) over the character transformer, with checkpoints in
// models/weights/checkpoint.hpp's directory format; its replica ranks and their join text.
#include <filesystem>
#include <memory>
#include <string>
#include <utility>

#include "models/weights/checkpoint.hpp"
#include "models/device.hpp"
#include "models/train/policy_learner.hpp"
#include "models/torch_engines.hpp"
#include "models/arch/seeded_init.hpp"
#include "models/arch/transformer.hpp"

namespace adarl {

namespace {

// The transformer's checkpoint directory; the charset must be the configured one, since
// token ids mean characters of it.
class transformer_checkpoints final : public learner_checkpoints {
 public:
  transformer_checkpoints(transformer model, model_config shape, std::string charset)
      : model_(std::move(model)), shape_(shape), charset_(std::move(charset)) {}

  result<bool> save(const std::string& dir, policy_optimizer& opt, int64_t step) override {
    return save_checkpoint(dir, model_, &opt, {step, shape_, charset_, /*model_hash=*/{}});
  }
  result<int64_t> load(const std::string& dir, policy_optimizer* opt) override {
    auto meta = read_checkpoint_meta(dir);
    if (!meta) return meta.err();
    if (!charset_.empty() && meta->charset != charset_)
      return error{dir + ": the checkpoint's tokenizer charset differs from the configured one"};
    auto loaded = load_checkpoint(dir, model_, opt);
    if (!loaded) return loaded.err();
    return loaded->step;
  }
  bool has_optimizer_state(const std::string& dir) const override {
    const std::filesystem::path d(dir);
    return std::filesystem::exists(d / "optimizer.safetensors") ||
           std::filesystem::exists(d / "optimizer.pt");
  }

 private:
  transformer model_;
  model_config shape_;
  std::string charset_;
};

// The learner of `c` (device, shape and settings checked; the base checkpoint loaded),
// not joined to its replicas yet.
result<std::unique_ptr<policy_learner>> build_torch_learner(const torch_learner_config& c) {
  auto device = parse_device(c.policy.device);
  if (!device) return device.err();
  if (auto problems = c.policy.model.problems(); !problems.empty()) {
    std::string text = "learner model";
    for (const auto& p : problems) text += "; " + p;
    return error{text};
  }
  auto settings = learner_settings_of(c);
  settings.config_text = learner_config_text(c);
  if (auto p = learner_settings_problem(settings); !p.empty()) return error{p};
  try {
    at::set_num_threads(c.policy.threads);
    auto model = seeded_init(c.policy.init_seed, [&] { return transformer(c.policy.model); });
    auto checkpoints =
        std::make_unique<transformer_checkpoints>(model, c.policy.model, c.policy.charset);
    auto engine = std::make_unique<policy_learner>(settings, *device, learner_model_of(model),
                                                   std::move(checkpoints));
    if (!c.policy.init_checkpoint.empty()) {
      auto loaded = engine->load_base(c.policy.init_checkpoint);
      if (!loaded) return loaded.err();
    }
    return engine;
  } catch (const std::exception& e) {
    return torch_error("learner", e);
  }
}

}  // namespace

result<std::unique_ptr<learner_engine>> make_torch_learner(const torch_learner_config& c,
                                                          const replica_join_watch& watch) {
  return make_coordinator(c.replicas, [&c] { return build_torch_learner(c); }, watch);
}

result<uint64_t> serve_learner_replica(const torch_learner_config& c,
                                       const std::atomic<bool>* stop,
                                       const replica_step_observer& on_step) {
  auto build = [&c] {
    auto own = c;
    own.policy.init_checkpoint.clear();  // the weights come from rank 0
    return build_torch_learner(own);
  };
  return serve_worker(c.replicas, build, stop, on_step);
}

std::string learner_config_text(const torch_learner_config& c) {
  const auto& m = c.policy.model;
  return learner_config_lines(
      learner_settings_of(c), c.policy.device,
      {{"model.vocab_size", std::to_string(m.vocab_size)},
       {"model.d_model", std::to_string(m.d_model)},
       {"model.n_layers", std::to_string(m.n_layers)},
       {"model.n_heads", std::to_string(m.n_heads)},
       {"model.d_ff", std::to_string(m.d_ff)},
       {"model.max_len", std::to_string(m.max_len)},
       {"model.tied_output", m.tied_output ? "true" : "false"},
       {"model.charset_hash", text_hash(c.policy.charset)}});
}

}  // namespace adarl
