#include "models/train/sft.hpp"

#include <algorithm>
#include <chrono>
#include <numeric>
#include <random>

#include "models/decode/sampler.hpp"

namespace adarl {
namespace {

// Token-mean negative log-likelihood of a batch's completions; also its token count.
std::pair<torch::Tensor, int64_t> batch_nll(transformer& model,
                                            const std::vector<sft_example>& examples,
                                            const std::vector<size_t>& picked) {
  std::vector<std::vector<int32_t>> prompts, completions;
  for (size_t i : picked) {
    prompts.push_back(examples[i].prompt);
    completions.push_back(examples[i].completion);
  }
  torch::Tensor mask;
  auto lp = completion_logprobs(*model, prompts, completions, 1.f, mask);
  const auto m = mask.to(lp.scalar_type());
  const int64_t tokens = mask.sum().item<int64_t>();
  return {-(lp * m).sum() / m.sum().clamp_min(1.0), tokens};
}

}  // namespace

std::vector<double> run_sft(transformer& model, policy_optimizer& opt,
                            const std::vector<sft_example>& examples,
                            const sft_config& config,
                            const std::function<void(const sft_progress&)>& on_progress,
                            const std::atomic<bool>* stop) {
  std::vector<double> losses;
  std::mt19937_64 rng(config.seed);
  std::vector<size_t> order(examples.size());
  std::iota(order.begin(), order.end(), 0);
  size_t cursor = order.size();
  int64_t tokens_since = 0;
  auto last = std::chrono::steady_clock::now();
  model->train();
  for (int64_t step = 1; step <= config.steps; ++step) {
    if (stop && stop->load()) break;
    std::vector<size_t> picked;
    while (picked.size() < static_cast<size_t>(config.batch_size)) {
      if (cursor == order.size()) {
        std::shuffle(order.begin(), order.end(), rng);
        cursor = 0;
      }
      picked.push_back(order[cursor++]);
    }
    opt.zero_grad();
    auto [loss, tokens] = batch_nll(model, examples, picked);
    loss.backward();
    const double norm = opt.step();
    losses.push_back(loss.item<double>());
    tokens_since += tokens;
    if (on_progress && (step % config.log_every == 0 || step == config.steps)) {
      const auto now = std::chrono::steady_clock::now();
      const double secs = std::chrono::duration<double>(now - last).count();
      on_progress({step, losses.back(), norm, secs > 0 ? tokens_since / secs : 0.0});
      tokens_since = 0;
      last = now;
    }
  }
  return losses;
}

double sft_loss(transformer& model, const std::vector<sft_example>& examples,
                int64_t batch_size) {
  torch::NoGradGuard no_grad;
  double total = 0;
  int64_t tokens = 0;
  for (size_t start = 0; start < examples.size(); start += size_t(batch_size)) {
    std::vector<size_t> picked;
    for (size_t i = start; i < std::min(examples.size(), start + size_t(batch_size)); ++i)
      picked.push_back(i);
    auto [loss, n] = batch_nll(model, examples, picked);
    total += loss.item<double>() * double(n);
    tokens += n;
  }
  return tokens ? total / double(tokens) : 0.0;
}

}  // namespace adarl
