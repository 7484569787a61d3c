// A real inference server: llama.cpp's llama-server (Debian sid's llama.cpp-tools, put
// beside the system by scripts/llama_server.sh, which scripts/test.sh runs) serving a
// tiny Qwen2 checkpoint that adarl writes and converts to GGUF itself
// (formats/gguf_writer.hpp). Completions drawn through the server engine
// (engines/server/server_engine.hpp) carry the server's log-probs, and the HF learner,
// scoring the same tokens with the same weights, agrees with them (the log-prob gap of
// train_stats); a server killed under the engine and started again loses no row. The
// probe before a run accepts the server on both its routes, refuses it as another
// dialect, and refuses a sampler chain other than the one asked for; the
// OpenAI-compatible route draws the native route's completions where it names every
// token.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <thread>

#include "engines/server/server_engine.hpp"
#include "engines/server/server_process.hpp"
#include "formats/gguf_writer.hpp"
#include "models/hf_engines.hpp"
#include "tests/formats/hf_test_files.hpp"
#include "tests/formats/tiny_hf.hpp"

namespace adarl {
namespace {

/// The llama-server of scripts/llama_server.sh, "" when it is not installed.
std::string llama_server_binary() {
  const std::string path = installed_llama_server();
  return std::filesystem::exists(path) ? path : "";
}

struct llama_fixture : ::testing::Test {
  test::scratch_dir dir;
  std::unique_ptr<server_process> server;
  std::unique_ptr<server_transport> health;
  int port = 0;
  int64_t end_id = 0;

  /// Starts the server on `port` with the tiny model; false (the log in `why`) if not.
  bool start(std::string& why) {
    auto ok = server->restart(*health, dir.file("m.gguf"), "adarl-v0", port);
    if (!ok) why = ok.err().message;
    return bool(ok);
  }

  void SetUp() override {
    const char* required = std::getenv("ADARL_REQUIRE_LLAMA_SERVER");
    if (llama_server_binary().empty() && required && *required == '1')
      FAIL() << "no llama-server, and ADARL_REQUIRE_LLAMA_SERVER=1 (.ci/run): bash "
                "scripts/llama_server.sh install";
    if (llama_server_binary().empty())
      GTEST_SKIP()
          << "no llama-server: bash scripts/llama_server.sh install (scripts/setup.sh "
             "runs it) or set ADARL_LLAMA_SERVER";
    test::tiny_hf_spec spec;
    spec.real_tokenizer = false;
    spec.scale = 0.1f;  // a distribution sharp enough that a wrong log-prob shows
    test::write_tiny_hf(dir.file("hf"), spec);
    const auto tok =
        nlohmann::json::parse(test::read_bytes(dir.file("hf/tokenizer.json")));
    end_id = test::added_token_id(tok, "<|im_end|>");
    auto written = write_gguf_from_hf(dir.file("hf"), dir.file("m.gguf"));
    ASSERT_TRUE(written) << written.err().message;
    port = free_loopback_port();
    health = std::move(*make_http_transport("http://127.0.0.1:" + std::to_string(port)));
    // -fa off and float32 KV caches: log-probs to float32 rounding (llama.cpp's flash
    // attention and f16 caches differ from a float32 reference by up to 0.05 nats).
    server =
        std::make_unique<server_process>(llama_server_binary() +
                                             " -m {model} --alias {version} --host "
                                             "127.0.0.1 --port {port} -c 512 -np 4 -t 1"
                                             " -fa off -ctk f32 -ctv f32 --no-webui",
                                         dir.file("server.log"), 120);
    std::string why;
    ASSERT_TRUE(start(why)) << why;
  }

  server_link_ptr link(uint32_t capacity, float temperature = 1.f,
                       server_dialect dialect = server_dialect::llama) {
    server_config c;
    c.url = "http://127.0.0.1:" + std::to_string(port);
    c.draw.sampling.temperature = temperature;
    c.dialect = dialect;
    c.capacity = capacity;
    c.timeout = 60;
    c.retry_pause = 0.2;
    c.vocab = 0;
    c.draw.sampling.max_new_tokens = 12;
    c.draw.end_ids = {int32_t(end_id)};
    auto t = make_http_transport("http://127.0.0.1:" + std::to_string(port));
    return std::make_shared<server_link>(c, std::move(*t), nullptr);
  }

  static std::vector<generation_result> drain(generation_engine& e, size_t n,
                                              double seconds) {
    std::vector<generation_result> out;
    const auto end =
        std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (out.size() < n && std::chrono::steady_clock::now() < end) e.step(out);
    return out;
  }

  static generation_job job(uint64_t ticket, uint64_t stream) {
    generation_job j;
    j.ticket = ticket;
    j.prompt = {267, 40 + int32_t(ticket % 5), 41, 268};
    j.stream = stream;
    return j;
  }
  /// Draws 8 completions at `temperature` and has the HF learner score the same tokens
  /// with the same weights: the log-prob gap, printed. `l` is the link used.
  void expect_agreement(const server_link_ptr& l, float temperature,
                        std::vector<generation_result>& out) {
    auto engine = make_server_generator(l);
    for (uint64_t t = 0; t < 8; ++t) engine->admit(job(t, 1000 + t));
    out = drain(*engine, 8, 120);
    ASSERT_EQ(out.size(), 8u) << l->counts().last_problem;
    EXPECT_EQ(l->counts().garbage, 0u) << l->counts().last_problem;
    EXPECT_EQ(l->counts().stale, 0u);
    hf_learner_config c;
    c.policy.path = dir.file("hf");
    c.policy.max_len = 64;
    c.optimizer.lr = 1e-6;
    c.pad_id = 266;
    c.temperature = temperature;
    auto learner = make_hf_learner(c);
    ASSERT_TRUE(learner) << learner.err().message;
    std::vector<train_sample> batch;
    size_t tokens = 0, given = 0;
    for (auto& r : out) {
      ASSERT_FALSE(r.tokens.empty());
      ASSERT_EQ(r.tokens.size(), r.logprobs.size());
      train_sample s;
      s.prompt = job(r.ticket, 0).prompt;
      s.completion = r.tokens;
      s.behaviour_logprobs = r.logprobs;
      s.advantage = 1;
      tokens += r.tokens.size();
      for (float lp : r.logprobs) given += std::isnan(lp) ? 0 : 1;
      batch.push_back(std::move(s));
    }
    auto stats = (*learner)->train(batch);
    ASSERT_TRUE(stats) << stats.err().message;
    // llama-server gives no log-prob for a token that ends inside a UTF-8 character (the
    // tiny random model draws many): those are left out of the gap.
    EXPECT_EQ(stats->logprob_gap_tokens, given);
    EXPECT_GT(given, tokens / 2);
    EXPECT_EQ(l->counts().missing_logprobs, tokens - given);
    // The stated tolerance: llama.cpp's float32 CPU kernels against LibTorch's.
    EXPECT_LT(stats->logprob_gap, 2e-3)
        << "mean |log p_server - log p_learner| per token";
    std::printf(
        "llama-server vs learner at temperature %.1f: %.2e nats per token over %zu "
        "tokens "
        "(%zu of %zu without a server log-prob)\n",
        temperature, stats->logprob_gap, given, tokens - given, tokens);
  }
};

TEST_F(llama_fixture, ServerLogprobsAgreeWithTheLearnersOnTheSameTokens) {
  // At temperature 1 the server's raw probabilities; otherwise those after its sampler
  // chain (post_sampling_probs), which the learner computes as softmax(logits / T).
  std::vector<generation_result> out, tempered;
  expect_agreement(link(4, 0.7f), 0.7f, tempered);
  auto l = link(4);
  expect_agreement(l, 1.f, out);
  auto engine = make_server_generator(l);

  // The same random stream draws the same completion.
  engine->admit(job(20, 1000));
  auto again = drain(*engine, 1, 60);
  ASSERT_EQ(again.size(), 1u);
  for (auto& r : out)
    if (r.ticket == 0) EXPECT_EQ(again[0].tokens, r.tokens);
}

TEST_F(llama_fixture, RowsSurviveTheServerKilledAndStartedAgain) {
  auto l = link(4);
  auto engine = make_server_generator(l);
  server->stop(/*crash=*/true);  // down (SIGKILL) before the rows are sent
  for (uint64_t t = 0; t < 4; ++t) engine->admit(job(t, 50 + t));
  std::vector<generation_result> none;
  engine->step(none);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  engine->step(none);
  EXPECT_TRUE(none.empty());
  EXPECT_GT(l->counts().unreachable, 0u);
  std::string why;
  ASSERT_TRUE(start(why)) << why;  // the same port again
  auto out = drain(*engine, 4, 120);
  ASSERT_EQ(out.size(), 4u) << l->counts().last_problem;
  std::map<uint64_t, int> seen;
  for (auto& r : out) ++seen[r.ticket];
  EXPECT_EQ(seen.size(), 4u);  // each row once
  EXPECT_EQ(l->counts().completions, 4u);
}

TEST_F(llama_fixture, TheProbeAcceptsBothRoutesAndRefusesAnotherDialectOrSampler) {
  for (auto d : {server_dialect::llama, server_dialect::llama_openai}) {
    auto l = link(1, 0.7f, d);
    auto ok = probe_server(l->config(), l->transport(), 0);
    EXPECT_TRUE(ok) << server_dialect_name(d) << ": " << ok.err().message;
  }
  auto sglang = link(1, 1.f, server_dialect::sglang);
  auto wrong = probe_server(sglang->config(), sglang->transport(), 0);
  ASSERT_FALSE(wrong);
  EXPECT_NE(wrong.err().message.find("/generate: HTTP 404"), std::string::npos)
      << wrong.err().message;
  // The server's own echo of a request with its default chain (top-k, top-p, min-p
  // before the temperature): read back, and refused.
  auto l = link(1, 0.7f);
  const auto& draw = l->config().draw;
  auto body = nlohmann::json::parse(
      *generate_request(server_dialect::llama, draw, {267, 268}, 5, false).body);
  body["samplers"] = {"top_k", "top_p", "min_p", "temperature"};
  body["n_predict"] = 1;
  auto reply = l->transport().send({"/completion", body.dump()}, 60);
  ASSERT_TRUE(reply) << reply.err().message;
  ASSERT_EQ(reply->status, 200) << reply->body;
  auto refused = check_sampling(server_dialect::llama, reply->body, draw, false);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.err().message.find("generation_settings.samplers"), std::string::npos)
      << refused.err().message;
  body["samplers"] = {"temperature"};
  auto plain = l->transport().send({"/completion", body.dump()}, 60);
  ASSERT_TRUE(plain && plain->status == 200);
  EXPECT_TRUE(check_sampling(server_dialect::llama, plain->body, draw, false));
}

TEST_F(llama_fixture,
       TheOpenAiRouteDrawsTheNativeRoutesCompletionsWhereItNamesEveryToken) {
  constexpr uint64_t rows = 16;
  auto native = link(4);
  auto openai = link(4, 1.f, server_dialect::llama_openai);
  std::map<uint64_t, generation_result> by_native, by_openai;
  for (auto [l, into] : {std::pair{native, &by_native}, std::pair{openai, &by_openai}}) {
    auto engine = make_server_generator(l);
    for (uint64_t t = 0; t < rows; ++t) engine->admit(job(t, 3000 + t));
    auto out = drain(*engine, rows, 120);
    ASSERT_EQ(out.size(), rows) << l->counts().last_problem;
    EXPECT_EQ(l->counts().garbage, 0u) << l->counts().last_problem;
    for (auto& r : out) (*into)[r.ticket] = std::move(r);
  }
  // Where the native route named every token, the OpenAI route drew the same completion
  // with the same log-probs; where it did not, the OpenAI route's reply was incomplete
  // and drawn again with another seed.
  size_t whole = 0, partial = 0;
  for (uint64_t t = 0; t < rows; ++t) {
    const auto& n = by_native[t];
    const auto& o = by_openai[t];
    ASSERT_EQ(o.tokens.size(), o.logprobs.size());
    for (float lp : o.logprobs) EXPECT_FALSE(std::isnan(lp));  // every token named
    const bool named = std::none_of(n.logprobs.begin(), n.logprobs.end(),
                                    [](float x) { return std::isnan(x); });
    if (!named) {
      ++partial;
      continue;
    }
    ++whole;
    EXPECT_EQ(o.tokens, n.tokens) << t;
    if (o.tokens == n.tokens)
      for (size_t k = 0; k < n.logprobs.size(); ++k)
        EXPECT_NEAR(o.logprobs[k], n.logprobs[k], 1e-5) << t << " " << k;
  }
  EXPECT_GT(whole, 0u);
  EXPECT_GE(openai->counts().incomplete, partial);
  EXPECT_EQ(openai->counts().completions, rows);
  std::printf(
      "llama-server /v1/completions: %zu of %llu completions named in full, %llu "
      "incomplete replies drawn again\n",
      whole, static_cast<unsigned long long>(rows),
      static_cast<unsigned long long>(openai->counts().incomplete));
}

}  // namespace
}  // namespace adarl
