#pragma once
// metrics.listen's HOST:PORT, parsed without the HTTP server (runtime/metrics_http), so
// that the config reader (and its fuzz target) need not link it.

#include <string>

#include "base/result.hpp"

namespace adarl {

/// Where to listen: metrics.listen's HOST:PORT.
struct listen_address {
  std::string host;  ///< A name or an address; IPv6 without its brackets.
  int port = 0;      ///< 0 = any free port.
};

/// Parses "HOST:PORT" ("127.0.0.1:9464", "localhost:0", "[::1]:9464"). An error says
/// what was expected and quotes `text`. Pure.
result<listen_address> parse_listen_address(const std::string& text);

}  // namespace adarl
