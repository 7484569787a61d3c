// Policy speed on this machine: sampler tokens/s at batch 1, 64 and 256, learner
// trained tokens/s per optimizer step, and both as a fraction of the GEMM FLOP/s that
// LibTorch reaches here (2 * params FLOPs per sampled token, 6 * params per trained
// token). Issue 3 target: sampler at batch 256 and learner at >= 25% of that roofline.
// The roofline is each GEMM shape's fastest of several timings; the sampler and decoder
// figures are single runs and count drawn tokens only (prompt prefill is not counted).
//
// Two models: the built-in character transformer (its default size), and the Hugging
// Face architecture (Qwen2 family, random weights) at a 0.5B-like shape: scaled to a
// small CPU by default (hidden 512, 8 layers, 8 heads, 2 kv heads, intermediate 2816,
// vocabulary 32768, tied), Qwen2.5-0.5B's own shape with --shape 0.5b (hidden 896, 24
// layers, 14:2 heads, 4864, vocabulary 151936). On cuda:N the learner runs under bfloat16
// autocast with --bf16 (float32 master weights), and the roofline is the GEMM's in the
// learner's dtype; the sampler decodes in float32.
//
//   ./build/bench/model_bench [threads] [--model char|hf|both] [--device cpu|cuda:N]
//                             [--shape cpu|0.5b] [--bf16] [--new-tokens N]
#include <chrono>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "models/decode/decoder.hpp"
#include "models/device.hpp"
#include "models/hf_engines.hpp"
#include "models/weights/hf_policy.hpp"
#include "models/train/loss.hpp"
#include "models/train/optimizer.hpp"
#include "models/decode/sampler.hpp"
#include "runtime/process_env.hpp"
#include "tokenizers/tokenizer.hpp"

using namespace adarl;
using clk = std::chrono::steady_clock;

namespace {

// Waits for the device's queued work (CUDA kernels run asynchronously).
void sync(const torch::Device& device) {
  if (device.is_cuda()) torch::cuda::synchronize(device.index());
}

double seconds_since(clk::time_point t) {
  return std::chrono::duration<double>(clk::now() - t).count();
}

// Best FLOP/s over `shapes` (M, K, N) in `dtype` on `device`. Each shape is timed
// several times and its fastest repetition kept, so that a moment when another process
// held a core does not understate the roofline (which would flatter the ratios).
double gemm_roofline(const std::vector<std::vector<int64_t>>& shapes, const torch::Device& device,
                     torch::ScalarType dtype) {
  double best = 0;
  const auto opts = torch::TensorOptions().device(device).dtype(dtype);
  for (const auto& s : shapes) {
    auto a = torch::randn({s[0], s[1]}, opts), b = torch::randn({s[1], s[2]}, opts);
    torch::matmul(a, b);
    sync(device);
    double shape_best = 0;
    for (int rep = 0; rep < 7; ++rep) {
      const int calls = 5;
      auto t = clk::now();
      for (int i = 0; i < calls; ++i) torch::matmul(a, b);
      sync(device);
      const double flops = 2.0 * s[0] * s[1] * s[2] * calls / seconds_since(t);
      shape_best = std::max(shape_best, flops);
    }
    std::printf("gemm %ldx%ldx%ld %s: %.2f GFLOP/s (best of 7)\n", long(s[0]), long(s[1]),
                long(s[2]), c10::toString(dtype), shape_best / 1e9);
    best = std::max(best, shape_best);
  }
  return best;
}

struct options {
  int threads = 2;
  std::string model = "both";  // char, hf or both
  std::string device = "cpu";
  std::string shape;           // cpu or 0.5b; default: cpu on the CPU, 0.5b on CUDA
  bool bf16 = false;
  int new_tokens = 0;          // 0: 64 for char, 32 for hf on the CPU, 128 on CUDA
};

// The built-in character transformer at its default size (CPU).
void char_bench(const options& o) {
  model_config c;  // the default size
  c.vocab_size = tokenizer::from_charset(tokenizer::default_charset())->size();
  transformer model(c);
  const double params = double(c.parameter_count());
  std::printf("model: d_model %d, layers %d, heads %d, d_ff %d, vocab %d: %.0f parameters; "
              "torch threads %d; OpenBLAS kernels %s\n",
              c.d_model, c.n_layers, c.n_heads, c.d_ff, c.vocab_size, params, o.threads,
              adarl::openblas_kernels());
  const double roof = gemm_roofline({{512, 512, 512}, {16384, 128, 512}, {16384, 512, 128}},
                                    torch::kCPU, torch::kFloat);
  std::printf("roofline (best GEMM): %.2f GFLOP/s\n", roof / 1e9);

  const int prompt_len = 32, new_tokens = o.new_tokens > 0 ? o.new_tokens : 64;
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
    auto lp = completion_logprobs(*model, prompts, completions, 1.f, mask);
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
}

// The config.json of the benchmark's HF model.
std::string hf_shape_json(const std::string& shape) {
  const bool real = shape == "0.5b";  // Qwen2.5-0.5B's published shape
  const nlohmann::json j = {
      {"architectures", {"Qwen2ForCausalLM"}}, {"model_type", "qwen2"},
      {"vocab_size", real ? 151936 : 32768},   {"hidden_size", real ? 896 : 512},
      {"intermediate_size", real ? 4864 : 2816}, {"num_hidden_layers", real ? 24 : 8},
      {"num_attention_heads", real ? 14 : 8},  {"num_key_value_heads", 2},
      {"max_position_embeddings", 32768},      {"rms_norm_eps", 1e-6},
      {"rope_theta", 1000000.0},               {"rope_scaling", nullptr},
      {"hidden_act", "silu"},                  {"tie_word_embeddings", true},
      {"torch_dtype", "bfloat16"},             {"use_sliding_window", false},
      {"bos_token_id", 0},                     {"eos_token_id", 1}};
  return j.dump();
}

// The HF architecture at a 0.5B-like shape: sampler (the continuous-batching decoder
// over the slot KV cache) and learner engine (micro-batched clipped loss, AdamW).
int hf_bench(const options& o) {
  auto device = parse_device(o.device);
  if (!device) {
    std::fprintf(stderr, "model_bench: %s\n", device.err().message.c_str());
    return 2;
  }
  const bool cuda = device->is_cuda();
  const std::string shape = o.shape.empty() ? (cuda ? "0.5b" : "cpu") : o.shape;
  const int prompt_len = 32, new_tokens = o.new_tokens > 0 ? o.new_tokens : (cuda ? 128 : 32);
  hf_policy_config pc;
  pc.config_json = hf_shape_json(shape);
  pc.max_len = prompt_len + new_tokens;
  pc.device = o.device;
  pc.threads = o.threads;
  auto policy = build_hf_policy(pc, *device);
  if (!policy) {
    std::fprintf(stderr, "model_bench: %s\n", policy.err().message.c_str());
    return 1;
  }
  const auto& hc = policy->model->config();
  // FLOPs per token: every weight matrix once, the output projection included (tied);
  // attention's T^2 term is left out (short sequences).
  const double params = double(hc.parameter_count());
  std::printf("hf model (%s shape): %s: %.0f parameters; device %s; torch threads %d; "
              "OpenBLAS kernels %s\n",
              shape.c_str(), hc.summary().c_str(), params, o.device.c_str(), o.threads,
              adarl::openblas_kernels());
  const int64_t h = hc.hidden_size, f = hc.intermediate_size, m = cuda ? 8192 : 2048;
  const auto sample_dtype = torch::kFloat;
  const auto learn_dtype = cuda && o.bf16 ? torch::kBFloat16 : torch::kFloat;
  const std::vector<std::vector<int64_t>> shapes = {{m, h, h}, {m, h, f}, {m, f, h}};
  const double roof = gemm_roofline(shapes, *device, sample_dtype);
  const double learn_roof =
      learn_dtype == sample_dtype ? roof : gemm_roofline(shapes, *device, learn_dtype);
  std::printf("roofline (best GEMM): %.2f GFLOP/s float32", roof / 1e9);
  if (learn_dtype != sample_dtype) std::printf(", %.2f GFLOP/s bfloat16", learn_roof / 1e9);
  std::printf("\n");

  // Rows end only at max_new_tokens: the end id is one a random model rarely draws.
  const std::vector<int32_t> end_ids = {int32_t(hc.vocab_size - 1)};
  std::shared_ptr<policy_model> model = policy->model.ptr();
  for (int batch : {1, 64, 256}) {
    std::vector<sample_job> jobs;
    for (int i = 0; i < batch; ++i)
      jobs.push_back({std::vector<int32_t>(prompt_len, 100 + i % 500), uint64_t(i)});
    sampling_params sp;
    sp.max_new_tokens = new_tokens;
    if (batch == 1 || cuda) sample_batch(model, end_ids, jobs, sp);  // warm-up
    sync(*device);
    auto t = clk::now();
    auto out = sample_batch(model, end_ids, jobs, sp);
    const double secs = seconds_since(t);
    int64_t tokens = 0;
    for (const auto& r : out) tokens += int64_t(r.tokens.size());
    const double tps = tokens / secs;
    std::printf("hf sampler batch %3d: %9.0f tokens/s (%ld tokens in %.3f s, prefill "
                "included), %.1f%% of roofline\n",
                batch, tps, long(tokens), secs, 100.0 * 2 * params * tps / roof);
  }

  hf_learner_config lc;
  lc.policy = pc;
  lc.micro_batch = cuda ? 32 : 16;
  lc.autocast_bf16 = o.bf16;
  const int batch = cuda ? 64 : 16;
  auto learner = make_hf_learner(lc);
  if (!learner) {
    std::fprintf(stderr, "model_bench: %s\n", learner.err().message.c_str());
    return 1;
  }
  // Free the sampler's copy: memory for the learner's optimizer.
  model.reset();
  policy->model = hf_model(nullptr);
  std::vector<train_sample> samples(static_cast<size_t>(batch));
  for (int i = 0; i < batch; ++i) {
    auto& s = samples[size_t(i)];
    s.prompt.assign(prompt_len, 100 + i);
    for (int j = 0; j < new_tokens; ++j) s.completion.push_back((7 * i + 13 * j) % 30000);
    // About log(1 / vocab): ratios near 1, so the loss is not all clipped.
    s.behaviour_logprobs.assign(size_t(new_tokens), -std::log(float(hc.vocab_size)));
    s.advantage = i % 2 == 0 ? 1.f : -1.f;
  }
  if (auto w = (*learner)->train(samples); !w) {  // warm-up
    std::fprintf(stderr, "model_bench: %s\n", w.err().message.c_str());
    return 1;
  }
  const int steps = 2;
  auto t = clk::now();
  for (int i = 0; i < steps; ++i) (*learner)->train(samples);
  const double per_step = seconds_since(t) / steps;
  const double trained = double(batch) * (prompt_len + new_tokens) / per_step;
  std::printf("hf learner batch %d x %d tokens%s: %.1f ms per step, %.0f tokens/s, %.1f%% of "
              "roofline (model FLOP utilisation against the measured GEMM)\n",
              batch, prompt_len + new_tokens, learn_dtype == torch::kBFloat16 ? " (bf16 autocast)" : "",
              per_step * 1e3, trained, 100.0 * 6 * params * trained / learn_roof);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  adarl::ensure_process_env(argv);  // the same OpenMP and OpenBLAS settings as adarl
  options o;
  bool ok = true;
  for (int i = 1; i < argc && ok; ++i) {
    const std::string a = argv[i];
    const bool has_value = i + 1 < argc;
    if (a == "--model" && has_value) o.model = argv[++i];
    else if (a == "--device" && has_value) o.device = argv[++i];
    else if (a == "--shape" && has_value) o.shape = argv[++i];
    else if (a == "--new-tokens" && has_value) o.new_tokens = std::atoi(argv[++i]);
    else if (a == "--bf16") o.bf16 = true;
    else if (i == 1 && !a.empty() && a[0] != '-') o.threads = std::atoi(a.c_str());
    else ok = false;
  }
  ok = ok && o.threads >= 1 && o.new_tokens >= 0 &&
       (o.model == "char" || o.model == "hf" || o.model == "both") &&
       (o.shape.empty() || o.shape == "cpu" || o.shape == "0.5b") &&
       (o.device == "cpu" || o.model == "hf");
  if (!ok) {
    std::fprintf(stderr,
                 "usage: model_bench [threads >= 1] [--model char|hf|both] [--device cpu|cuda:N "
                 "(hf only)] [--shape cpu|0.5b] [--bf16] [--new-tokens N]\n");
    return 2;
  }
  at::set_num_threads(o.threads);
  torch::manual_seed(0);
  if (o.model != "hf") char_bench(o);
  if (o.model != "char") return hf_bench(o);
  return 0;
}
