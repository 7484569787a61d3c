#include "runtime/metrics_http.hpp"

#include <mutex>

#include <httplib.h>

namespace adarl {

/// The HTTP service and the figures it serves.
class metrics_server {
 public:
  mutable std::mutex mutex;
  run_figures figures;  ///< Guarded by `mutex`.
  std::unique_ptr<bounded_http_server> http;
};

result<std::shared_ptr<metrics_endpoint>> metrics_endpoint::start(const std::string& listen,
                                                                  run_figures initial,
                                                                  http_limits limits) {
  auto a = parse_listen_address(listen);
  if (!a) return a.err();
  auto http = bounded_http_server::bind(a->host, a->port, listen, limits);
  if (!http) return http.err();
  std::shared_ptr<metrics_endpoint> e(new metrics_endpoint());
  e->server_ = std::make_unique<metrics_server>();
  metrics_server& s = *e->server_;
  s.figures = std::move(initial);
  s.http = std::move(*http);
  s.http->routes().Get("/metrics", [&s](const httplib::Request&, httplib::Response& res) {
    run_figures f;
    {
      std::lock_guard lock(s.mutex);
      f = s.figures;
    }
    res.set_content(exposition_text(f), "text/plain; version=0.0.4; charset=utf-8");
  });
  s.http->routes().Get("/", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("adarl: the run's figures are at /metrics\n", "text/plain; charset=utf-8");
  });
  const bool v6 = a->host.find(':') != std::string::npos;
  e->url_ = "http://" + (v6 ? "[" + a->host + "]" : a->host) + ":" +
            std::to_string(s.http->port()) + "/metrics";
  s.http->serve();
  return e;
}

metrics_endpoint::~metrics_endpoint() { stop(); }

void metrics_endpoint::stop() {
  if (server_ && server_->http) server_->http->stop();
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
