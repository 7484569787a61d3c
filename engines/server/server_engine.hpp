#pragma once
// A generation engine (engines/engine.hpp) that draws completions on an inference
// server over HTTP (docs/guides/engines.md "Generating on an inference server"): each
// admitted row is one request, many in flight, each finished as its reply arrives, so a
// generator actor keeps adarl's per-prompt flow without round barriers. Every reply is
// checked (server_dialect.hpp) and every policy version is published to the server
// before rows are drawn with it:
// - a reply the server says came from a version older than the one the row was sent
//   under, or from a version adarl never published, is counted as stale and drawn again;
// - a reply that is not a completion (not JSON, ids outside the vocabulary, log-probs
//   missing or > 0) is counted as garbage and drawn again;
// - a server that is down, slow (server.timeout) or restarting is retried with a growing
//   pause; rows wait, nothing is lost or drawn twice, and the run's stall watchdog ends a
//   run whose server never returns.
// The generators of a run share one server_link: it publishes each version once and
// holds the counts. Torch-free and CAF-free.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "base/result.hpp"
#include "engines/engine.hpp"
#include "engines/server/server_dialect.hpp"

namespace adarl {

/// An HTTP exchange with the server.
struct http_reply {
  int status = 0;
  std::string body;
};

/// Sends requests to one server. Thread-safe: the engine's workers share it.
class server_transport {
 public:
  virtual ~server_transport() = default;
  /// The reply, or an error when no reply came (refused, reset, timed out, cancelled).
  /// `owner` tags the request for cancel().
  virtual result<http_reply> send(const server_request& request, double timeout_seconds,
                                  const void* owner = nullptr) = 0;
  /// Ends the requests of `owner` in flight now (their send() returns an error soon).
  virtual void cancel(const void* owner) { (void)owner; }
};

/// Plain HTTP to `url` ("http://HOST:PORT", cpp-httplib); a URL of another form is an
/// error.
result<std::unique_ptr<server_transport>> make_http_transport(const std::string& url);

/// `server:` of a run's config.
struct server_config {
  server_dialect dialect = server_dialect::sglang;
  std::string url = "http://127.0.0.1:30000";
  double timeout = 120;    ///< Seconds a request may take before it is sent again.
  double retry_pause = 5;  ///< Longest pause between tries of an unreachable server.
  uint32_t capacity = 64;  ///< Requests in flight per generator.
  int32_t vocab = 0;       ///< Ids at or above it are garbage (0 = unchecked).
  server_draw draw;        ///< Sampling, end ids, model name.
};

/// What a link counted, since it was made.
struct server_counts {
  uint64_t requests = 0;     ///< Requests sent (tries included).
  uint64_t completions = 0;  ///< Completions accepted.
  uint64_t unreachable = 0;  ///< Tries that got no reply or an HTTP error.
  uint64_t garbage = 0;      ///< Replies that were not a completion.
  uint64_t incomplete = 0;  ///< Completions the server named only in part (llama-openai).
  uint64_t stale = 0;       ///< Completions of a version older than asked, or unknown.
  uint64_t published = 0;   ///< Versions loaded onto the server.
  uint64_t missing_logprobs = 0;  ///< Tokens accepted without the server's log-prob.
  std::string last_problem;       ///< The latest unreachable, garbage or stale reason.
};

/// Writes policy version `weights` where the server can load it; returns that place (a
/// Hugging Face directory). Called once per version, under the link's lock.
using weight_publisher = std::function<result<std::string>(const weights_ptr& weights)>;

class server_process;

/// What the generators of one run share: the transport, the version loaded on the
/// server, and the counts. Thread-safe.
class server_link {
 public:
  server_link(server_config config, std::unique_ptr<server_transport> transport,
              weight_publisher publish);
  ~server_link();
  /// A server that adarl starts itself (engines/server/server_process.hpp), listening on
  /// `port`: a new version is a restart with the file the publisher wrote. start() runs
  /// it with the base policy's file `model` as version 0 and checks the version it
  /// reports.
  void own_process(std::unique_ptr<server_process> process, int port);
  result<bool> start(const std::string& model);
  const server_config& config() const { return config_; }
  server_transport& transport() { return *transport_; }
  /// Makes `weights` the server's policy, once per version: the publisher writes it, the
  /// dialect's load route loads it (or the owned process restarts with it), and the
  /// version route must then name it. Version 0
  /// (the base the server was started with) is not published. An older version than
  /// the loaded one changes nothing. Errors name the route and the server's answer.
  result<bool> load(const weights_ptr& weights);
  /// The newest version the server was told to load.
  uint64_t version() const { return version_.load(); }
  /// Whether a reply's weight_version may be used for a row sent under `sent`: it must
  /// name a version adarl published, not older than `sent` (the base before anything
  /// was published). A dialect that names none is trusted (its rows carry `sent`).
  bool fresh(const std::optional<std::string>& reported, uint64_t sent) const;
  /// Counts one event; a problem (an unreachable, garbled or stale reply) is told to the
  /// warning hook: the first, then at most one every 10 s, with the counts so far.
  void count(uint64_t server_counts::*field, const std::string& problem = "");
  void add(uint64_t server_counts::*field, uint64_t n);
  /// Where warnings go (the run's log); unset = nowhere. Set before rows are admitted.
  void on_warning(std::function<void(const std::string&)> warn) {
    warn_ = std::move(warn);
  }
  server_counts counts() const;

 private:
  /// After a load: the first version route the server answers must name `name`.
  result<bool> check_version(const std::string& name, const std::string& from);
  server_config config_;
  std::unique_ptr<server_transport> transport_;
  weight_publisher publish_;
  std::unique_ptr<server_process> process_;
  int port_ = 0;
  std::mutex load_mutex_;
  std::atomic<uint64_t> version_{0};
  mutable std::mutex counts_mutex_;
  server_counts counts_;
  std::function<void(const std::string&)> warn_;
  std::chrono::steady_clock::time_point last_warning_{};
  bool warned_ = false;
  bool warned_no_pause_ = false;  ///< Under load_mutex_.
};
using server_link_ptr = std::shared_ptr<server_link>;

/// Before a run: the server at `config.url` answers GET /health (a server that says it
/// is still loading, HTTP 503, is waited for up to `wait` seconds; one that does not
/// answer is an error at once), speaks `config.dialect` (a one-token completion is drawn
/// and read back) and samples as asked (check_sampling()). Errors name the URL, the
/// route and what the server answered.
result<bool> probe_server(const server_config& config, server_transport& transport,
                          double wait);

/// A generator's engine on `link`'s server: capacity() = link config's capacity, each
/// row one request with the row's random stream as its seed.
std::unique_ptr<generation_engine> make_server_generator(server_link_ptr link);

}  // namespace adarl
