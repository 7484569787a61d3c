// Policy speed on this machine: sampler tokens/s at batch 1, 64 and 256, learner
// trained tokens/s per optimizer step, and both as a fraction of the GEMM FLOP/s that
// LibTorch reaches here (2 * params FLOPs per sampled token, 6 * params per trained
// token). Issue 3 target: sampler at batch 256 and learner at >= 25% of that roofline.
// The roofline is each GEMM shape's fastest of several timings; the sampler and decoder
// figures are single runs and count drawn tokens only (prompt prefill is not counted).
//
//   ./build/bench/model_bench [threads]
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "models/decoder.hpp"
#include "models/loss.hpp"
#include "models/optimizer.hpp"
#include "models/sampler.hpp"
#include "models/tokenizer.hpp"
#include "runtime/process_env.hpp"

using namespace adarl;
using clk = std::chrono::steady_clock;

namespace {

double seconds_since(clk::time_point t) {
  return std::chrono::duration<double>(clk::now() - t).count();
}

// Best FLOP/s over a few GEMM shapes the model uses and a square one. Each shape is
// timed several times and its fastest repetition kept, so that a moment when another
// process held a core does not understate the roofline (which would flatter the ratios).
double gemm_roofline() {
  double best = 0;
  const int64_t shapes[][3] = {{512, 512, 512}, {16384, 128, 512}, {16384, 512, 128}};
  for (const auto& s : shapes) {
    auto a = torch::randn({s[0], s[1]}), b = torch::randn({s[1], s[2]});
    torch::matmul(a, b);
    double shape_best = 0;
    for (int rep = 0; rep < 7; ++rep) {
      const int calls = 5;
      auto t = clk::now();
      for (int i = 0; i < calls; ++i) torch::matmul(a, b);
      const double flops = 2.0 * s[0] * s[1] * s[2] * calls / seconds_since(t);
      shape_best = std::max(shape_best, flops);
    }
    std::printf("gemm %ldx%ldx%ld: %.2f GFLOP/s (best of 7)\n", s[0], s[1], s[2],
                shape_best / 1e9);
    best = std::max(best, shape_best);
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  adarl::ensure_process_env(argv);  // the same OpenMP and OpenBLAS settings as adarl
  const int threads = argc > 1 ? std::atoi(argv[1]) : 2;
  if (threads < 1 || argc > 2) {
    std::fprintf(stderr, "usage: model_bench [threads >= 1]\n");
    return 2;
  }
  at::set_num_threads(threads);
  torch::manual_seed(0);
  model_config c;  // the default size
  c.vocab_size = tokenizer::from_charset(tokenizer::default_charset())->size();
  transformer model(c);
  const double params = double(c.parameter_count());
  std::printf("model: d_model %d, layers %d, heads %d, d_ff %d, vocab %d: %.0f parameters; "
              "torch threads %d; OpenBLAS kernels %s\n",
              c.d_model, c.n_layers, c.n_heads, c.d_ff, c.vocab_size, params, threads,
              adarl::openblas_kernels());
  const double roof = gemm_roofline();
  std::printf("roofline (best GEMM): %.2f GFLOP/s\n", roof / 1e9);

  const int prompt_len = 32, new_tokens = 64;
  for (int batch : {1, 64, 256}) {
    std::vector<sample_job> jobs;
    for (int i = 0; i < batch; ++i) {
      std::vector<int32_t> p(prompt_len, 10 + i % 50);
      p[0] = tokenizer::bos;
      jobs.push_back({p, uint64_t(i)});
    }
    sampling_params sp;
    sp.max_new_tokens = new_tokens;
    // Rows may stop early at the end token; the rate counts tokens actually drawn.
    sample_batch(model, jobs, sp);  // warm-up
    auto t = clk::now();
    auto out = sample_batch(model, jobs, sp);
    const double secs = seconds_since(t);
    int64_t tokens = 0;
    for (const auto& o : out) tokens += int64_t(o.tokens.size());
    const double tps = tokens / secs;
    std::printf("sampler batch %3d: %9.0f tokens/s (%ld tokens in %.3f s), %.1f%% of roofline\n",
                batch, tps, tokens, secs, 100.0 * 2 * params * tps / roof);
  }

  // Continuous batching: 256 slots kept full, a finished row replaced at once.
  {
    const uint32_t slots = 256;
    sampling_params sp;
    sp.max_new_tokens = new_tokens;
    decoder dec(model, slots, sp);
    uint64_t stream = 0;
    std::vector<decoded_row> done;
    auto refill = [&] {
      while (dec.active() < dec.capacity()) {
        std::vector<int32_t> p(prompt_len, 10 + int32_t(stream % 50));
        p[0] = tokenizer::bos;
        dec.admit(std::move(p), stream++, false);
      }
    };
    for (int i = 0; i < 8; ++i) refill(), dec.step(done);  // warm-up
    done.clear();
    int64_t tokens = 0;
    const int steps = 3 * new_tokens;
    auto t = clk::now();
    for (int i = 0; i < steps; ++i) {
      refill();
      dec.step(done);
    }
    const double secs = seconds_since(t);
    // Tokens drawn: one per active row per step (rows finishing included).
    tokens = int64_t(steps) * slots;
    const double tps = tokens / secs;
    std::printf("decoder %u slots (continuous): %9.0f tokens/s (%ld tokens in %.3f s), "
                "%.1f%% of roofline\n",
                slots, tps, tokens, secs, 100.0 * 2 * params * tps / roof);
  }

  policy_optimizer opt(model, {});
  const int batch = 64;
  std::vector<std::vector<int32_t>> prompts(batch, std::vector<int32_t>(prompt_len, 11));
  std::vector<std::vector<int32_t>> completions(batch, std::vector<int32_t>(new_tokens, 12));
  auto step = [&] {
    opt.zero_grad();
    torch::Tensor mask;
    auto lp = completion_logprobs(model, prompts, completions, 1.f, mask);
    auto adv = torch::randn({batch});
    clipped_surrogate({lp, lp.detach(), adv, mask}, {}).loss.backward();
    opt.step();
  };
  step();
  const int steps = 5;
  auto t = clk::now();
  for (int i = 0; i < steps; ++i) step();
  const double per_step = seconds_since(t) / steps;
  const double trained = double(batch) * (prompt_len + new_tokens) / per_step;
  std::printf("learner batch %d x %d tokens: %.1f ms per step, %.0f tokens/s, %.1f%% of "
              "roofline\n",
              batch, prompt_len + new_tokens, per_step * 1e3, trained,
              100.0 * 6 * params * trained / roof);
  return 0;
}
