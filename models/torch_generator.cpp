// The LibTorch generation engine: a policy replica behind the continuous-batching
// decoder (models/decoder.hpp).
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/checkpoint.hpp"
#include "models/decoder.hpp"
#include "models/device.hpp"
#include "models/snapshot.hpp"
#include "models/torch_engines.hpp"

namespace adarl {

namespace {

/// generation_engine over one model and one decoder. Not thread-safe: one owner.
class torch_generator final : public generation_engine {
 public:
  torch_generator(transformer model, uint64_t version, const torch_generator_config& c)
      : model_(model),
        greedy_(c.sampling.greedy),
        version_(version),
        decoder_(std::move(model), c.capacity, c.sampling),
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
      return error{"torch generator: weights are not a torch weight_snapshot (another "
                   "engine's kind)"};
    try {
      auto loaded = load_snapshot(model_, *snap);  // leaves the model unchanged on error
      if (!loaded) return error{"torch generator: " + loaded.err().message};
    } catch (const c10::Error& e) {
      return error{std::string("torch generator: loading weights failed: ") +
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
      // Checked against this model's shape now, so that a bad copy is refused at once.
      auto model = model_;
      if (auto ok = snapshot_fits(model, *snap); !ok)
        return error{"torch generator: " + ok.err().message};
      return weights_ptr(std::make_shared<const weight_snapshot>(std::move(*snap)));
    } catch (const c10::Error& e) {
      return error{std::string("torch generator: ") + e.what_without_backtrace()};
    }
  }

 private:
  struct row_info {
    uint64_t ticket = 0;
    uint64_t version = 0;  ///< Version at admission.
  };

  transformer model_;  ///< Shared with decoder_: loads apply to rows in flight.
  bool greedy_;
  uint64_t version_;
  decoder decoder_;
  std::vector<row_info> rows_;  ///< Per slot.
  std::vector<decoded_row> done_;
};

std::optional<std::string> sampling_problem(const torch_generator_config& c) {
  if (c.capacity == 0) return "capacity: expected a positive number of slots";
  if (!(c.sampling.temperature > 0.f)) return "sampling.temperature: expected > 0";
  if (!(c.sampling.top_p > 0.f && c.sampling.top_p <= 1.f))
    return "sampling.top_p: expected a value in (0, 1]";
  if (c.sampling.max_new_tokens < 0) return "sampling.max_new_tokens: expected >= 0";
  return std::nullopt;
}

}  // namespace

result<std::unique_ptr<generation_engine>> make_torch_generator(const torch_generator_config& c) {
  const auto& p = c.policy;
  if (auto problems = p.model.problems(); !problems.empty())
    return error{"torch generator: model." + problems.front()};
  if (auto problem = sampling_problem(c)) return error{"torch generator: " + *problem};
  if (p.threads <= 0) return error{"torch generator: threads: expected a positive integer"};
  auto device = parse_device(p.device);
  if (!device) return device.err();
  try {
    at::set_num_threads(p.threads);
    torch::manual_seed(p.init_seed);
    transformer model(p.model);
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
