// The generation engine of a Hugging Face model: a replica behind the continuous-batching
// decoder (models/decoder.hpp), as the transformer's (models/torch_generator.cpp).
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/decoder.hpp"
#include "models/device.hpp"
#include "models/hf_policy.hpp"

namespace adarl {

namespace {

/// generation_engine over one HF model and one decoder. Not thread-safe: one owner.
class hf_generator final : public generation_engine {
 public:
  hf_generator(hf_model model, const hf_generator_config& c)
      : model_(model),
        greedy_(c.sampling.greedy),
        decoder_(model.ptr(), c.capacity, c.sampling, c.end_ids),
        rows_(c.capacity) {}

  uint32_t capacity() const override { return decoder_.capacity(); }
  uint32_t active() const override { return decoder_.active(); }

  void admit(generation_job job) override {
    const auto slot = decoder_.admit(std::move(job.prompt), job.stream, job.greedy || greedy_);
    rows_[slot] = {job.ticket, version_};
  }

  void step(std::vector<generation_result>& out) override {
    done_.clear();
    decoder_.step(done_);
    for (auto& r : done_) {
      generation_result g;
      g.ticket = rows_[r.slot].ticket;
      g.version = rows_[r.slot].version;
      g.tokens = std::move(r.tokens);
      g.logprobs = std::move(r.logprobs);
      g.ended = r.ended;
      out.push_back(std::move(g));
    }
  }

  result<bool> load(const weights_ptr& weights) override {
    const auto* snap = dynamic_cast<const weight_snapshot*>(weights.get());
    if (!snap)
      return error{"hf generator: weights are not a torch weight_snapshot (another engine's kind)"};
    try {
      auto loaded = load_module_snapshot(*model_, *snap);  // unchanged on error
      if (!loaded) return error{"hf generator: " + loaded.err().message};
    } catch (const c10::Error& e) {
      return error{std::string("hf generator: loading weights failed: ") +
                   e.what_without_backtrace()};
    }
    version_ = snap->version;
    return true;
  }

  uint64_t version() const override { return version_; }

  result<weights_ptr> weights_from_bytes(std::string_view bytes, uint64_t version) const override {
    try {
      auto snap = deserialize(std::string(bytes));
      if (!snap) return snap.err();
      snap->version = version;
      if (auto ok = module_snapshot_fits(*model_, *snap); !ok)
        return error{"hf generator: " + ok.err().message};
      return weights_ptr(std::make_shared<const weight_snapshot>(std::move(*snap)));
    } catch (const c10::Error& e) {
      return error{std::string("hf generator: ") + e.what_without_backtrace()};
    }
  }

 private:
  struct row_info {
    uint64_t ticket = 0;
    uint64_t version = 0;  ///< Version at admission.
  };

  hf_model model_;  ///< Shared with decoder_: loads apply to rows in flight.
  bool greedy_;
  uint64_t version_ = 0;
  decoder decoder_;
  std::vector<row_info> rows_;  ///< Per slot.
  std::vector<decoded_row> done_;
};

std::optional<std::string> generator_problem(const hf_generator_config& c) {
  if (c.capacity == 0) return "capacity: expected a positive number of slots";
  if (!(c.sampling.temperature > 0.f)) return "sampling.temperature: expected > 0";
  if (!(c.sampling.top_p > 0.f && c.sampling.top_p <= 1.f))
    return "sampling.top_p: expected a value in (0, 1]";
  if (c.sampling.max_new_tokens < 0) return "sampling.max_new_tokens: expected >= 0";
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
