// Replicated learners (docs/guides/cluster.md "Replicated learners"), printed: the step time of one
// learner (K = 1) and of two ranks (K = 2, one thread per rank in this process, Gloo on
// loopback) for transformers of about 1 M, 10 M and 50 M parameters, with the seconds
// rank 0 spent in collectives per step (the token count, the statistics and the
// bucketed gradient all-reduce, waiting for the other rank included) and the gradient
// bytes it all-reduced. Each rank has one torch thread; the batch is the same for K = 1
// and 2 (K = 2 computes half of it on each rank). "all-reduce s" is one all-reduce of
// the whole gradient between two ranks that wait for nothing else (the collective's own
// cost). Medians over the measured steps; the load average is printed (other work may
// share the cores).
//
//   ./build/bench/learner_dist_bench [--steps N] [--warmup N] [--sizes 1,10,50]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <future>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "base/loopback_port.hpp"
#include "models/train/replica_group.hpp"
#include "models/torch_engines.hpp"
#include "tokenizers/tokenizer.hpp"

namespace {

using namespace adarl;

std::string load_average() {
  std::ifstream in("/proc/loadavg");
  std::string a, b, c;
  in >> a >> b >> c;
  return a + " " + b + " " + c;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

model_config shape_of(int millions) {
  model_config m;
  m.vocab_size = 100;
  m.max_len = 64;
  if (millions <= 1) m.d_model = 128, m.n_layers = 5, m.n_heads = 4;
  else if (millions <= 10) m.d_model = 320, m.n_layers = 8, m.n_heads = 5;
  else m.d_model = 512, m.n_layers = 16, m.n_heads = 8;
  m.d_ff = 4 * m.d_model;
  return m;
}

torch_learner_config config_of(const model_config& m, uint32_t replicas, uint32_t rank, int port) {
  torch_learner_config l;
  l.policy.model = m;
  l.policy.charset = tokenizer::default_charset();
  l.policy.init_seed = 5;
  l.policy.threads = 1;
  l.optimizer.lr = 1e-4;
  l.micro_batch = 16;
  l.replicas.replicas = replicas;
  l.replicas.rank = rank;
  l.replicas.store = "127.0.0.1:" + std::to_string(port);
  l.replicas.collective_timeout = 600;
  return l;
}

// 16 samples: an 8-token prompt and 24 completion tokens each (384 tokens per step).
std::vector<train_sample> batch_of(int step) {
  std::mt19937 rng{uint32_t(step)};
  std::vector<train_sample> b(16);
  for (auto& s : b) {
    s.prompt = {1};
    for (int k = 0; k < 7; ++k) s.prompt.push_back(int32_t(tokenizer::num_special + rng() % 90));
    for (int k = 0; k < 24; ++k) {
      s.completion.push_back(int32_t(tokenizer::num_special + rng() % 90));
      s.behaviour_logprobs.push_back(-4.5f);
    }
    s.advantage = float(int(rng() % 3) - 1);
  }
  return b;
}

struct figures {
  double step = 0, reduce = 0;
  uint64_t bytes = 0;
};

figures measure(const model_config& m, uint32_t replicas, int warmup, int steps) {
  const int port = free_loopback_port();
  std::vector<std::future<result<uint64_t>>> others;
  for (uint32_t r = 1; r < replicas; ++r)
    others.push_back(std::async(std::launch::async, [&, r] {
      return serve_learner_replica(config_of(m, replicas, r, port), nullptr);
    }));
  figures f;
  {
    auto e = make_torch_learner(config_of(m, replicas, 0, port));
    if (!e) {
      std::fprintf(stderr, "learner: %s\n", e.err().message.c_str());
      std::exit(1);
    }
    std::vector<double> step, reduce;
    for (int s = 0; s < warmup + steps; ++s) {
      const auto batch = batch_of(s);
      const auto t0 = std::chrono::steady_clock::now();
      auto st = (*e)->train(batch);
      const double secs =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (!st) {
        std::fprintf(stderr, "train: %s\n", st.err().message.c_str());
        std::exit(1);
      }
      if (s < warmup) continue;
      step.push_back(secs);
      reduce.push_back(st->reduce_seconds);
      f.bytes = st->reduced_bytes;
    }
    f.step = median(step);
    f.reduce = median(reduce);
  }
  for (auto& o : others)
    if (auto r = o.get(); !r) std::fprintf(stderr, "rank: %s\n", r.err().message.c_str());
  return f;
}

// Seconds of one all-reduce of `elements` float32 between two ranks (threads) that
// both wait for it: the collective alone, without a rank's compute to wait for.
double allreduce_alone(int64_t elements, int repeats) {
  const int port = free_loopback_port();
  auto rank = [&](uint32_t r) {
    torch_learner_config c = config_of(shape_of(1), 2, r, port);
    auto g = replica_group::join(c.replicas, learner_config_text(c), torch::Device("cpu"));
    if (!g) {
      std::fprintf(stderr, "join: %s\n", g.err().message.c_str());
      std::exit(1);
    }
    auto t = torch::ones({elements}, torch::kFloat);
    std::vector<double> secs;
    for (int i = 0; i < repeats + 1; ++i) {
      auto flag = torch::zeros({1}, torch::kFloat);
      (*g)->allreduce(flag);  // both ranks start together
      const auto t0 = std::chrono::steady_clock::now();
      (*g)->allreduce(t);
      if (i > 0)
        secs.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    return median(secs);
  };
  auto other = std::async(std::launch::async, rank, 1u);
  const double s = rank(0);
  other.get();
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  int steps = 5, warmup = 2;
  std::vector<int> sizes{1, 10, 50};
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i];
    if (k == "--steps") steps = std::atoi(argv[i + 1]);
    else if (k == "--warmup") warmup = std::atoi(argv[i + 1]);
    else if (k == "--sizes") {
      sizes.clear();
      std::stringstream ss(argv[i + 1]);
      for (std::string x; std::getline(ss, x, ',');) sizes.push_back(std::stoi(x));
    }
  }
  std::printf("learner_dist_bench: 16 samples x 24 completion tokens per step, 1 torch thread "
              "per rank, Gloo on loopback; medians of %d steps after %d warm-up\n",
              steps, warmup);
  std::printf("%-8s %-12s %3s %10s %12s %12s %10s %13s  %s\n", "size", "params", "K", "step s",
              "collective s", "MB reduced", "speed-up", "all-reduce s", "load");
  for (int size : sizes) {
    const auto m = shape_of(size);
    double one = 0;
    for (uint32_t k : {1u, 2u}) {
      const auto f = measure(m, k, warmup, steps);
      if (k == 1) one = f.step;
      const double alone = k == 2 ? allreduce_alone(m.parameter_count(), 3) : 0;
      std::printf("%-8s %-12lld %3u %10.3f %12.3f %12.1f %10.2f %13.3f  %s\n",
                  (std::to_string(size) + "M").c_str(), (long long)m.parameter_count(), k,
                  f.step, f.reduce, double(f.bytes) / 1e6, one / f.step, alone,
                  load_average().c_str());
      std::fflush(stdout);
    }
  }
  return 0;
}
