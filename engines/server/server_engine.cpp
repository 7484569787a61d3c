#include "engines/server/server_engine.hpp"

#include <httplib.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <thread>
#include <vector>

#include "engines/server/server_process.hpp"

namespace adarl {

namespace {

/// cpp-httplib, one client per request (loopback connections are cheap, and a client
/// per request needs no pool); clients in flight are kept by owner so that cancel() can
/// shut their sockets.
class http_transport final : public server_transport {
 public:
  http_transport(std::string host, int port) : host_(std::move(host)), port_(port) {}

  result<http_reply> send(const server_request& request, double timeout,
                          const void* owner) override {
    httplib::Client client(host_, port_);
    const auto usec = std::chrono::microseconds(int64_t(std::max(0.001, timeout) * 1e6));
    client.set_connection_timeout(
        std::min<std::chrono::microseconds>(usec, std::chrono::seconds(5)));
    client.set_read_timeout(usec);
    client.set_write_timeout(usec);
    {
      std::lock_guard lock(mutex_);
      clients_.emplace(owner, &client);
    }
    auto res = request.body ? client.Post(request.path, *request.body, "application/json")
                            : client.Get(request.path);
    {
      std::lock_guard lock(mutex_);
      auto [b, e] = clients_.equal_range(owner);
      for (auto it = b; it != e; ++it)
        if (it->second == &client) {
          clients_.erase(it);
          break;
        }
    }
    if (!res)
      return error{
          "no reply from " + host_ + ":" + std::to_string(port_) + request.path + " (" +
          (res.error() == httplib::Error::Connection ? std::string("could not connect")
                                                     : httplib::to_string(res.error())) +
          ")"};
    return http_reply{res->status, res->body};
  }

  void cancel(const void* owner) override {
    std::lock_guard lock(mutex_);
    auto [b, e] = clients_.equal_range(owner);
    for (auto it = b; it != e; ++it) it->second->stop();
  }

 private:
  std::string host_;
  int port_;
  std::mutex mutex_;
  std::multimap<const void*, httplib::Client*> clients_;
};

using clock_type = std::chrono::steady_clock;

/// Why an exchange with the server failed ("" for a 200 reply): no reply, or the status
/// with the start of the body.
std::string failed_exchange(const std::string& path, const result<http_reply>& r) {
  if (!r) return path + ": " + r.err().message;
  if (r->status == 200) return "";
  return path + ": HTTP " + std::to_string(r->status) + ": " + r->body.substr(0, 200);
}

/// What the engine's owner and its request workers share.
struct shared_rows {
  std::mutex mutex;
  std::condition_variable work;  ///< A row to send, or stop.
  std::condition_variable done;  ///< A row finished.
  std::deque<std::pair<generation_job, uint64_t>>
      todo;  ///< Job, version it was sent under.
  std::vector<generation_result> finished;
  std::atomic<bool> stopping{false};
  std::atomic<uint32_t> sending{0};  ///< Workers inside a request.
};

class server_engine final : public generation_engine {
 public:
  explicit server_engine(server_link_ptr link)
      : link_(std::move(link)), rows_(std::make_shared<shared_rows>()) {
    version_ = link_->version();
  }

  ~server_engine() override {
    {
      std::lock_guard lock(rows_->mutex);
      rows_->stopping = true;
    }
    rows_->work.notify_all();
    // A worker may enter a request just after a cancel: cancel until none is inside one.
    while (rows_->sending.load() > 0) {
      link_->transport().cancel(rows_.get());
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    for (auto& t : workers_) t.join();
  }

  uint32_t capacity() const override { return link_->config().capacity; }
  uint32_t active() const override { return active_; }

  void admit(generation_job job) override {
    ++active_;
    // Workers start as rows need them, up to capacity.
    if (workers_.size() < active_ && workers_.size() < capacity())
      workers_.emplace_back([link = link_, rows = rows_] { serve(*link, *rows); });
    {
      std::lock_guard lock(rows_->mutex);
      rows_->todo.emplace_back(std::move(job), version_);
    }
    rows_->work.notify_one();
  }

  void step(std::vector<generation_result>& out) override {
    // Waits a little for a reply: the owner calls step() again while rows are active.
    std::unique_lock lock(rows_->mutex);
    rows_->done.wait_for(lock, std::chrono::milliseconds(20),
                         [&] { return !rows_->finished.empty(); });
    for (auto& r : rows_->finished) out.push_back(std::move(r));
    active_ -= uint32_t(std::min<size_t>(active_, rows_->finished.size()));
    rows_->finished.clear();
  }

  result<bool> load(const weights_ptr& weights) override {
    if (!weights) return error{"no weights"};
    auto ok = link_->load(weights);
    if (!ok) return ok.err();
    version_ = weights->version;
    return true;
  }

  uint64_t version() const override { return version_; }

 private:
  /// A worker: sends rows until the engine stops; each row until the server gives a
  /// completion adarl may train on.
  static void serve(server_link& link, shared_rows& rows) {
    const auto& c = link.config();
    for (;;) {
      std::pair<generation_job, uint64_t> row;
      {
        std::unique_lock lock(rows.mutex);
        rows.work.wait(lock, [&] { return rows.stopping || !rows.todo.empty(); });
        if (rows.stopping) return;
        row = std::move(rows.todo.front());
        rows.todo.pop_front();
      }
      const auto& [job, sent] = row;
      uint64_t seed = job.stream;
      auto request = generate_request(c.dialect, c.draw, job.prompt, seed, job.greedy);
      double pause = 0.05;
      for (;;) {
        link.count(&server_counts::requests);
        ++rows.sending;
        auto reply = rows.stopping ? result<http_reply>(error{"stopping"})
                                   : link.transport().send(request, c.timeout, &rows);
        --rows.sending;
        if (const std::string problem = failed_exchange(request.path, reply);
            !problem.empty()) {
          link.count(&server_counts::unreachable, problem);
        } else if (auto got = read_completion(c.dialect, reply->body, c.draw, c.vocab);
                   !got) {
          const bool part = is_incomplete_reply(got.err());
          link.count(part ? &server_counts::incomplete : &server_counts::garbage,
                     got.err().message);
          if (part) {
            // Drawn again at once with another seed: the same one would draw the same
            // partly named completion. Those completions are thereby never trained on
            // (a bias the warning and docs/guides/engines.md name).
            seed += 0x9e3779b97f4a7c15ull;
            request = generate_request(c.dialect, c.draw, job.prompt, seed, job.greedy);
            pause = 0;
          }
        } else if (!link.fresh(got->weight_version, sent)) {
          link.count(&server_counts::stale, "a completion of weight version \"" +
                                                got->weight_version.value_or("?") +
                                                "\", sent under adarl-v" +
                                                std::to_string(sent));
          pause = 0;  // drawn again at once
        } else {
          link.count(&server_counts::completions);
          if (const size_t missing = missing_logprob_count(*got))
            link.add(&server_counts::missing_logprobs, missing);
          generation_result r;
          r.ticket = job.ticket;
          r.tokens = std::move(got->tokens);
          r.logprobs = std::move(got->logprobs);
          r.ended = got->ended;
          r.version = sent;  // the oldest version any of its tokens can have used
          {
            std::lock_guard lock(rows.mutex);
            rows.finished.push_back(std::move(r));
          }
          rows.done.notify_one();
          break;
        }
        std::unique_lock lock(rows.mutex);
        if (rows.work.wait_for(lock, std::chrono::duration<double>(pause),
                               [&] { return rows.stopping.load(); }))
          return;
        pause = std::min(c.retry_pause, std::max(0.05, pause * 2));
      }
    }
  }

  server_link_ptr link_;
  std::shared_ptr<shared_rows> rows_;
  std::vector<std::thread> workers_;
  uint32_t active_ = 0;
  uint64_t version_ = 0;
};

}  // namespace

result<std::unique_ptr<server_transport>> make_http_transport(const std::string& url) {
  auto a = parse_server_url(url);
  if (!a) return error{"server.url: " + a.err().message};
  return std::unique_ptr<server_transport>(new http_transport(a->host, a->port));
}

server_link::server_link(server_config config,
                         std::unique_ptr<server_transport> transport,
                         weight_publisher publish)
    : config_(std::move(config)),
      transport_(std::move(transport)),
      publish_(std::move(publish)) {}

server_link::~server_link() = default;

void server_link::own_process(std::unique_ptr<server_process> process, int port) {
  process_ = std::move(process);
  port_ = port;
}

result<bool> server_link::start(const std::string& model) {
  std::lock_guard lock(load_mutex_);
  if (!process_) return true;
  const std::string name = weight_version_name(0);
  if (auto ok = process_->restart(*transport_, model, name, port_); !ok) return ok.err();
  return check_version(name, model);
}

result<bool> server_link::check_version(const std::string& name,
                                        const std::string& from) {
  // The first version route the server answers (SGLang has moved it between releases).
  std::string tried;
  for (const auto& check : version_requests(config_.dialect)) {
    auto r = transport_->send(check, config_.timeout);
    if (const std::string problem = failed_exchange(check.path, r); !problem.empty()) {
      tried += (tried.empty() ? "" : "; ") + problem;
      continue;
    }
    auto said = read_version_reply(config_.dialect, r->body);
    if (!said) return said.err();
    if (*said != name)
      return error{check.path + ": the server says it holds \"" + *said +
                   "\" after loading " + name + " from " + from};
    return true;
  }
  if (!tried.empty())
    return error{"no version route answered after loading " + name + ": " + tried};
  return true;  // a dialect without one (vLLM)
}

result<bool> server_link::load(const weights_ptr& weights) {
  std::lock_guard lock(load_mutex_);
  const uint64_t v = weights->version;
  if (v == 0 || v <= version_.load()) return true;  // the base, or loaded already
  const std::string name = weight_version_name(v);
  const std::string d(server_dialect_name(config_.dialect));
  auto route = load_weights_request(config_.dialect, "", name);
  if (!route && !process_)
    return error{
        "server.dialect " + d +
        ": this server loads its model only when it starts: set server.launch so "
        "that adarl starts it and restarts it with each version; without it the "
        "server can draw the base policy only"};
  if (!publish_) return error{"server.dialect " + d + ": no place to publish weights to"};
  auto dir = publish_(weights);
  if (!dir) return error{"publishing " + name + " for the server: " + dir.err().message};
  if (route) {
    route = load_weights_request(config_.dialect, *dir, name);
    // Generation paused around the load where the server has the routes; a release
    // without them (HTTP 404) loads between requests as before, said once.
    bool paused = false;
    if (const auto pause = pause_request(config_.dialect)) {
      auto r = transport_->send(*pause, std::max(config_.timeout, 600.0));
      if (r && r->status == 404) {
        if (!warned_no_pause_ && warn_)
          warn_("server " + config_.url + ": no " +
                pause->path.substr(0, pause->path.find('?')) +
                " route (HTTP 404): versions are loaded without pausing generation; "
                "rows in flight are checked by the log-prob gap");
        warned_no_pause_ = true;
      } else if (const std::string problem = failed_exchange(pause->path, r);
                 !problem.empty()) {
        return error{problem};
      } else {
        paused = true;
      }
    }
    // A load takes as long as the server needs to read the weights: no request timeout.
    auto reply = transport_->send(*route, std::max(config_.timeout, 600.0));
    if (const std::string problem = failed_exchange(route->path, reply); !problem.empty())
      return error{problem};
    if (auto ok = read_load_reply(config_.dialect, reply->body); !ok) return ok.err();
    if (paused) {
      const auto resume = *resume_request(config_.dialect);
      auto r = transport_->send(resume, config_.timeout);
      if (const std::string problem = failed_exchange(resume.path, r); !problem.empty())
        return error{problem + " (after loading " + name + "; generation stays paused)"};
    }
  } else if (auto ok = process_->restart(*transport_, *dir, name, port_); !ok) {
    return ok.err();
  }
  if (auto ok = check_version(name, *dir); !ok) return ok.err();
  version_ = v;
  count(&server_counts::published);
  return true;
}

bool server_link::fresh(const std::optional<std::string>& reported, uint64_t sent) const {
  if (!reported) return true;
  const auto n = weight_version_number(*reported);
  if (!n)
    return version_.load() == 0 && sent == 0;  // the base, before anything was published
  return *n >= sent && *n <= version_.load();
}

void server_link::count(uint64_t server_counts::*field, const std::string& problem) {
  std::string line;
  {
    std::lock_guard lock(counts_mutex_);
    ++(counts_.*field);
    if (problem.empty()) return;
    counts_.last_problem = problem;
    const auto now = std::chrono::steady_clock::now();
    if (!warn_ || (warned_ && now - last_warning_ < std::chrono::seconds(10))) return;
    warned_ = true;
    last_warning_ = now;
    line = "server " + config_.url + ": " + problem +
           " (so far: " + std::to_string(counts_.requests) + " requests, " +
           std::to_string(counts_.completions) + " completions, " +
           std::to_string(counts_.unreachable) + " unreachable, " +
           std::to_string(counts_.garbage) + " garbled, " +
           (counts_.incomplete ? std::to_string(counts_.incomplete) +
                                     " incomplete (drawn again with another seed: "
                                     "server.dialect llama has none), "
                               : "") +
           std::to_string(counts_.stale) + " stale; every one is drawn again)";
  }
  warn_(line);
}

void server_link::add(uint64_t server_counts::*field, uint64_t n) {
  std::lock_guard lock(counts_mutex_);
  counts_.*field += n;
}

server_counts server_link::counts() const {
  std::lock_guard lock(counts_mutex_);
  return counts_;
}

result<bool> probe_server(const server_config& config, server_transport& transport,
                          double wait) {
  const std::string at = "server " + config.url + ": ";
  const std::string dialect(server_dialect_name(config.dialect));
  const auto health = health_request(config.dialect);
  const auto end = clock_type::now() + std::chrono::duration<double>(wait);
  for (;;) {
    auto r = transport.send(health, std::min(config.timeout, 10.0));
    if (!r)
      return error{at + r.err().message +
                   ": start it first, or set server.launch so that adarl starts it"};
    if (r->status == 200) break;
    if (r->status != 503 || clock_type::now() >= end)
      return error{at + failed_exchange(health.path, r) +
                   (r->status == 503
                        ? " (still loading after " + std::to_string(int(wait)) + " s)"
                        : "")};
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  // One token from a one-token prompt, drawn as the run draws.
  server_draw draw = config.draw;
  draw.sampling.max_new_tokens = 1;
  const auto request = generate_request(config.dialect, draw, {0}, 1, false);
  auto r = transport.send(request, config.timeout);
  if (const std::string problem = failed_exchange(request.path, r); !problem.empty())
    return error{at + problem + " (is it a server of server.dialect " + dialect + "?)"};
  if (auto got = read_completion(config.dialect, r->body, draw, config.vocab);
      !got && !is_incomplete_reply(got.err()))
    return error{at + "its reply to " + request.path + " is not a " + dialect +
                 " completion: " + got.err().message};
  if (auto ok = check_sampling(config.dialect, r->body, draw, false); !ok)
    return error{at + ok.err().message + "; adarl refuses to train on it"};
  return true;
}

std::unique_ptr<generation_engine> make_server_generator(server_link_ptr link) {
  return std::make_unique<server_engine>(std::move(link));
}

}  // namespace adarl
