// score_completions, completion_logprobs and left_pad (models/arch/logprobs.hpp):
// log-probs of given completions (with the logits behind them, for the learner), for
// every architecture.

#include <algorithm>

#include "models/arch/logprobs.hpp"
#include "tokenizers/tokenizer.hpp"

namespace adarl {

std::pair<torch::Tensor, torch::Tensor> left_pad(
    const std::vector<std::vector<int32_t>>& rows, int64_t pad) {
  size_t len = 1;
  for (const auto& r : rows) len = std::max(len, r.size());
  auto tokens = torch::full({int64_t(rows.size()), int64_t(len)}, pad, torch::kLong);
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

completion_scores score_completions(policy_model& model,
                                    const std::vector<std::vector<int32_t>>& prompts,
                                    const std::vector<std::vector<int32_t>>& completions,
                                    float temperature, int64_t pad) {
  const auto b = int64_t(prompts.size());
  std::vector<std::vector<int32_t>> seqs(prompts.size());
  size_t cmax = 1;
  for (size_t i = 0; i < prompts.size(); ++i) {
    seqs[i] = prompts[i];
    seqs[i].insert(seqs[i].end(), completions[i].begin(), completions[i].end());
    cmax = std::max(cmax, completions[i].size());
  }
  auto [tokens, seq_mask] = left_pad(seqs, pad);
  const auto device = model.device();
  const int64_t len = tokens.size(1);
  // The hidden state at (start of completion - 1 + j) predicts completion token j;
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
  auto hidden = model.hidden(tokens.to(device), seq_mask.to(device));
  auto rows = torch::arange(b, index.options()).unsqueeze(1).expand({b, int64_t(cmax)});
  auto logits = model.logits(hidden.index({rows, index}), /*invariant=*/false);
  // Half-precision logits are scored in float; float and double keep their precision
  // (the finite-difference gradient checks run in double).
  if (logits.scalar_type() == torch::kHalf || logits.scalar_type() == torch::kBFloat16) {
    logits = logits.to(torch::kFloat);
  }
  logits = logits / temperature;
  auto picked = torch::log_softmax(logits, -1).gather(2, target.unsqueeze(2)).squeeze(2);
  return {picked.masked_fill(mask.logical_not(), 0.0), logits.detach(), mask};
}

torch::Tensor completion_logprobs(policy_model& model,
                                  const std::vector<std::vector<int32_t>>& prompts,
                                  const std::vector<std::vector<int32_t>>& completions,
                                  float temperature, torch::Tensor& mask, int64_t pad) {
  auto scores = score_completions(model, prompts, completions, temperature, pad);
  mask = std::move(scores.mask);
  return std::move(scores.logp);
}

}  // namespace adarl
