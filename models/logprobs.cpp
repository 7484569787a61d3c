// score_completions and completion_logprobs (models/sampler.hpp): log-probs of given
// completions (with the logits behind them, for the learner).

#include <algorithm>

#include "models/sampler.hpp"
#include "tokenizers/tokenizer.hpp"

namespace adarl {

completion_scores score_completions(transformer& model,
                                    const std::vector<std::vector<int32_t>>& prompts,
                                    const std::vector<std::vector<int32_t>>& completions,
                                    float temperature) {
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
  const int64_t len = tokens.size(1);
  // The logit at position (start of completion - 1 + j) predicts completion token j;
  // padded slots point at position 0 and are masked out.
  auto index = torch::zeros({b, int64_t(cmax)}, torch::kLong);
  auto target = torch::zeros({b, int64_t(cmax)}, torch::kLong);
  auto mask = torch::zeros({b, int64_t(cmax)}, torch::kBool);
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
  auto all = model->forward(tokens.to(device), seq_mask.to(device));
  auto rows = torch::arange(b, index.options()).unsqueeze(1).expand({b, int64_t(cmax)});
  auto logits = all.index({rows, index}) / temperature;  // [B, Cmax, V]
  auto picked = torch::log_softmax(logits, -1).gather(2, target.unsqueeze(2)).squeeze(2);
  return {picked.masked_fill(mask.logical_not(), 0.0), logits.detach(), mask};
}

torch::Tensor completion_logprobs(transformer& model,
                                  const std::vector<std::vector<int32_t>>& prompts,
                                  const std::vector<std::vector<int32_t>>& completions,
                                  float temperature, torch::Tensor& mask) {
  auto scores = score_completions(model, prompts, completions, temperature);
  mask = std::move(scores.mask);
  return std::move(scores.logp);
}

}  // namespace adarl
