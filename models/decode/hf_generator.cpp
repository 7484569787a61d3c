// The generation engine of a Hugging Face model: a replica behind the continuous-batching
// decoder (models/decode/decoder.hpp), as the transformer's (models/decode/torch_generator.cpp).
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/decode/decoding_engine.hpp"
#include "models/device.hpp"
#include "models/weights/hf_policy.hpp"
#include "models/weights/snapshot.hpp"

namespace adarl {

namespace {

/// A Hugging Face model behind the decoder.
class hf_generator final : public decoding_engine {
 public:
  hf_generator(hf_model model, const hf_generator_config& c)
      : decoding_engine("hf generator", decoder(model.ptr(), c.capacity, c.sampling, c.end_ids),
                        c.sampling.greedy, /*version=*/0),
        model_(std::move(model)) {}

 private:
  result<bool> fits(const weight_snapshot& snapshot) const override {
    return snapshot_fits(*model_, snapshot);
  }
  result<bool> load_into(const weight_snapshot& snapshot) override {
    return load_snapshot(*model_, snapshot);
  }

  hf_model model_;  ///< Shared with the decoder: loads apply to rows in flight.
};

std::optional<std::string> generator_problem(const hf_generator_config& c) {
  if (auto problem = sampling_problem(c.capacity, c.sampling)) return problem;
  if (c.end_ids.empty()) return "end_ids: expected at least one end-of-sequence id";
  if (c.policy.threads <= 0) return "threads: expected a positive integer";
  return std::nullopt;
}

}  // namespace

result<std::unique_ptr<generation_engine>> make_hf_generator(const hf_generator_config& c) {
  if (auto problem = generator_problem(c)) return error{"hf generator: " + *problem};
  auto device = parse_device(c.policy.device);
  if (!device) return device.err();
  try {
    at::set_num_threads(c.policy.threads);
    auto policy = build_hf_policy(c.policy, *device);
    if (!policy) return policy.err();
    for (int32_t id : c.end_ids)
      if (id < 0 || id >= policy->model->config().vocab_size)
        return error{"hf generator: end id " + std::to_string(id) + " outside the vocabulary"};
    policy->model->eval();
    return std::unique_ptr<generation_engine>(
        std::make_unique<hf_generator>(policy->model, c));
  } catch (const c10::Error& e) {
    return error{std::string("hf generator: ") + e.what_without_backtrace()};
  }
}

}  // namespace adarl
