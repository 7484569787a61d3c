#include "models/decoder.hpp"

#include <algorithm>
#include <stdexcept>

#include "algorithms/random_keys.hpp"
#include "models/tokenizer.hpp"

namespace adarl {

decoder::decoder(transformer model, uint32_t capacity, const sampling_params& params)
    : model_(std::move(model)),
      params_(params),
      device_(model_->parameters().front().device()),
      slots_(capacity) {
  if (capacity == 0) throw std::logic_error("decoder: capacity must be positive");
  c10::InferenceMode guard;
  cache_ = model_->make_slot_cache(capacity);
}

uint32_t decoder::admit(std::vector<int32_t> prompt, uint64_t stream, bool greedy) {
  auto free = std::find_if(slots_.begin(), slots_.end(), [](const slot& s) { return !s.used; });
  if (free == slots_.end()) throw std::logic_error("decoder::admit: every slot is in use");
  const int64_t room = int64_t(model_->config().max_len) - int64_t(prompt.size());
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

bool decoder::draw(slot& s, const float* logp, int32_t v) {
  int32_t tok = 0;
  if (s.greedy) {
    for (int32_t k = 1; k < v; ++k)
      if (logp[k] > logp[tok]) tok = k;
  } else {
    const auto t = uint64_t(s.row.tokens.size());
    tok = drawer_.draw(logp, v, params_.top_p, keyed_uniform(s.stream, t, 0, 0));
  }
  s.row.tokens.push_back(tok);
  s.row.logprobs.push_back(logp[tok]);
  s.position = int64_t(s.prompt.size()) + int64_t(s.row.tokens.size()) - 1;
  s.row.ended = tok == tokenizer::eos;
  return s.row.ended || int32_t(s.row.tokens.size()) >= s.limit;
}

namespace {

// Log-probs under logits / temperature, on the CPU where tokens are drawn.
torch::Tensor cpu_logprobs(const torch::Tensor& logits, float temperature) {
  return torch::log_softmax(logits.to(torch::kFloat) / temperature, -1)
      .to(torch::kCPU)
      .contiguous();
}

}  // namespace

void decoder::step(std::vector<decoded_row>& finished) {
  c10::InferenceMode guard;
  auto finish = [&](slot& s) {
    finished.push_back(std::move(s.row));
    s = slot{};
    --active_;
  };
  // Rows with nothing to draw finish at once.
  for (auto& s : slots_)
    if (s.used && !s.prefilled && s.limit == 0) finish(s);

  // Running rows: feed each its last token, at its own position, in one batch over
  // slots [0, hi); free slots in that range compute on a pad token and are ignored.
  int64_t hi = 0, key_len = 0;
  for (size_t i = 0; i < slots_.size(); ++i)
    if (slots_[i].used && slots_[i].prefilled) {
      hi = int64_t(i) + 1;
      key_len = std::max(key_len, slots_[i].position + 1);
    }
  std::vector<size_t> fresh;
  for (size_t i = 0; i < slots_.size(); ++i)
    if (slots_[i].used && !slots_[i].prefilled) fresh.push_back(i);

  if (hi > 0) {
    auto tokens = torch::full({hi}, tokenizer::pad, torch::kLong);
    auto positions = torch::zeros({hi}, torch::kLong);
    auto tk = tokens.accessor<int64_t, 1>();
    auto ps = positions.accessor<int64_t, 1>();
    for (int64_t i = 0; i < hi; ++i)
      if (slots_[i].used && slots_[i].prefilled) {
        tk[i] = slots_[i].row.tokens.back();
        ps[i] = slots_[i].position;
      }
    auto logp = cpu_logprobs(
        model_->step_slots(tokens.to(device_), positions.to(device_), key_len, cache_),
        params_.temperature);
    const auto v = int32_t(logp.size(1));
    const float* base = logp.data_ptr<float>();
    for (int64_t i = 0; i < hi; ++i)
      if (slots_[i].used && slots_[i].prefilled && draw(slots_[i], base + i * v, v))
        finish(slots_[i]);
  }

  if (!fresh.empty()) {
    const auto m = int64_t(fresh.size());
    size_t len = 1;
    for (auto i : fresh) len = std::max(len, slots_[i].prompt.size());
    auto tokens = torch::full({m, int64_t(len)}, tokenizer::pad, torch::kLong);
    auto lengths = torch::zeros({m}, torch::kLong);
    auto ids = torch::zeros({m}, torch::kLong);
    auto tk = tokens.accessor<int64_t, 2>();
    for (int64_t j = 0; j < m; ++j) {
      const auto& p = slots_[fresh[j]].prompt;
      for (size_t k = 0; k < p.size(); ++k) tk[j][k] = p[k];
      lengths[j] = int64_t(p.size());
      ids[j] = int64_t(fresh[j]);
    }
    auto logp = cpu_logprobs(model_->prefill_slots(tokens.to(device_), lengths.to(device_),
                                                   ids.to(device_), cache_),
                             params_.temperature);
    const auto v = int32_t(logp.size(1));
    const float* base = logp.data_ptr<float>();
    for (int64_t j = 0; j < m; ++j) {
      auto& s = slots_[fresh[j]];
      s.prefilled = true;
      if (draw(s, base + j * v, v)) finish(s);
    }
  }
}

}  // namespace adarl
