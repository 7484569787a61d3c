#include "runtime/listen_check.hpp"

#include <list>
#include <string>
#include <utility>

#include <zmq.hpp>

namespace adarl {

result<bool> check_listen_endpoints(const pipeline_config& c) {
  const std::pair<const char*, const std::string*> binds[] = {
      {"actors.remote_verifiers.bind", &c.actors.remote_verifiers.bind},
      {"actors.remote_generators.bind", &c.actors.remote_generators.bind}};
  zmq::context_t ctx;
  std::list<zmq::socket_t> held;  // every bind stays until all are tried
  for (const auto& [key, endpoint] : binds) {
    if (endpoint->empty()) continue;
    try {
      auto& s = held.emplace_back(ctx, zmq::socket_type::router);
      s.set(zmq::sockopt::linger, 0);
      s.bind(*endpoint);
    } catch (const zmq::error_t& e) {
      return error{std::string(key) + ": cannot listen on \"" + *endpoint + "\": " + e.what()};
    }
  }
  return true;
}

}  // namespace adarl
