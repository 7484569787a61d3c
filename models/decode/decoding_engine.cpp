#include "models/decode/decoding_engine.hpp"

#include <memory>
#include <utility>

namespace adarl {

decoding_engine::decoding_engine(std::string name, decoder d, bool greedy, uint64_t version)
    : name_(std::move(name)),
      greedy_(greedy),
      version_(version),
      decoder_(std::move(d)),
      rows_(decoder_.capacity()) {}

void decoding_engine::admit(generation_job job) {
  const auto slot = decoder_.admit(std::move(job.prompt), job.stream, job.greedy || greedy_);
  rows_[slot] = {job.ticket, version_};
}

void decoding_engine::step(std::vector<generation_result>& out) {
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

result<bool> decoding_engine::load(const weights_ptr& weights) {
  const auto* snap = dynamic_cast<const weight_snapshot*>(weights.get());
  if (!snap)
    return error{name_ + ": weights are not a torch weight_snapshot (another engine's kind)"};
  try {
    auto loaded = load_into(*snap);
    if (!loaded) return error{name_ + ": " + loaded.err().message};
  } catch (const c10::Error& e) {
    return error{name_ + ": loading weights failed: " + e.what_without_backtrace()};
  }
  version_ = snap->version;
  return true;
}

result<weights_ptr> decoding_engine::weights_from_bytes(std::string_view bytes,
                                                        uint64_t version) const {
  try {
    auto snap = deserialize(std::string(bytes));
    if (!snap) return snap.err();
    snap->version = version;
    if (auto ok = fits(*snap); !ok) return error{name_ + ": " + ok.err().message};
    return weights_ptr(std::make_shared<const weight_snapshot>(std::move(*snap)));
  } catch (const c10::Error& e) {
    return error{name_ + ": " + e.what_without_backtrace()};
  }
}

std::optional<std::string> sampling_problem(uint32_t capacity, const sampling_params& s) {
  if (capacity == 0) return "capacity: expected a positive number of slots";
  if (!(s.temperature > 0.f)) return "sampling.temperature: expected > 0";
  if (!(s.top_p > 0.f && s.top_p <= 1.f)) return "sampling.top_p: expected a value in (0, 1]";
  if (s.max_new_tokens < 0) return "sampling.max_new_tokens: expected >= 0";
  return std::nullopt;
}

}  // namespace adarl
