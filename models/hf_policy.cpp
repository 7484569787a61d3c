#include "models/hf_policy.hpp"

#include <algorithm>

namespace adarl {

result<hf_policy> build_hf_policy(const hf_policy_config& c, const torch::Device& device) {
  hf_policy p;
  hf_config config;
  if (!c.path.empty()) {
    auto read = read_hf_source(c.path);
    if (!read) return read.err();
    config = std::move(read->first);
    p.source = std::move(read->second);
  } else {
    auto parsed = parse_hf_config(c.config_json, "engine config.json");
    if (!parsed) return parsed.err();
    config = std::move(*parsed);
    p.source.config_json = c.config_json;
  }
  if (c.max_len < 2 || c.max_len > config.max_position_embeddings)
    return error{"model.max_len: expected 2 to the model's max_position_embeddings (" +
                 std::to_string(config.max_position_embeddings) + "), got " +
                 std::to_string(c.max_len)};
  torch::manual_seed(c.init_seed);
  p.model = hf_model(config, int64_t(c.max_len));
  if (!c.path.empty()) {
    auto dtype = load_hf_weights(p.model, c.path);
    if (!dtype) return dtype.err();
    p.source.dtype = *dtype;
  }
  p.model->to(device);
  return p;
}

completion_scores score_hf_completions(hf_model& model,
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
  const auto device = model->device();
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
  auto hidden = model->hidden(tokens.to(device), seq_mask.to(device));
  auto rows = torch::arange(b, index.options()).unsqueeze(1).expand({b, int64_t(cmax)});
  auto logits = model->logits(hidden.index({rows, index})).to(torch::kFloat) / temperature;
  auto picked = torch::log_softmax(logits, -1).gather(2, target.unsqueeze(2)).squeeze(2);
  return {picked.masked_fill(mask.logical_not(), 0.0), logits.detach(), mask};
}

}  // namespace adarl
