#include "models/decode/decoder.hpp"

#include <ATen/Parallel.h>

#include <algorithm>
#include <stdexcept>

#include "base/random_keys.hpp"
#include "tokenizers/tokenizer.hpp"

namespace adarl {

decoder::decoder(transformer model, uint32_t capacity, const sampling_params& params)
    : decoder(std::shared_ptr<policy_model>(model.ptr()), capacity, params,
              {tokenizer::eos}) {}

decoder::decoder(std::shared_ptr<policy_model> model, uint32_t capacity,
                 const sampling_params& params, std::vector<int32_t> end_ids)
    : model_(std::move(model)),
      end_ids_(std::move(end_ids)),
      params_(params),
      device_(model_->device()),
      slots_(capacity) {
  if (capacity == 0) throw std::logic_error("decoder: capacity must be positive");
  if (end_ids_.empty()) throw std::logic_error("decoder: no end ids");
  c10::InferenceMode guard;
  cache_ = model_->make_slot_cache(capacity);
}

uint32_t decoder::admit(std::vector<int32_t> prompt, uint64_t stream, bool greedy) {
  auto free = std::find_if(slots_.begin(), slots_.end(), [](const slot& s) { return !s.used; });
  if (free == slots_.end()) throw std::logic_error("decoder::admit: every slot is in use");
  const int64_t room = model_->context_length() - int64_t(prompt.size());
  *free = slot{};
  free->used = true;
  free->greedy = greedy;
  free->stream = stream;
  free->limit = int32_t(std::clamp<int64_t>(room, 0, std::max(params_.max_new_tokens, 0)));
  if (prompt.empty()) free->limit = 0;
  free->prompt = std::move(prompt);
  free->row.slot = uint32_t(free - slots_.begin());
  ++active_;
  return free->row.slot;
}

bool decoder::draw(slot& s, const float* logp, int32_t v) const {
  // One drawer per thread: it only holds scratch buffers.
  thread_local token_drawer drawer;
  int32_t tok = 0;
  if (s.greedy) {
    for (int32_t k = 1; k < v; ++k)
      if (logp[k] > logp[tok]) tok = k;
  } else {
    const auto t = uint64_t(s.row.tokens.size());
    tok = drawer.draw(logp, v, params_.top_p, keyed_uniform(s.stream, t, 0, 0));
  }
  s.row.tokens.push_back(tok);
  s.row.logprobs.push_back(logp[tok]);
  s.position = int64_t(s.prompt.size()) + int64_t(s.row.tokens.size()) - 1;
  s.row.ended = std::find(end_ids_.begin(), end_ids_.end(), tok) != end_ids_.end();
  return s.row.ended || int32_t(s.row.tokens.size()) >= s.limit;
}

void decoder::finish(slot& s, std::vector<decoded_row>& finished) {
  finished.push_back(std::move(s.row));
  s = slot{};
  --active_;
}

decoder::batch decoder::gather() const {
  batch b;
  auto add = [&](size_t slot, int64_t token, int64_t position) {
    b.tokens.push_back(token);
    b.slots.push_back(int64_t(slot));
    b.positions.push_back(position);
  };
  // Running rows feed their last token at its own position.
  for (size_t i = 0; i < slots_.size(); ++i)
    if (slots_[i].used && slots_[i].prefilled) {
      add(i, slots_[i].row.tokens.back(), slots_[i].position);
      b.wanted.push_back(int64_t(b.tokens.size()) - 1);
      b.rows.push_back(uint32_t(i));
    }
  // New rows feed their whole prompt; the last prompt token's logits give the first draw.
  for (size_t i = 0; i < slots_.size(); ++i)
    if (slots_[i].used && !slots_[i].prefilled) {
      const auto& p = slots_[i].prompt;
      for (size_t k = 0; k < p.size(); ++k) add(i, p[k], int64_t(k));
      b.wanted.push_back(int64_t(b.tokens.size()) - 1);
      b.rows.push_back(uint32_t(i));
    }
  return b;
}

namespace {

// An int64 tensor over `values` on `device` (aliasing them on the CPU).
torch::Tensor as_tensor(std::vector<int64_t>& values, const torch::Device& device) {
  const auto n = int64_t(values.size());
  return torch::from_blob(values.data(), {n}, torch::kLong).to(device);
}

// Log-probs under logits / temperature, on the CPU where tokens are drawn.
torch::Tensor cpu_logprobs(const torch::Tensor& logits, float temperature) {
  return torch::log_softmax(logits.to(torch::kFloat) / temperature, -1)
      .to(torch::kCPU)
      .contiguous();
}

}  // namespace

void decoder::step(std::vector<decoded_row>& finished) {
  c10::InferenceMode guard;
  // Rows with nothing to draw finish at once.
  for (auto& s : slots_)
    if (s.used && !s.prefilled && s.limit == 0) finish(s, finished);
  auto b = gather();
  if (b.rows.empty()) return;
  auto logp = cpu_logprobs(
      model_->decode_slots(as_tensor(b.tokens, device_), as_tensor(b.slots, device_),
                           as_tensor(b.positions, device_), as_tensor(b.wanted, device_),
                           cache_, params_.batch_invariant),
      params_.temperature);
  for (auto i : b.rows) slots_[i].prefilled = true;
  const auto v = int32_t(logp.size(1));
  const float* base = logp.data_ptr<float>();
  const auto n = int64_t(b.rows.size());
  std::vector<char> done(b.rows.size());
  at::parallel_for(0, n, /*grain_size=*/16, [&](int64_t begin, int64_t end) {
    for (int64_t j = begin; j < end; ++j)
      done[j] = draw(slots_[b.rows[j]], base + j * v, v);
  });
  for (int64_t j = 0; j < n; ++j)
    if (done[j]) finish(slots_[b.rows[j]], finished);
}

}  // namespace adarl
