#include "runtime/listen_address.hpp"

namespace adarl {

result<listen_address> parse_listen_address(const std::string& text) {
  const auto bad = [&] {
    return error{"expected \"\" (off) or HOST:PORT with a port from 0 (any free one) to 65535, "
                 "e.g. 127.0.0.1:9464, got \"" + text + "\""};
  };
  const auto colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == text.size()) return bad();
  listen_address a;
  a.host = text.substr(0, colon);
  if (a.host.front() == '[') {
    if (a.host.size() < 3 || a.host.back() != ']') return bad();
    a.host = a.host.substr(1, a.host.size() - 2);
  } else if (a.host.find(':') != std::string::npos) {
    return bad();  // an IPv6 address needs its brackets
  }
  const std::string port = text.substr(colon + 1);
  if (port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos) return bad();
  a.port = std::stoi(port);
  if (a.port > 65535) return bad();
  return a;
}

}  // namespace adarl
