#include "runtime/metrics_http.hpp"

#include <sys/socket.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <mutex>
#include <thread>

#include <httplib.h>

namespace adarl {

/// The HTTP server, its thread and the figures it serves.
class metrics_server {
 public:
  mutable std::mutex mutex;
  run_figures figures;  ///< Guarded by `mutex`.
  httplib::Server http;
  std::thread thread;
  std::atomic<bool> ended{false};  ///< listen_after_bind returned.
};

result<std::shared_ptr<metrics_endpoint>> metrics_endpoint::start(const std::string& listen,
                                                                  run_figures initial) {
  auto a = parse_listen_address(listen);
  if (!a) return a.err();
  std::shared_ptr<metrics_endpoint> e(new metrics_endpoint());
  e->server_ = std::make_unique<metrics_server>();
  metrics_server& s = *e->server_;
  s.figures = std::move(initial);
  // One thread answers: a scrape is a few kB, and a second scraper may wait.
  s.http.new_task_queue = [] { return new httplib::ThreadPool(1); };
  s.http.set_keep_alive_timeout(1);  // bounds how long stop() waits for an idle client
  // SO_REUSEADDR only: cpp-httplib's default adds SO_REUSEPORT, which would let a second
  // run share (and split) a port another one listens on instead of failing.
  s.http.set_socket_options([](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  s.http.Get("/metrics", [&s](const httplib::Request&, httplib::Response& res) {
    run_figures f;
    {
      std::lock_guard lock(s.mutex);
      f = s.figures;
    }
    res.set_content(exposition_text(f), "text/plain; version=0.0.4; charset=utf-8");
  });
  s.http.Get("/", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("adarl: the run's figures are at /metrics\n", "text/plain; charset=utf-8");
  });
  errno = 0;
  int port = a->port;
  bool bound = false;
  if (port == 0) {
    port = s.http.bind_to_any_port(a->host);
    bound = port > 0;
  } else {
    bound = s.http.bind_to_port(a->host, port);
  }
  if (!bound) {
    const int err = errno;
    return error{"cannot listen on " + listen + " (" +
                 (err ? std::string(std::strerror(err)) : std::string("not an address of this machine")) +
                 ")"};
  }
  const bool v6 = a->host.find(':') != std::string::npos;
  e->url_ = "http://" + (v6 ? "[" + a->host + "]" : a->host) + ":" + std::to_string(port) +
            "/metrics";
  s.thread = std::thread([&s] {
    s.http.listen_after_bind();
    s.ended = true;
  });
  // stop() is lost on a server not yet running: wait until it is (a few microseconds).
  while (!s.http.is_running() && !s.ended)
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  return e;
}

metrics_endpoint::~metrics_endpoint() { stop(); }

void metrics_endpoint::stop() {
  if (!server_ || !server_->thread.joinable()) return;
  server_->http.stop();
  server_->thread.join();
}

run_figures metrics_endpoint::figures() const {
  std::lock_guard lock(server_->mutex);
  return server_->figures;
}

void metrics_endpoint::on_step(const nlohmann::json& line) {
  std::lock_guard lock(server_->mutex);
  add_step_line(server_->figures, line);
}

void metrics_endpoint::on_eval(const eval_report& report) {
  std::lock_guard lock(server_->mutex);
  add_eval(server_->figures, report);
}

void metrics_endpoint::on_tracker(const tracker_status& status) {
  std::lock_guard lock(server_->mutex);
  add_tracker(server_->figures, status);
}

}  // namespace adarl
