#include "models/sampler.hpp"

#include <algorithm>
#include <numeric>

#include "algorithms/random_keys.hpp"
#include "models/tokenizer.hpp"

namespace adarl {

int32_t draw_token(std::vector<float> probs, float top_p, double u) {
  std::vector<int32_t> order(probs.size());
  std::iota(order.begin(), order.end(), 0);
  // Stable, so equal probabilities keep id order and the draw is reproducible.
  std::stable_sort(order.begin(), order.end(),
                   [&](int32_t a, int32_t b) { return probs[a] > probs[b]; });
  double kept = 0;
  size_t n = 0;
  while (n < order.size() && (n == 0 || kept < top_p)) kept += probs[order[n++]];
  double target = u * kept, acc = 0;
  for (size_t i = 0; i < n; ++i) {
    acc += probs[order[i]];
    if (target < acc) return order[i];
  }
  return order[n - 1];
}

namespace {

// Left-pads sequences to a common length: tokens [B, L] int64 and mask [B, L] bool.
std::pair<torch::Tensor, torch::Tensor> left_pad(
    const std::vector<std::vector<int32_t>>& rows) {
  size_t len = 1;
  for (const auto& r : rows) len = std::max(len, r.size());
  auto tokens = torch::full({int64_t(rows.size()), int64_t(len)}, tokenizer::pad, torch::kLong);
  auto mask = torch::zeros({int64_t(rows.size()), int64_t(len)}, torch::kBool);
  auto t = tokens.accessor<int64_t, 2>();
  auto m = mask.accessor<bool, 2>();
  for (size_t i = 0; i < rows.size(); ++i) {
    const size_t off = len - rows[i].size();
    for (size_t j = 0; j < rows[i].size(); ++j) {
      t[i][off + j] = rows[i][j];
      m[i][off + j] = true;
    }
  }
  return {tokens, mask};
}

}  // namespace

std::vector<sample_output> sample_batch(transformer& model,
                                        const std::vector<sample_job>& jobs,
                                        const sampling_params& params) {
  std::vector<sample_output> out(jobs.size());
  if (jobs.empty()) return out;
  c10::InferenceMode guard;
  std::vector<std::vector<int32_t>> prompts;
  for (const auto& j : jobs) prompts.push_back(j.prompt);
  auto [tokens, mask] = left_pad(prompts);
  const auto device = model->parameters().front().device();
  tokens = tokens.to(device);
  mask = mask.to(device);
  const int64_t room = model->config().max_len - tokens.size(1);
  const int64_t steps = std::min<int64_t>(params.max_new_tokens, std::max<int64_t>(room, 0));

  kv_cache cache;
  auto logits = model->prefill(tokens, mask, cache);
  std::vector<bool> done(jobs.size(), steps == 0);
  for (int64_t t = 0; t < steps; ++t) {
    // Sampling decisions are made on the CPU, per row, from its own random stream.
    auto logp = torch::log_softmax(logits.to(torch::kFloat) / params.temperature, -1)
                    .to(torch::kCPU)
                    .contiguous();
    const auto v = logp.size(1);
    auto lp = logp.accessor<float, 2>();
    auto next = torch::full({int64_t(jobs.size())}, tokenizer::pad, torch::kLong);
    auto nx = next.accessor<int64_t, 1>();
    bool any = false;
    for (size_t i = 0; i < jobs.size(); ++i) {
      if (done[i]) continue;
      int32_t tok = 0;
      if (params.greedy) {
        for (int32_t k = 1; k < v; ++k)
          if (lp[i][k] > lp[i][tok]) tok = k;
      } else {
        std::vector<float> probs(v);
        for (int32_t k = 0; k < v; ++k) probs[k] = std::exp(lp[i][k]);
        tok = draw_token(std::move(probs), params.top_p,
                         keyed_uniform(jobs[i].stream, uint64_t(t), 0, 0));
      }
      out[i].tokens.push_back(tok);
      out[i].logprobs.push_back(lp[i][tok]);
      nx[i] = tok;
      if (tok == tokenizer::eos) {
        out[i].ended = true;
        done[i] = true;
      }
      any = any || !done[i];
    }
    if (!any || t + 1 == steps) break;
    logits = model->step(next.to(device), cache);
  }
  return out;
}

torch::Tensor completion_logprobs(transformer& model,
                                  const std::vector<std::vector<int32_t>>& prompts,
                                  const std::vector<std::vector<int32_t>>& completions,
                                  float temperature, torch::Tensor& mask) {
  const auto b = int64_t(prompts.size());
  std::vector<std::vector<int32_t>> seqs(prompts.size());
  size_t cmax = 1;
  for (size_t i = 0; i < prompts.size(); ++i) {
    seqs[i] = prompts[i];
    seqs[i].insert(seqs[i].end(), completions[i].begin(), completions[i].end());
    cmax = std::max(cmax, completions[i].size());
  }
  auto [tokens, seq_mask] = left_pad(seqs);
  const auto device = model->parameters().front().device();
  tokens = tokens.to(device);
  seq_mask = seq_mask.to(device);
  const int64_t len = tokens.size(1);
  auto logp = torch::log_softmax(model->forward(tokens, seq_mask) / temperature, -1);
  // The logit at position (start of completion - 1 + j) predicts completion token j.
  auto index = torch::zeros({b, int64_t(cmax)}, torch::kLong);
  auto target = torch::zeros({b, int64_t(cmax)}, torch::kLong);
  mask = torch::zeros({b, int64_t(cmax)}, torch::kBool);
  auto ix = index.accessor<int64_t, 2>();
  auto tg = target.accessor<int64_t, 2>();
  auto mk = mask.accessor<bool, 2>();
  for (int64_t i = 0; i < b; ++i) {
    const int64_t start = len - int64_t(completions[i].size());
    for (size_t j = 0; j < completions[i].size(); ++j) {
      ix[i][j] = start - 1 + int64_t(j);
      tg[i][j] = completions[i][j];
      mk[i][j] = true;
    }
  }
  index = index.to(device);
  target = target.to(device);
  mask = mask.to(device);
  auto rows = torch::arange(b, index.options()).unsqueeze(1).expand({b, int64_t(cmax)});
  auto picked = logp.index({rows, index, target});
  return picked.masked_fill(mask.logical_not(), 0.0);
}

}  // namespace adarl
