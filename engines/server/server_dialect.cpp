#include "engines/server/server_dialect.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

namespace adarl {

namespace {

using json = nlohmann::json;

constexpr std::string_view dialect_names[] = {"llama", "sglang", "vllm", "llama-openai"};

// Seeds travel as JSON integers; servers read them as signed 32- or 64-bit values.
int64_t server_seed(uint64_t stream) {
  return int64_t(stream & 0x7fffffffu);
}

/// llama-server's sampler chain for `d`: temperature alone is plain sampling from
/// softmax(logits / T); top_p before it when the run sets one.
json llama_samplers(const server_draw& d) {
  json samplers = json::array();
  if (d.sampling.top_p < 1.f) samplers.push_back("top_p");
  samplers.push_back("temperature");
  return samplers;
}

bool llama_post_sampling(const server_draw& d, bool greedy) {
  return !greedy && (d.sampling.temperature != 1.f || d.sampling.top_p < 1.f);
}

json llama_body(const server_draw& d, const std::vector<int32_t>& prompt, uint64_t seed,
                bool greedy) {
  // llama-server's sampler chain runs only what `samplers` names; every other sampler
  // and penalty is also set to its off value in case a build ignores `samplers`
  // (check_sampling() reads back what it used).
  return {{"prompt", prompt},
          {"n_predict", d.sampling.max_new_tokens},
          {"temperature", greedy ? 0.0 : double(d.sampling.temperature)},
          {"dynatemp_range", 0.0},
          {"top_k", 0},
          {"top_p", double(d.sampling.top_p)},
          {"min_p", 0.0},
          {"typical_p", 1.0},
          {"repeat_penalty", 1.0},
          {"repeat_last_n", 0},
          {"presence_penalty", 0.0},
          {"frequency_penalty", 0.0},
          {"dry_multiplier", 0.0},
          {"xtc_probability", 0.0},
          {"mirostat", 0},
          {"samplers", llama_samplers(d)},
          {"seed", server_seed(seed)},
          {"n_probs", 1},
          // The sampled token's probability: llama-server's n_probs are of the raw
          // softmax(logits), which at temperature 1 without top-p is the distribution
          // drawn from; otherwise post_sampling_probs gives them after the sampler chain
          // (with temperature alone, softmax(logits / T)), at a cost (the chain's
          // candidates sorted each token: 4x the time per token on a 151k vocabulary).
          {"post_sampling_probs", llama_post_sampling(d, greedy)},
          {"return_tokens", true},
          {"cache_prompt", true},
          {"stream", false}};
}

/// llama-server's /v1/completions reads its native settings too: the same body, with the
/// OpenAI names for the length and the log-probs (logprobs 0 would give none).
json llama_openai_body(const server_draw& d, const std::vector<int32_t>& prompt,
                       uint64_t seed, bool greedy) {
  json b = llama_body(d, prompt, seed, greedy);
  b.erase("n_predict");
  b.erase("n_probs");
  b.erase("return_tokens");
  b["max_tokens"] = d.sampling.max_new_tokens;
  b["logprobs"] = 1;
  if (!d.model.empty()) b["model"] = d.model;
  return b;
}

/// What SGLang's sampling_params and vLLM's request share (their names agree): the
/// temperature, top-p, the end ids, and top-k, min-p and every penalty off.
json plain_sampling(const server_draw& d, bool greedy) {
  return {{"temperature", greedy ? 0.0 : double(d.sampling.temperature)},
          {"top_p", double(d.sampling.top_p)},
          {"top_k", -1},
          {"min_p", 0.0},
          {"repetition_penalty", 1.0},
          {"presence_penalty", 0.0},
          {"frequency_penalty", 0.0},
          {"stop_token_ids", d.end_ids},
          {"skip_special_tokens", false}};
}

json sglang_body(const server_draw& d, const std::vector<int32_t>& prompt, uint64_t seed,
                 bool greedy) {
  json sp = plain_sampling(d, greedy);
  sp["max_new_tokens"] = d.sampling.max_new_tokens;
  sp["no_stop_trim"] = true;
  sp["sampling_seed"] = server_seed(seed);
  return {{"input_ids", prompt},    {"sampling_params", std::move(sp)},
          {"return_logprob", true}, {"logprob_start_len", -1},
          {"top_logprobs_num", 0},  {"stream", false}};
}

json vllm_body(const server_draw& d, const std::vector<int32_t>& prompt, uint64_t seed,
               bool greedy) {
  json b = plain_sampling(d, greedy);
  b["prompt"] = prompt;
  b["max_tokens"] = d.sampling.max_new_tokens;
  b["seed"] = server_seed(seed);
  b["logprobs"] = 0;
  b["include_stop_str_in_output"] = true;
  b["return_token_ids"] = true;
  b["return_tokens_as_token_ids"] = true;
  b["stream"] = false;
  if (!d.model.empty()) b["model"] = d.model;
  return b;
}

/// The value at `key` of `j` (an object), or an error naming where it was looked for.
result<const json*> field(const json& j, const char* key, const std::string& where) {
  if (!j.is_object()) return error{where + ": expected a JSON object"};
  auto it = j.find(key);
  if (it == j.end()) return error{where + ": no \"" + key + "\""};
  return &*it;
}

result<int32_t> token_id(const json& v, const std::string& where, int32_t vocab) {
  if (!v.is_number_integer())
    return error{where + ": expected a token id, got " + v.dump()};
  const auto id = v.get<int64_t>();
  if (id < 0 || id > std::numeric_limits<int32_t>::max() || (vocab > 0 && id >= vocab))
    return error{where + ": token id " + std::to_string(id) +
                 " outside the vocabulary [0, " + std::to_string(vocab) + ")"};
  return int32_t(id);
}

result<float> logprob(const json& v, const std::string& where) {
  if (!v.is_number()) return error{where + ": expected a log-prob, got " + v.dump()};
  const double x = v.get<double>();
  if (!std::isfinite(x) || x > 1e-6)
    return error{where + ": log-prob " + v.dump() + " is not a finite number <= 0"};
  return float(std::min(0.0, x));
}

bool ends(const server_draw& d, const std::vector<int32_t>& tokens) {
  if (tokens.empty()) return false;
  for (int32_t e : d.end_ids)
    if (tokens.back() == e) return true;
  return false;
}

/// llama-server's list of sampled tokens with their probabilities (both routes): each
/// entry's id and its log-prob ("logprob", or "prob" with post_sampling_probs).
result<bool> read_llama_probs(const json& list, const std::string& where, int32_t vocab,
                              std::vector<int32_t>& ids, std::vector<float>& lps) {
  if (!list.is_array()) return error{where + " is not an array"};
  size_t i = 0;
  for (const auto& p : list) {
    const std::string at = where + "[" + std::to_string(i++) + "]";
    auto id = field(p, "id", at);
    if (!id) return id.err();
    auto t = token_id(**id, at + ".id", vocab);
    if (!t) return t.err();
    if (p.contains("logprob")) {
      auto lp = logprob(p["logprob"], at + ".logprob");
      if (!lp) return lp.err();
      lps.push_back(*lp);
    } else {
      auto pr = field(p, "prob", at);
      if (!pr) return pr.err();
      if (!(*pr)->is_number() || !((*pr)->get<double>() > 0) ||
          (*pr)->get<double>() > 1 + 1e-6)
        return error{at + ".prob: expected a probability in (0, 1], got " +
                     (*pr)->dump()};
      lps.push_back(float(std::min(0.0, std::log((*pr)->get<double>()))));
    }
    ids.push_back(*t);
  }
  return true;
}

result<server_completion> read_llama(const json& j, const server_draw& d, int32_t vocab) {
  server_completion c;
  auto probs = field(j, "completion_probabilities", "llama-server reply");
  if (!probs) return probs.err();
  std::vector<int32_t> prob_ids;
  std::vector<float> prob_lps;
  if (auto ok = read_llama_probs(**probs, "llama-server reply: completion_probabilities",
                                 vocab, prob_ids, prob_lps);
      !ok)
    return ok.err();
  // The ids (return_tokens). llama-server gives no probability for a token after which
  // the text ends inside a UTF-8 character (it holds the text back until the character
  // is whole, and keeps only the completing token's): the probabilities are a
  // subsequence of the tokens, and a token without one gets NaN (missing_logprob_count).
  if (!j.contains("tokens") || !j["tokens"].is_array())
    return error{"llama-server reply: no \"tokens\" array (return_tokens)"};
  size_t next = 0;
  for (size_t k = 0; k < j["tokens"].size(); ++k) {
    auto t = token_id(j["tokens"][k],
                      "llama-server reply: tokens[" + std::to_string(k) + "]", vocab);
    if (!t) return t.err();
    c.tokens.push_back(*t);
    if (next < prob_ids.size() && prob_ids[next] == *t) {
      c.logprobs.push_back(prob_lps[next++]);
    } else {
      c.logprobs.push_back(std::numeric_limits<float>::quiet_NaN());
    }
  }
  if (next != prob_ids.size())
    return error{"llama-server reply: completion_probabilities[" + std::to_string(next) +
                 "] (id " + std::to_string(prob_ids[next]) +
                 ") is not one of the tokens in order"};
  c.ended = ends(d, c.tokens) || (j.contains("stop_type") && j["stop_type"] == "eos");
  if (j.contains("model") && j["model"].is_string())
    c.weight_version = j["model"].get<std::string>();
  return c;
}

result<server_completion> read_llama_openai(const json& j, const server_draw& d,
                                            int32_t vocab) {
  const std::string at = "llama-server /v1/completions reply";
  auto choices = field(j, "choices", at);
  if (!choices) return choices.err();
  if (!(*choices)->is_array() || (*choices)->size() != 1)
    return error{at + ": expected one choice"};
  const json& ch = (**choices)[0];
  auto lp = field(ch, "logprobs", at + ": choices[0]");
  if (!lp) return lp.err();
  auto content = field(**lp, "content", at + ": choices[0].logprobs");
  if (!content) return content.err();
  server_completion c;
  if (auto ok = read_llama_probs(**content, at + ": choices[0].logprobs.content", vocab,
                                 c.tokens, c.logprobs);
      !ok)
    return ok.err();
  // The route names no token whose text ends inside a UTF-8 character, and has no id
  // list of its own: a completion with fewer named tokens than drawn is not whole.
  auto usage = field(j, "usage", at);
  if (!usage) return usage.err();
  auto drawn = field(**usage, "completion_tokens", at + ": usage");
  if (!drawn) return drawn.err();
  if (!(*drawn)->is_number_integer())
    return error{at + ": usage.completion_tokens is not an integer"};
  if ((*drawn)->get<int64_t>() != int64_t(c.tokens.size()))
    return error{std::string(incomplete_reply) + at + ": " + (*drawn)->dump() +
                 " tokens drawn, " + std::to_string(c.tokens.size()) +
                 " named in logprobs.content (a token ending inside a UTF-8 character "
                 "is left out on this route; server.dialect llama names every token)"};
  c.ended = ends(d, c.tokens) || ch.value("finish_reason", "") == "stop";
  if (j.contains("model") && j["model"].is_string())
    c.weight_version = j["model"].get<std::string>();
  return c;
}

result<server_completion> read_sglang(const json& j, const server_draw& d,
                                      int32_t vocab) {
  server_completion c;
  auto meta = field(j, "meta_info", "SGLang reply");
  if (!meta) return meta.err();
  auto lps = field(**meta, "output_token_logprobs", "SGLang reply: meta_info");
  if (!lps) return lps.err();
  if (!(*lps)->is_array())
    return error{"SGLang reply: meta_info.output_token_logprobs is not an array"};
  size_t i = 0;
  for (const auto& e : **lps) {
    const std::string at =
        "SGLang reply: meta_info.output_token_logprobs[" + std::to_string(i++) + "]";
    if (!e.is_array() || e.size() < 2)
      return error{at + ": expected [logprob, token_id, text]"};
    auto lp = logprob(e[0], at + "[0]");
    if (!lp) return lp.err();
    auto t = token_id(e[1], at + "[1]", vocab);
    if (!t) return t.err();
    c.tokens.push_back(*t);
    c.logprobs.push_back(*lp);
  }
  if (j.contains("output_ids") && j["output_ids"].is_array()) {
    const auto& ids = j["output_ids"];
    if (ids.size() != c.tokens.size())
      return error{"SGLang reply: " + std::to_string(ids.size()) + " output_ids for " +
                   std::to_string(c.tokens.size()) + " output_token_logprobs"};
    for (size_t k = 0; k < ids.size(); ++k)
      if (!ids[k].is_number_integer() || ids[k].get<int64_t>() != c.tokens[k])
        return error{"SGLang reply: output_ids[" + std::to_string(k) +
                     "] differs from output_token_logprobs[" + std::to_string(k) + "]"};
  }
  c.ended = ends(d, c.tokens);
  if ((*meta)->contains("finish_reason") && (**meta)["finish_reason"].is_object()) {
    const auto& f = (**meta)["finish_reason"];
    if (f.value("type", "") == "abort")
      return error{"SGLang reply: the request was aborted (finish_reason " + f.dump() +
                   ")"};
  }
  if ((*meta)->contains("weight_version") && (**meta)["weight_version"].is_string())
    c.weight_version = (**meta)["weight_version"].get<std::string>();
  return c;
}

result<server_completion> read_vllm(const json& j, const server_draw& d, int32_t vocab) {
  server_completion c;
  auto choices = field(j, "choices", "vLLM reply");
  if (!choices) return choices.err();
  if (!(*choices)->is_array() || (*choices)->size() != 1)
    return error{"vLLM reply: expected one choice"};
  const json& ch = (**choices)[0];
  auto ids = field(ch, "token_ids", "vLLM reply: choices[0]");
  if (!ids) return ids.err();
  auto lp = field(ch, "logprobs", "vLLM reply: choices[0]");
  if (!lp) return lp.err();
  auto tlp = field(**lp, "token_logprobs", "vLLM reply: choices[0].logprobs");
  if (!tlp) return tlp.err();
  if (!(*ids)->is_array() || !(*tlp)->is_array() || (*ids)->size() != (*tlp)->size())
    return error{
        "vLLM reply: choices[0].token_ids and logprobs.token_logprobs differ in length"};
  for (size_t k = 0; k < (*ids)->size(); ++k) {
    auto t = token_id(
        (**ids)[k], "vLLM reply: choices[0].token_ids[" + std::to_string(k) + "]", vocab);
    if (!t) return t.err();
    auto p = logprob((**tlp)[k], "vLLM reply: choices[0].logprobs.token_logprobs[" +
                                     std::to_string(k) + "]");
    if (!p) return p.err();
    c.tokens.push_back(*t);
    c.logprobs.push_back(*p);
  }
  c.ended = ends(d, c.tokens);
  if (ch.contains("finish_reason") && ch["finish_reason"] == "abort")
    return error{"vLLM reply: the request was aborted"};
  return c;
}

}  // namespace

size_t missing_logprob_count(const server_completion& c) {
  return size_t(std::count_if(c.logprobs.begin(), c.logprobs.end(),
                              [](float x) { return std::isnan(x); }));
}

bool is_llama_server(server_dialect d) {
  return d == server_dialect::llama || d == server_dialect::llama_openai;
}

result<server_dialect> parse_server_dialect(std::string_view name) {
  for (size_t i = 0; i < std::size(dialect_names); ++i)
    if (dialect_names[i] == name) return server_dialect(i);
  return error{"unknown server dialect \"" + std::string(name) +
               "\" (llama, sglang, vllm or llama-openai)"};
}

result<bool> check_sampling(server_dialect d, std::string_view body,
                            const server_draw& draw, bool greedy) {
  if (d != server_dialect::llama) return true;
  const json j = json::parse(body, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("generation_settings") ||
      !j["generation_settings"].is_object())
    return error{
        "llama-server reply: no generation_settings, so the sampling it used "
        "cannot be checked"};
  const json& g = j["generation_settings"];
  const auto changed = [](const std::string& key, const json& said, const json& asked) {
    return error{"llama-server sampled with generation_settings." + key + " " +
                 said.dump() + ", asked " + asked.dump() +
                 ": it changed or ignored a setting that plain sampling needs"};
  };
  const auto number = [&](const char* key, double asked, double tolerance,
                          bool required) -> result<bool> {
    if (!g.contains(key)) {
      if (!required) return true;
      return error{"llama-server reply: generation_settings has no " + std::string(key)};
    }
    if (!g[key].is_number() || std::abs(g[key].get<double>() - asked) > tolerance)
      return changed(key, g[key], asked);
    return true;
  };
  if (!g.contains("samplers") || g["samplers"] != llama_samplers(draw))
    return changed("samplers", g.value("samplers", json()), llama_samplers(draw));
  const double temperature = greedy ? 0.0 : double(draw.sampling.temperature);
  for (auto ok : {number("temperature", temperature, 1e-5, true),
                  number("top_p", draw.sampling.top_p, 1e-6, draw.sampling.top_p < 1.f),
                  number("mirostat", 0, 0, true), number("dynatemp_range", 0, 0, false)})
    if (!ok) return ok.err();
  if (g.value("post_sampling_probs", false) != llama_post_sampling(draw, greedy))
    return changed("post_sampling_probs", g.value("post_sampling_probs", json()),
                   llama_post_sampling(draw, greedy));
  if (g.contains("logit_bias") && !g["logit_bias"].empty())
    return changed("logit_bias", g["logit_bias"], json::array());
  if (g.contains("grammar") && g["grammar"] != "")
    return changed("grammar", g["grammar"], "");
  if (g.value("ignore_eos", false)) return changed("ignore_eos", true, false);
  return true;
}

std::string_view server_dialect_name(server_dialect d) {
  return dialect_names[size_t(d)];
}

server_request generate_request(server_dialect d, const server_draw& draw,
                                const std::vector<int32_t>& prompt, uint64_t seed,
                                bool greedy) {
  switch (d) {
    case server_dialect::llama:
      return {"/completion", llama_body(draw, prompt, seed, greedy).dump()};
    case server_dialect::sglang:
      return {"/generate", sglang_body(draw, prompt, seed, greedy).dump()};
    case server_dialect::vllm:
      return {"/v1/completions", vllm_body(draw, prompt, seed, greedy).dump()};
    case server_dialect::llama_openai:
      return {"/v1/completions", llama_openai_body(draw, prompt, seed, greedy).dump()};
  }
  return {};
}

result<server_completion> read_completion(server_dialect d, std::string_view body,
                                          const server_draw& draw, int32_t vocab) {
  json j = json::parse(body, nullptr, false);
  if (j.is_discarded())
    return error{std::string(server_dialect_name(d)) + " reply: not JSON (" +
                 std::to_string(body.size()) +
                 " bytes: " + std::string(body.substr(0, 80)) + ")"};
  result<server_completion> c = error{""};
  switch (d) {
    case server_dialect::llama:
      c = read_llama(j, draw, vocab);
      break;
    case server_dialect::sglang:
      c = read_sglang(j, draw, vocab);
      break;
    case server_dialect::vllm:
      c = read_vllm(j, draw, vocab);
      break;
    case server_dialect::llama_openai:
      c = read_llama_openai(j, draw, vocab);
      break;
  }
  if (!c) return c.err();
  if (c->tokens.size() > size_t(std::max(0, draw.sampling.max_new_tokens)))
    return error{std::string(server_dialect_name(d)) + " reply: " +
                 std::to_string(c->tokens.size()) + " tokens, more than the " +
                 std::to_string(draw.sampling.max_new_tokens) + " asked for"};
  return c;
}

std::optional<server_request> load_weights_request(server_dialect d,
                                                   const std::string& dir,
                                                   const std::string& version) {
  switch (d) {
    case server_dialect::sglang:
      return server_request{"/update_weights_from_disk",
                            json{{"model_path", dir},
                                 {"weight_version", version},
                                 {"abort_all_requests", false}}
                                .dump()};
    case server_dialect::vllm:
      // Development mode (VLLM_SERVER_DEV_MODE=1): the workers' reload_weights, from the
      // version's directory (recent vLLM takes weights_path; an older one reloads the
      // directory it was started on).
      return server_request{
          "/collective_rpc",
          json{{"method", "reload_weights"}, {"kwargs", {{"weights_path", dir}}}}.dump()};
    case server_dialect::llama:
    case server_dialect::llama_openai:
      return std::nullopt;
  }
  return std::nullopt;
}

std::optional<server_request> pause_request(server_dialect d) {
  if (d != server_dialect::vllm) return std::nullopt;
  // `mode` in current vLLM; `wait_for_inflight_requests` in the releases before it (a
  // query parameter a release does not know is ignored).
  return server_request{
      "/pause?mode=wait&wait_for_inflight_requests=true&clear_cache=true", "{}"};
}

std::optional<server_request> resume_request(server_dialect d) {
  if (d != server_dialect::vllm) return std::nullopt;
  return server_request{"/resume", "{}"};
}

result<bool> read_load_reply(server_dialect d, std::string_view body) {
  json j = json::parse(body, nullptr, false);
  if (d == server_dialect::sglang) {
    if (j.is_discarded() || !j.is_object() || !j.contains("success"))
      return error{"SGLang /update_weights_from_disk: unexpected reply " +
                   std::string(body.substr(0, 200))};
    if (j["success"] != true)
      return error{"SGLang /update_weights_from_disk failed: " +
                   j.value("message", std::string{})};
  }
  return true;
}

std::vector<server_request> version_requests(server_dialect d) {
  // SGLang moved its version from /get_weight_version to /get_model_info and then
  // /model_info; each answers {"weight_version": ...}.
  if (d == server_dialect::sglang)
    return {{"/model_info", std::nullopt},
            {"/get_model_info", std::nullopt},
            {"/get_weight_version", std::nullopt}};
  if (is_llama_server(d)) return {{"/props", std::nullopt}};
  return {};
}

result<std::string> read_version_reply(server_dialect d, std::string_view body) {
  json j = json::parse(body, nullptr, false);
  const char* key = d == server_dialect::sglang ? "weight_version" : "model_alias";
  if (j.is_discarded() || !j.is_object() || !j.contains(key) || !j[key].is_string())
    return error{std::string(server_dialect_name(d)) + " version reply: no \"" + key +
                 "\" string in " + std::string(body.substr(0, 200))};
  return j[key].get<std::string>();
}

server_request health_request(server_dialect d) {
  (void)d;  // every dialect answers GET /health
  return {"/health", std::nullopt};
}

result<server_address> parse_server_url(std::string_view url) {
  constexpr std::string_view scheme = "http://";
  const error bad{"expected http://HOST:PORT, got \"" + std::string(url) + "\""};
  if (url.substr(0, scheme.size()) != scheme) return bad;
  std::string_view rest = url.substr(scheme.size());
  if (!rest.empty() && rest.back() == '/') rest.remove_suffix(1);
  const auto colon = rest.rfind(':');
  if (colon == std::string_view::npos || colon == 0 ||
      rest.find('/') != std::string_view::npos || colon + 1 == rest.size())
    return bad;
  int port = 0;
  for (char ch : rest.substr(colon + 1)) {
    if (ch < '0' || ch > '9' || port > 65535) return bad;
    port = port * 10 + (ch - '0');
  }
  if (port <= 0 || port > 65535) return bad;
  return server_address{std::string(rest.substr(0, colon)), port};
}

result<std::vector<std::string>> launch_arguments(std::string_view launch,
                                                  const std::string& model,
                                                  const std::string& version, int port) {
  std::vector<std::string> args;
  std::istringstream words{std::string(launch)};
  for (std::string w; words >> w;) {
    std::string out;
    for (size_t i = 0; i < w.size();) {
      if (w[i] != '{') {
        out += w[i++];
        continue;
      }
      const auto close = w.find('}', i);
      if (close == std::string::npos)
        return error{"server.launch: an unclosed { in \"" + w + "\""};
      const std::string key = w.substr(i + 1, close - i - 1);
      if (key == "model")
        out += model;
      else if (key == "version")
        out += version;
      else if (key == "port")
        out += std::to_string(port);
      else
        return error{"server.launch: unknown placeholder {" + key +
                     "} (known: {model}, {version}, {port})"};
      i = close + 1;
    }
    // ~/ at the start of a word is the home directory (a config names the prefix of
    // scripts/llama_server.sh without knowing whose home it is).
    if (out.rfind("~/", 0) == 0)
      if (const char* home = std::getenv("HOME"); home && *home)
        out = home + out.substr(1);
    args.push_back(std::move(out));
  }
  if (args.empty()) return error{"server.launch: expected a command, got \"\""};
  return args;
}

std::string weight_version_name(uint64_t version) {
  return "adarl-v" + std::to_string(version);
}

std::optional<uint64_t> weight_version_number(std::string_view name) {
  constexpr std::string_view prefix = "adarl-v";
  if (name.substr(0, prefix.size()) != prefix || name.size() == prefix.size())
    return std::nullopt;
  uint64_t v = 0;
  for (char ch : name.substr(prefix.size())) {
    if (ch < '0' || ch > '9' || v > (std::numeric_limits<uint64_t>::max() - 9) / 10)
      return std::nullopt;
    v = v * 10 + uint64_t(ch - '0');
  }
  return v;
}

}  // namespace adarl
