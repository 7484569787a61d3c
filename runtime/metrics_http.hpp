#pragma once
// The metrics endpoint of `adarl run` (metrics.listen): an HTTP service on threads of
// its own (runtime/bounded_http_server: a bounded pool, a total deadline per connection)
// that serves the run's figures in the Prometheus text format at GET /metrics
// (runtime/metrics_text.hpp). It watches the run as a run_observer: the metrics sink
// and the pipeline's supervisor hand it each step line, evaluation and tracker status,
// and a scrape reads a copy of the latest figures, so a slow scraper never holds up the
// run, other scrapers, or the run's exit.

#include <memory>
#include <string>

#include "actors/run_observer.hpp"
#include "base/result.hpp"
#include "runtime/bounded_http_server.hpp"
#include "runtime/listen_address.hpp"
#include "runtime/metrics_text.hpp"

namespace adarl {

class metrics_server;

/// The endpoint of one run. Thread-safe: the observer calls come from the run's threads,
/// the requests are answered on the service's (`limits.threads` at once; a scrape
/// renders a few kB).
class metrics_endpoint final : public run_observer {
 public:
  /// Binds `listen` now, so that a bad or busy address is an error before the run (it
  /// says which address and why), then serves `initial` until the first figures come.
  static result<std::shared_ptr<metrics_endpoint>> start(const std::string& listen,
                                                         run_figures initial,
                                                         http_limits limits = {});
  ~metrics_endpoint() override;  ///< Stops (see stop()).

  /// http://HOST:PORT/metrics, the port as bound.
  const std::string& url() const { return url_; }
  /// Stops serving, drops every connection still open and joins the service's threads
  /// (idempotent). Never waits on a client (bounded_http_server::stop()).
  void stop();
  /// A copy of the latest figures.
  run_figures figures() const;

  void on_step(const nlohmann::json& line) override;
  void on_eval(const eval_report& report) override;
  void on_tracker(const tracker_status& status) override;

 private:
  metrics_endpoint() = default;
  std::unique_ptr<metrics_server> server_;
  std::string url_;
};

}  // namespace adarl
