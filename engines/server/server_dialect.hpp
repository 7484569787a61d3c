#pragma once
// What an inference server is told and what it answers, in each dialect adarl speaks
// (docs/guides/engines.md "Generating on an inference server"): the request that draws
// one completion from token ids, the reply read back as token ids with their log-probs,
// and the routes that load a policy version and say which one is loaded. Pure: JSON text
// in and out, no sockets (engines/server/server_engine.hpp sends them). Torch-free and
// CAF-free.
//
// Every dialect is asked for plain sampling at the run's temperature: top-k, top-p
// (unless the run sets one), min-p, typical-p and every penalty are set to their off
// values explicitly, because servers turn some of them on by default and the learner's
// importance ratio assumes the distribution softmax(logits / temperature).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.hpp"
#include "engines/train_config.hpp"

namespace adarl {

/// Which API a server speaks (`server.dialect`).
enum class server_dialect {
  llama,   ///< llama.cpp's llama-server: POST /completion (token-id prompt, n_probs).
  sglang,  ///< SGLang's native API: POST /generate with input_ids and return_logprob.
  vllm,    ///< vLLM's OpenAI-compatible POST /v1/completions with a token-id prompt.
  /// llama-server's OpenAI-compatible POST /v1/completions (logprobs.content names each
  /// token's id). It leaves out a token after which the text ends inside a UTF-8
  /// character, and gives no full id list: such a reply is refused (counted as
  /// incomplete) and drawn again, which shifts the sampled distribution away from those
  /// completions. `llama` (/completion) names every token and is the one to train with.
  llama_openai,
};

/// Whether `d` is llama-server's (either route): its model is loaded at start, its
/// version is the model alias.
bool is_llama_server(server_dialect d);

/// The dialect named `name` (llama, sglang, vllm, llama-openai); anything else is an
/// error listing them.
result<server_dialect> parse_server_dialect(std::string_view name);
std::string_view server_dialect_name(server_dialect d);

/// One HTTP request: POST when body is set, GET otherwise.
struct server_request {
  std::string path;
  std::optional<std::string> body;  ///< JSON text.
};

/// What every completion of a run is drawn with.
struct server_draw {
  sampling_params sampling;      ///< temperature, top_p, max_new_tokens.
  std::vector<int32_t> end_ids;  ///< Ids that end a completion (kept in it when drawn).
  std::string model;  ///< The model name an OpenAI-style route wants ("" = omit).
};

/// The request that draws one completion of `prompt` (token ids) with random stream
/// `seed`; `greedy` asks for argmax decoding (evaluation).
server_request generate_request(server_dialect d, const server_draw& draw,
                                const std::vector<int32_t>& prompt, uint64_t seed,
                                bool greedy);

/// A completion as a server returned it.
struct server_completion {
  std::vector<int32_t> tokens;  ///< Completion ids, an end id included when drawn.
  /// One per token, as the server computed it; NaN where it gave none (llama-server for
  /// a token that ends inside a UTF-8 character): the learner then takes its own.
  std::vector<float> logprobs;
  bool ended = false;  ///< Stopped by an end id (not by the length cap).
  /// The policy version the server says produced it (SGLang's meta_info.weight_version,
  /// llama-server's model alias); unset when the dialect does not say.
  std::optional<std::string> weight_version;
};

/// Reads a reply to generate_request(). A body that is not JSON, lacks the token ids or
/// the log-probs, has a log-prob count other than the token count, an id outside
/// [0, vocab) (vocab 0 = unchecked) or a log-prob that is not finite and <= 0 is an error
/// naming the field: a server that answers garbage is never trained on.
result<server_completion> read_completion(server_dialect d, std::string_view body,
                                          const server_draw& draw, int32_t vocab);

/// A reply that is a completion but not all of it: the server drew more tokens than it
/// named (llama-openai). Its error message starts with this.
inline constexpr std::string_view incomplete_reply = "incomplete reply: ";
/// Whether read_completion()'s error `e` is such a reply.
inline bool is_incomplete_reply(const error& e) {
  return e.message.rfind(incomplete_reply, 0) == 0;
}

/// Checks the sampling a server says it used (llama-server's generation_settings in a
/// /completion reply to generate_request(d, draw, ..., greedy)) against what was asked:
/// the sampler chain, the temperature, top-p, mirostat, dynamic temperature, logit
/// biases and grammars. An error names the first setting the server changed or ignored.
/// Dialects whose replies do not say (sglang, vllm, llama-openai) pass: the learner's
/// log-prob gap is their check.
result<bool> check_sampling(server_dialect d, std::string_view body,
                            const server_draw& draw, bool greedy);

/// Tokens of `c` whose log-prob the server did not give.
size_t missing_logprob_count(const server_completion& c);

/// The request that makes the server load the Hugging Face directory `dir` as policy
/// version `version`; nullopt for a dialect without such a route (llama-server loads its
/// model at start: a new version is a restart, engines/server/server_process.hpp).
std::optional<server_request> load_weights_request(server_dialect d,
                                                   const std::string& dir,
                                                   const std::string& version);

/// The requests that keep generation off the server while it changes weights, sent
/// before and after load_weights_request(): vLLM's development-mode POST /pause (mode
/// wait: requests in flight finish on the old weights, under the version they were sent
/// with; the caches are cleared) and POST /resume. Nullopt for the other dialects (SGLang
/// and a llama-server restart swap weights between requests themselves).
std::optional<server_request> pause_request(server_dialect d);
std::optional<server_request> resume_request(server_dialect d);

/// Checks the reply to load_weights_request(): an error with the server's message when
/// it says it failed.
result<bool> read_load_reply(server_dialect d, std::string_view body);

/// The requests that ask which policy version is loaded, to try in order until one is
/// answered (releases of a server differ); none where the dialect has no such route
/// (vLLM: the engine knows what it loaded).
std::vector<server_request> version_requests(server_dialect d);

/// The version in a reply to version_request().
result<std::string> read_version_reply(server_dialect d, std::string_view body);

/// The route that answers 200 once the server can generate.
server_request health_request(server_dialect d);

/// Host and port of a server URL "http://HOST:PORT" (a trailing / allowed); any other
/// form is an error quoting it.
struct server_address {
  std::string host;
  int port = 0;
};
result<server_address> parse_server_url(std::string_view url);

/// The command line of `launch` for one version: split on white space (no quoting), then
/// each placeholder replaced, and a word's leading ~/ made $HOME/. An empty command or an
/// unknown {placeholder} is an error naming server.launch.
result<std::vector<std::string>> launch_arguments(std::string_view launch,
                                                  const std::string& model,
                                                  const std::string& version, int port);

/// The name a policy version has on a server ("adarl-v12"), and back: nullopt for a
/// name adarl did not give (a server still on its base model says so).
std::string weight_version_name(uint64_t version);
std::optional<uint64_t> weight_version_number(std::string_view name);

}  // namespace adarl
