// Generation through an inference server against adarl's own decoder, on the same
// model and machine: tokens/s and samples/s of N completions with C in flight, through
// llama-server (engines/server/, the llama dialect; the server started by adarl with the
// model as GGUF, formats/gguf_writer.hpp) and through adarl's HF generator; and the time
// of a one-token request, one at a time, on each path (the per-request overhead of the
// HTTP path is the difference). Both use the same thread count.
//
//   ./build/bench/server_bench HF_DIR [--completions N] [--capacity C] [--new-tokens T]
//                              [--threads K] [--server PATH]
// HF_DIR: a Qwen2 / Qwen3 checkpoint (build/tests/make_tiny_hf DIR writes a tiny one);
// PATH: llama-server (default: scripts/llama_server.sh's).
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "engines/server/server_engine.hpp"
#include "engines/server/server_process.hpp"
#include "formats/gguf_writer.hpp"
#include "formats/hf_config.hpp"
#include "models/hf_engines.hpp"

namespace {

using namespace adarl;
using clock_type = std::chrono::steady_clock;

struct options {
  std::string dir;
  int completions = 64, capacity = 16, new_tokens = 32, threads = 2;
  std::string server;
};

/// Completions of `n` rows (prompt of 16 ids, streams 1..n) with `capacity` in flight:
/// seconds and tokens drawn.
std::pair<double, uint64_t> draw(generation_engine& e, int n, uint64_t first_stream) {
  std::vector<generation_result> out;
  int admitted = 0;
  uint64_t tokens = 0;
  const auto t0 = clock_type::now();
  while (int(out.size()) < n) {
    while (admitted < n && e.active() < e.capacity()) {
      generation_job j;
      j.ticket = uint64_t(admitted);
      for (int k = 0; k < 16; ++k)
        j.prompt.push_back(100 + (admitted * 7 + k * 13) % 900);
      j.stream = first_stream + uint64_t(admitted++);
      e.admit(std::move(j));
    }
    const size_t before = out.size();
    e.step(out);
    for (size_t i = before; i < out.size(); ++i) tokens += out[i].tokens.size();
  }
  return {std::chrono::duration<double>(clock_type::now() - t0).count(), tokens};
}

/// Mean seconds of `n` one-token completions, one at a time.
double one_token(generation_engine& e, int n) {
  std::vector<generation_result> out;
  const auto t0 = clock_type::now();
  for (int i = 0; i < n; ++i) {
    generation_job j;
    j.ticket = uint64_t(i);
    j.prompt = {100, 200, 300, 400};
    j.stream = uint64_t(10000 + i);
    e.admit(std::move(j));
    while (out.size() < size_t(i + 1)) e.step(out);
  }
  return std::chrono::duration<double>(clock_type::now() - t0).count() / n;
}

void print(const char* what, std::pair<double, uint64_t> r, int n) {
  std::printf("%-26s %6.2f s  %8.1f tokens/s  %6.2f samples/s  (%llu tokens)\n", what,
              r.first, double(r.second) / r.first, n / r.first,
              static_cast<unsigned long long>(r.second));
}

}  // namespace

int main(int argc, char** argv) {
  options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&] { return i + 1 < argc ? std::string(argv[++i]) : std::string(); };
    if (a == "--completions")
      o.completions = std::atoi(next().c_str());
    else if (a == "--capacity")
      o.capacity = std::atoi(next().c_str());
    else if (a == "--new-tokens")
      o.new_tokens = std::atoi(next().c_str());
    else if (a == "--threads")
      o.threads = std::atoi(next().c_str());
    else if (a == "--server")
      o.server = next();
    else if (o.dir.empty() && a[0] != '-')
      o.dir = a;
    else {
      std::fprintf(stderr,
                   "usage: server_bench HF_DIR [--completions N] [--capacity C] "
                   "[--new-tokens T] [--threads K] [--server PATH]\n");
      return 2;
    }
  }
  if (o.dir.empty() || o.completions < 1 || o.capacity < 1 || o.new_tokens < 1 ||
      o.threads < 1) {
    std::fprintf(stderr, "server_bench: HF_DIR and positive counts, please\n");
    return 2;
  }
  if (o.server.empty()) o.server = installed_llama_server();
  auto config = read_hf_config(o.dir);
  if (!config) {
    std::fprintf(stderr, "server_bench: %s\n", config.err().message.c_str());
    return 1;
  }
  std::vector<int32_t> end_ids(config->eos_token_ids.begin(),
                               config->eos_token_ids.end());
  sampling_params sampling;
  sampling.max_new_tokens = o.new_tokens;

  // adarl's decoder.
  hf_generator_config g;
  g.policy.path = o.dir;
  g.policy.max_len = 16 + o.new_tokens;
  g.policy.threads = o.threads;
  g.capacity = uint32_t(o.capacity);
  g.sampling = sampling;
  g.end_ids = end_ids;
  auto local = make_hf_generator(g);
  if (!local) {
    std::fprintf(stderr, "server_bench: %s\n", local.err().message.c_str());
    return 1;
  }

  // llama-server on the same model.
  const std::string tmp = std::filesystem::temp_directory_path() /
                          ("adarl-server-bench-" + std::to_string(::getpid()));
  std::filesystem::create_directories(tmp);
  if (auto ok = write_gguf_from_hf(o.dir, tmp + "/model.gguf"); !ok) {
    std::fprintf(stderr, "server_bench: %s\n", ok.err().message.c_str());
    return 1;
  }
  const int port = free_loopback_port();
  const std::string url = "http://127.0.0.1:" + std::to_string(port);
  server_config sc;
  sc.dialect = server_dialect::llama;
  sc.url = url;
  sc.capacity = uint32_t(o.capacity);
  sc.vocab = int32_t(config->vocab_size);
  sc.draw.sampling = sampling;
  sc.draw.end_ids = end_ids;
  auto link =
      std::make_shared<server_link>(sc, std::move(*make_http_transport(url)), nullptr);
  const std::string launch = o.server +
                             " -m {model} --alias {version} --host 127.0.0.1 --port "
                             "{port} -c " +
                             std::to_string(o.capacity * (16 + o.new_tokens + 8)) +
                             " -np " + std::to_string(o.capacity) + " -t " +
                             std::to_string(o.threads) +
                             " -fa off -ctk f32 -ctv f32 --no-webui";
  link->own_process(std::make_unique<server_process>(launch, tmp + "/server.log", 120),
                    port);
  if (auto ok = link->start(tmp + "/model.gguf"); !ok) {
    std::fprintf(stderr, "server_bench: %s\n", ok.err().message.c_str());
    return 1;
  }
  auto served = make_server_generator(link);

  std::printf(
      "server_bench: %s, %d completions of at most %d tokens, %d in flight, %d "
      "threads each\n",
      config->summary().c_str(), o.completions, o.new_tokens, o.capacity, o.threads);
  draw(**local, o.capacity, 1);  // warm-up
  draw(*served, o.capacity, 1);
  print("adarl decoder", draw(**local, o.completions, 100), o.completions);
  print("llama-server (HTTP)", draw(*served, o.completions, 100), o.completions);
  sampling.max_new_tokens = 1;
  g.sampling = sampling;
  g.capacity = 1;
  auto local1 = make_hf_generator(g);
  sc.draw.sampling = sampling;
  sc.capacity = 1;
  auto link1 =
      std::make_shared<server_link>(sc, std::move(*make_http_transport(url)), nullptr);
  auto served1 = make_server_generator(link1);
  const int n = 50;
  one_token(**local1, 5);
  one_token(*served1, 5);
  const double l = one_token(**local1, n), s = one_token(*served1, n);
  std::printf(
      "one-token row, one at a time: adarl decoder %.2f ms, llama-server %.2f ms "
      "(HTTP path and server overhead %+.2f ms)\n",
      l * 1e3, s * 1e3, (s - l) * 1e3);
  const auto c = link->counts();
  std::printf(
      "server counts: %llu requests, %llu garbled, %llu unreachable, %llu tokens "
      "without a log-prob\n",
      static_cast<unsigned long long>(c.requests),
      static_cast<unsigned long long>(c.garbage),
      static_cast<unsigned long long>(c.unreachable),
      static_cast<unsigned long long>(c.missing_logprobs));
  served.reset();
  served1.reset();
  link1.reset();
  link.reset();  // stops the server
  std::filesystem::remove_all(tmp);
  return 0;
}
