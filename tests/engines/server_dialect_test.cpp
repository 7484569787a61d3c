// The inference servers' dialects (engines/server/server_dialect.hpp): what each is asked
// (plain sampling, every default-on sampler set off, log-probs of the sampled tokens),
// and what is read back from replies shaped as each project documents them; garbage is
// an error naming the field, never a completion.
#include "engines/server/server_dialect.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>

namespace adarl {
namespace {

using json = nlohmann::json;

server_draw draw_of(float temperature = 1.f, int32_t max_new = 8) {
  server_draw d;
  d.sampling.temperature = temperature;
  d.sampling.max_new_tokens = max_new;
  d.end_ids = {7};
  return d;
}

TEST(ServerDialectTest, EveryDialectHasOneNameThatParsesBack) {
  for (auto d : {server_dialect::llama, server_dialect::sglang, server_dialect::vllm,
                 server_dialect::llama_openai}) {
    auto parsed = parse_server_dialect(server_dialect_name(d));
    ASSERT_TRUE(parsed);
    EXPECT_EQ(*parsed, d);
  }
  auto bad = parse_server_dialect("tgi");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.err().message.find("llama, sglang, vllm or llama-openai"),
            std::string::npos);
  EXPECT_EQ(server_dialect_name(server_dialect::llama_openai), "llama-openai");
  EXPECT_TRUE(is_llama_server(server_dialect::llama_openai));
  EXPECT_FALSE(is_llama_server(server_dialect::vllm));
}

TEST(ServerDialectTest, LlamaServerIsAskedForPlainTemperatureSamplingWithTokenIds) {
  const auto r =
      generate_request(server_dialect::llama, draw_of(0.7f), {1, 2, 3}, 42, false);
  EXPECT_EQ(r.path, "/completion");
  ASSERT_TRUE(r.body);
  const json b = json::parse(*r.body);
  EXPECT_EQ(b["prompt"], json({1, 2, 3}));
  EXPECT_EQ(b["n_predict"], 8);
  EXPECT_NEAR(b["temperature"].get<double>(), 0.7, 1e-6);
  EXPECT_EQ(b["top_k"], 0);
  EXPECT_EQ(b["min_p"], 0.0);
  EXPECT_EQ(b["repeat_penalty"], 1.0);
  EXPECT_EQ(b["samplers"], json({"temperature"}));
  EXPECT_EQ(b["seed"], 42);
  EXPECT_EQ(b["n_probs"], 1);
  EXPECT_EQ(b["post_sampling_probs"], true);
  EXPECT_EQ(b["return_tokens"], true);
  // Greedy evaluation is temperature 0.
  const auto g = generate_request(server_dialect::llama, draw_of(0.7f), {1}, 42, true);
  EXPECT_EQ(json::parse(*g.body)["temperature"], 0.0);
  // At temperature 1 the raw probabilities are the drawn distribution's: no sorting.
  const auto t1 = generate_request(server_dialect::llama, draw_of(1.f), {1}, 42, false);
  EXPECT_EQ(json::parse(*t1.body)["post_sampling_probs"], false);
}

TEST(ServerDialectTest, SglangAndVllmAreAskedWithEverySamplerOff) {
  auto d = draw_of();
  d.model = "tiny";
  const json s =
      json::parse(*generate_request(server_dialect::sglang, d, {4, 5}, 9, false).body);
  EXPECT_EQ(s["input_ids"], json({4, 5}));
  EXPECT_EQ(s["return_logprob"], true);
  const auto& sp = s["sampling_params"];
  EXPECT_EQ(sp["top_k"], -1);
  EXPECT_EQ(sp["top_p"], 1.0);
  EXPECT_EQ(sp["min_p"], 0.0);
  EXPECT_EQ(sp["repetition_penalty"], 1.0);
  EXPECT_EQ(sp["max_new_tokens"], 8);
  EXPECT_EQ(sp["stop_token_ids"], json({7}));
  EXPECT_EQ(sp["sampling_seed"], 9);

  const auto v = generate_request(server_dialect::vllm, d, {4, 5}, 9, false);
  EXPECT_EQ(v.path, "/v1/completions");
  const json b = json::parse(*v.body);
  EXPECT_EQ(b["prompt"], json({4, 5}));
  EXPECT_EQ(b["model"], "tiny");
  EXPECT_EQ(b["top_k"], -1);
  EXPECT_EQ(b["return_token_ids"], true);
  EXPECT_EQ(b["logprobs"], 0);
  EXPECT_EQ(b["seed"], 9);
}

TEST(ServerDialectTest, ASeedBeyondThirtyOneBitsIsFoldedIntoWhatServersAccept) {
  const json b = json::parse(*generate_request(server_dialect::sglang, draw_of(), {1},
                                               0xffffffff00000005ull, false)
                                  .body);
  EXPECT_EQ(b["sampling_params"]["sampling_seed"], 5);
}

TEST(ServerDialectTest, ALlamaServerReplyGivesIdsLogprobsAndItsModelAlias) {
  // The shape of llama-server's /completion reply with n_probs and post_sampling_probs.
  const json reply = {
      {"content", "ab"},
      {"tokens", {11, 7}},
      {"model", "adarl-v3"},
      {"stop_type", "eos"},
      {"completion_probabilities",
       {{{"id", 11}, {"token", "a"}, {"prob", 0.5}, {"top_probs", json::array()}},
        {{"id", 7}, {"token", "<end>"}, {"prob", 0.25}, {"top_probs", json::array()}}}}};
  auto c = read_completion(server_dialect::llama, reply.dump(), draw_of(), 100);
  ASSERT_TRUE(c) << c.err().message;
  EXPECT_EQ(c->tokens, (std::vector<int32_t>{11, 7}));
  ASSERT_EQ(c->logprobs.size(), 2u);
  EXPECT_NEAR(c->logprobs[0], std::log(0.5), 1e-6);
  EXPECT_NEAR(c->logprobs[1], std::log(0.25), 1e-6);
  EXPECT_TRUE(c->ended);
  EXPECT_EQ(c->weight_version, "adarl-v3");
  // Without post_sampling_probs the entries carry logprob.
  const json raw = {{"tokens", {5}},
                    {"completion_probabilities", {{{"id", 5}, {"logprob", -1.5}}}},
                    {"stop_type", "limit"}};
  auto r = read_completion(server_dialect::llama, raw.dump(), draw_of(), 100);
  ASSERT_TRUE(r) << r.err().message;
  EXPECT_EQ(r->logprobs, std::vector<float>{-1.5f});
  EXPECT_FALSE(r->ended);
}

TEST(ServerDialectTest, ATokenLlamaServerGaveNoProbabilityForIsMarkedMissing) {
  // llama-server keeps only the probability of the token that completes a UTF-8
  // character: the first two bytes of a three-byte character have none.
  const json reply = {{"tokens", {228, 184, 173, 33}},
                      {"completion_probabilities",
                       {{{"id", 173}, {"prob", 0.5}}, {{"id", 33}, {"prob", 0.25}}}}};
  auto c = read_completion(server_dialect::llama, reply.dump(), draw_of(), 0);
  ASSERT_TRUE(c) << c.err().message;
  EXPECT_EQ(c->tokens, (std::vector<int32_t>{228, 184, 173, 33}));
  ASSERT_EQ(c->logprobs.size(), 4u);
  EXPECT_TRUE(std::isnan(c->logprobs[0]));
  EXPECT_TRUE(std::isnan(c->logprobs[1]));
  EXPECT_NEAR(c->logprobs[2], std::log(0.5), 1e-6);
  EXPECT_NEAR(c->logprobs[3], std::log(0.25), 1e-6);
  EXPECT_EQ(missing_logprob_count(*c), 2u);
}

TEST(ServerDialectTest, AnSglangReplyGivesIdsLogprobsAndTheWeightVersion) {
  const json reply = {
      {"text", "xy"},
      {"output_ids", {3, 7}},
      {"meta_info",
       {{"id", "r1"},
        {"finish_reason", {{"type", "stop"}, {"matched", 7}}},
        {"completion_tokens", 2},
        {"weight_version", "adarl-v12"},
        {"output_token_logprobs", {{-0.25, 3, nullptr}, {-2.0, 7, nullptr}}}}}};
  auto c = read_completion(server_dialect::sglang, reply.dump(), draw_of(), 0);
  ASSERT_TRUE(c) << c.err().message;
  EXPECT_EQ(c->tokens, (std::vector<int32_t>{3, 7}));
  EXPECT_EQ(c->logprobs, (std::vector<float>{-0.25f, -2.0f}));
  EXPECT_TRUE(c->ended);
  EXPECT_EQ(c->weight_version, "adarl-v12");
}

TEST(ServerDialectTest, AVllmReplyGivesTokenIdsAndTheirLogprobs) {
  const json reply = {{"id", "cmpl-1"},
                      {"object", "text_completion"},
                      {"choices",
                       {{{"index", 0},
                         {"text", "zz"},
                         {"token_ids", {9, 9, 4}},
                         {"finish_reason", "length"},
                         {"logprobs",
                          {{"tokens", {"token_id:9", "token_id:9", "token_id:4"}},
                           {"token_logprobs", {-0.1, -0.2, -0.3}},
                           {"top_logprobs", nullptr},
                           {"text_offset", {0, 1, 2}}}}}}},
                      {"usage", {{"prompt_tokens", 2}, {"completion_tokens", 3}}}};
  auto c = read_completion(server_dialect::vllm, reply.dump(), draw_of(), 10);
  ASSERT_TRUE(c) << c.err().message;
  EXPECT_EQ(c->tokens, (std::vector<int32_t>{9, 9, 4}));
  EXPECT_FALSE(c->ended);
  EXPECT_FALSE(c->weight_version);
}

TEST(ServerDialectTest, GarbageIsAnErrorNamingTheField) {
  const auto d = draw_of(1.f, 2);
  auto expect_error = [&](server_dialect dialect, const std::string& body,
                          const std::string& what) {
    auto c = read_completion(dialect, body, d, 10);
    ASSERT_FALSE(c) << body;
    EXPECT_NE(c.err().message.find(what), std::string::npos) << c.err().message;
  };
  expect_error(server_dialect::sglang, "<html>502 Bad Gateway</html>", "not JSON");
  expect_error(server_dialect::sglang, R"({"text": "x"})", "meta_info");
  expect_error(server_dialect::sglang,
               R"({"meta_info": {"output_token_logprobs": [[-0.1, 12, null]]}})",
               "outside the vocabulary [0, 10)");
  expect_error(server_dialect::sglang,
               R"({"meta_info": {"output_token_logprobs": [[0.5, 1, null]]}})",
               "not a finite number <= 0");
  expect_error(
      server_dialect::sglang,
      R"({"output_ids": [1, 2], "meta_info": {"output_token_logprobs": [[-0.5, 1, null]]}})",
      "1 output_token_logprobs");
  expect_error(
      server_dialect::sglang,
      R"({"meta_info": {"finish_reason": {"type": "abort"}, "output_token_logprobs": []}})",
      "aborted");
  expect_error(server_dialect::llama,
               R"({"tokens": [1], "completion_probabilities": [{"id": 1, "prob": 0}]})",
               "probability in (0, 1]");
  expect_error(
      server_dialect::llama,
      R"({"tokens": [2], "completion_probabilities": [{"id": 1, "logprob": -1}]})",
      "is not one of the tokens in order");
  expect_error(server_dialect::llama,
               R"({"completion_probabilities": [{"id": 1, "logprob": -1}]})",
               "no \"tokens\"");
  expect_error(
      server_dialect::vllm,
      R"({"choices": [{"token_ids": [1, 2], "logprobs": {"token_logprobs": [-1]}}]})",
      "differ in length");
  // More tokens than the cap asked for.
  expect_error(
      server_dialect::sglang,
      R"({"meta_info": {"output_token_logprobs": [[-1, 1, null], [-1, 1, null], [-1, 1, null]]}})",
      "more than the 2 asked for");
}

TEST(ServerDialectTest, WeightsLoadByTheRoutesTheProjectsDocument) {
  auto s = load_weights_request(server_dialect::sglang, "/w/v3", "adarl-v3");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->path, "/update_weights_from_disk");
  const json b = json::parse(*s->body);
  EXPECT_EQ(b["model_path"], "/w/v3");
  EXPECT_EQ(b["weight_version"], "adarl-v3");
  EXPECT_TRUE(
      read_load_reply(server_dialect::sglang, R"({"success": true, "message": "ok"})"));
  auto failed = read_load_reply(server_dialect::sglang,
                                R"({"success": false, "message": "no such file"})");
  ASSERT_FALSE(failed);
  EXPECT_NE(failed.err().message.find("no such file"), std::string::npos);
  EXPECT_FALSE(load_weights_request(server_dialect::llama, "/w/v3", "adarl-v3"));
  auto v3 = load_weights_request(server_dialect::vllm, "/w/v3", "adarl-v3");
  ASSERT_TRUE(v3);
  EXPECT_EQ(v3->path, "/collective_rpc");
  EXPECT_EQ(json::parse(*v3->body), json({{"method", "reload_weights"},
                                          {"kwargs", {{"weights_path", "/w/v3"}}}}));

  auto v = version_requests(server_dialect::sglang);
  ASSERT_EQ(v.size(), 3u);
  EXPECT_EQ(v[0].path, "/model_info");  // recent SGLang; older ones answer the others
  EXPECT_EQ(v[2].path, "/get_weight_version");
  EXPECT_FALSE(v[0].body);
  EXPECT_TRUE(version_requests(server_dialect::vllm).empty());
  auto said =
      read_version_reply(server_dialect::sglang, R"({"weight_version": "adarl-v3"})");
  ASSERT_TRUE(said);
  EXPECT_EQ(*said, "adarl-v3");
  EXPECT_FALSE(read_version_reply(server_dialect::sglang, R"({"version": 3})"));
}

TEST(ServerDialectTest, ALaunchCommandHasItsPlaceholdersFilledPerVersion) {
  auto a = launch_arguments("llama-server -m {model} --alias {version}  --port {port}",
                            "/w/v3/model.gguf", "adarl-v3", 8080);
  ASSERT_TRUE(a) << a.err().message;
  EXPECT_EQ(*a, (std::vector<std::string>{"llama-server", "-m", "/w/v3/model.gguf",
                                          "--alias", "adarl-v3", "--port", "8080"}));
  ::setenv("HOME", "/home/u", 1);
  auto home = launch_arguments("~/bin/s --x=~/y", "m", "v", 1);
  ASSERT_TRUE(home);
  EXPECT_EQ((*home)[0], "/home/u/bin/s");
  EXPECT_EQ((*home)[1], "--x=~/y");  // only at the start of a word
  EXPECT_FALSE(launch_arguments("s -m {weights}", "m", "v", 1));
  EXPECT_FALSE(launch_arguments("s -m {model", "m", "v", 1));
  EXPECT_FALSE(launch_arguments("   ", "m", "v", 1));
}

TEST(ServerDialectTest, VersionNamesReadBackAndForeignNamesDoNot) {
  EXPECT_EQ(weight_version_name(12), "adarl-v12");
  EXPECT_EQ(weight_version_number("adarl-v12"), 12u);
  EXPECT_EQ(weight_version_number("adarl-v0"), 0u);
  EXPECT_FALSE(weight_version_number("default"));
  EXPECT_FALSE(weight_version_number("adarl-v"));
  EXPECT_FALSE(weight_version_number("adarl-v1x"));
  EXPECT_FALSE(weight_version_number("adarl-v99999999999999999999999"));
}

TEST(ServerDialectTest, LlamaServersOpenAiRouteIsAskedWithTheNativeSettings) {
  auto d = draw_of(0.7f);
  d.model = "adarl";
  const auto r = generate_request(server_dialect::llama_openai, d, {1, 2}, 42, false);
  EXPECT_EQ(r.path, "/v1/completions");
  const json b = json::parse(*r.body);
  EXPECT_EQ(b["prompt"], json({1, 2}));
  EXPECT_EQ(b["max_tokens"], 8);
  EXPECT_EQ(b["logprobs"], 1);  // 0 gives none on this route
  EXPECT_EQ(b["samplers"], json({"temperature"}));
  EXPECT_EQ(b["dynatemp_range"], 0.0);
  EXPECT_EQ(b["post_sampling_probs"], true);
  EXPECT_EQ(b["model"], "adarl");
  EXPECT_FALSE(b.contains("n_predict"));
  EXPECT_FALSE(b.contains("n_probs"));
  // Loaded at start like the native route; its version is the model alias.
  EXPECT_FALSE(load_weights_request(server_dialect::llama_openai, "/w", "adarl-v1"));
  ASSERT_EQ(version_requests(server_dialect::llama_openai).size(), 1u);
  EXPECT_EQ(version_requests(server_dialect::llama_openai)[0].path, "/props");
}

TEST(ServerDialectTest,
     AnOpenAiReplyNamingEveryTokenIsACompletionAndOneThatDoesNotIsNot) {
  // The shape of llama-server 0.7.0's /v1/completions reply with logprobs 1.
  json reply = {{"choices",
                 {{{"text", "ab"},
                   {"index", 0},
                   {"finish_reason", "stop"},
                   {"logprobs",
                    {{"content",
                      {{{"id", 11},
                        {"token", "a"},
                        {"logprob", -0.5},
                        {"top_logprobs", json::array()}},
                       {{"id", 7}, {"token", ""}, {"logprob", -1.0}}}}}}}}},
                {"model", "adarl-v2"},
                {"usage", {{"completion_tokens", 2}, {"prompt_tokens", 2}}}};
  auto c = read_completion(server_dialect::llama_openai, reply.dump(), draw_of(), 100);
  ASSERT_TRUE(c) << c.err().message;
  EXPECT_EQ(c->tokens, (std::vector<int32_t>{11, 7}));
  EXPECT_EQ(c->logprobs, (std::vector<float>{-0.5f, -1.f}));
  EXPECT_TRUE(c->ended);
  EXPECT_EQ(c->weight_version, "adarl-v2");
  // post_sampling_probs answers "prob".
  reply["choices"][0]["logprobs"]["content"][0].erase("logprob");
  reply["choices"][0]["logprobs"]["content"][0]["prob"] = 0.25;
  auto p = read_completion(server_dialect::llama_openai, reply.dump(), draw_of(), 100);
  ASSERT_TRUE(p) << p.err().message;
  EXPECT_NEAR(p->logprobs[0], std::log(0.25), 1e-6);
  // Three drawn, two named: a token ending inside a UTF-8 character was left out.
  reply["usage"]["completion_tokens"] = 3;
  auto part = read_completion(server_dialect::llama_openai, reply.dump(), draw_of(), 100);
  ASSERT_FALSE(part);
  EXPECT_TRUE(is_incomplete_reply(part.err())) << part.err().message;
  EXPECT_NE(part.err().message.find("3 tokens drawn, 2 named"), std::string::npos);
  // logprobs null (a server asked for none) is garbage, not incomplete.
  reply["choices"][0]["logprobs"] = nullptr;
  auto none = read_completion(server_dialect::llama_openai, reply.dump(), draw_of(), 100);
  ASSERT_FALSE(none);
  EXPECT_FALSE(is_incomplete_reply(none.err()));
}

/// generation_settings as llama-server echoes what generate_request() asked for.
json echoed_settings(const server_draw& d, bool greedy) {
  const json asked =
      json::parse(*generate_request(server_dialect::llama, d, {1}, 3, greedy).body);
  json g;
  for (const char* k : {"temperature", "top_p", "top_k", "min_p", "mirostat", "samplers",
                        "post_sampling_probs", "dynatemp_range", "seed"})
    g[k] = asked[k];
  g["logit_bias"] = json::array();
  g["grammar"] = "";
  g["ignore_eos"] = false;
  return {{"generation_settings", g}, {"tokens", {5}}};
}

TEST(ServerDialectTest, SamplingTheServerChangedOrIgnoredIsRefusedNamingTheSetting) {
  const auto d = draw_of(0.7f);
  const json ok = echoed_settings(d, false);
  EXPECT_TRUE(check_sampling(server_dialect::llama, ok.dump(), d, false));
  const auto refused = [&](const std::string& key, const json& value) {
    json bad = ok;
    bad["generation_settings"][key] = value;
    auto r = check_sampling(server_dialect::llama, bad.dump(), d, false);
    ASSERT_FALSE(r) << key;
    EXPECT_NE(r.err().message.find("generation_settings." + key), std::string::npos)
        << r.err().message;
  };
  refused("samplers", {"top_k", "top_p", "min_p", "temperature"});  // the default chain
  refused("temperature", 0.8);
  refused("mirostat", 2);
  refused("dynatemp_range", 0.5);
  refused("logit_bias", {{{"id", 3}, {"bias", -1}}});
  refused("grammar", "root ::= \"a\"");
  refused("post_sampling_probs", false);
  // A run with top-p: the chain has it, and its value must be the run's.
  auto nucleus = draw_of(1.f);
  nucleus.sampling.top_p = 0.9f;
  json top = echoed_settings(nucleus, false);
  EXPECT_EQ(top["generation_settings"]["samplers"], json({"top_p", "temperature"}));
  EXPECT_TRUE(check_sampling(server_dialect::llama, top.dump(), nucleus, false));
  top["generation_settings"]["top_p"] = 0.95;
  EXPECT_FALSE(check_sampling(server_dialect::llama, top.dump(), nucleus, false));
  // A reply without the settings cannot be checked: refused too.
  EXPECT_FALSE(check_sampling(server_dialect::llama, R"({"tokens": [5]})", d, false));
  // The other dialects' replies do not say: the log-prob gap is their check.
  EXPECT_TRUE(check_sampling(server_dialect::sglang, "{}", d, false));
  EXPECT_TRUE(check_sampling(server_dialect::llama_openai, "{}", d, false));
}

}  // namespace
}  // namespace adarl
