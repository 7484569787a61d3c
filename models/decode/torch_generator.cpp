// The LibTorch generation engine: a policy replica behind the continuous-batching
// decoder (models/decode/decoder.hpp).
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/weights/checkpoint.hpp"
#include "models/arch/seeded_init.hpp"
#include "models/decode/decoding_engine.hpp"
#include "models/device.hpp"
#include "models/torch_engines.hpp"

namespace adarl {

namespace {

/// The transformer behind the decoder.
class torch_generator final : public decoding_engine {
 public:
  torch_generator(transformer model, uint64_t version, const torch_generator_config& c)
      : decoding_engine("torch generator", decoder(model, c.capacity, c.sampling),
                        c.sampling.greedy, version),
        model_(std::move(model)) {}

 private:
  result<bool> fits(const weight_snapshot& snapshot) const override {
    auto model = model_;
    return snapshot_fits(model, snapshot);
  }
  result<bool> load_into(const weight_snapshot& snapshot) override {
    return load_snapshot(model_, snapshot);
  }

  transformer model_;  ///< Shared with the decoder: loads apply to rows in flight.
};

}  // namespace

result<std::unique_ptr<generation_engine>> make_torch_generator(const torch_generator_config& c) {
  const auto& p = c.policy;
  if (auto problems = p.model.problems(); !problems.empty())
    return error{"torch generator: model." + problems.front()};
  if (auto problem = sampling_problem(c.capacity, c.sampling))
    return error{"torch generator: " + *problem};
  if (p.threads <= 0) return error{"torch generator: threads: expected a positive integer"};
  auto device = parse_device(p.device);
  if (!device) return device.err();
  try {
    at::set_num_threads(p.threads);
    auto model = seeded_init(p.init_seed, [&] { return transformer(p.model); });
    uint64_t version = 0;
    if (!p.init_checkpoint.empty()) {
      auto meta = load_checkpoint(p.init_checkpoint, model, /*opt=*/nullptr);
      if (!meta) return meta.err();
      // A base policy: the run's versions count from 0 (the learner publishes v0).
    }
    model->to(*device);
    model->eval();
    return std::unique_ptr<generation_engine>(
        std::make_unique<torch_generator>(model, version, c));
  } catch (const c10::Error& e) {
    return error{std::string("torch generator: ") + e.what_without_backtrace()};
  }
}

}  // namespace adarl
