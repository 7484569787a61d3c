#pragma once
// A CURVE key pair as configs carry it (the functions that make, read and write key
// files are net/remote_wire.hpp's).

#include <string>

namespace adarl {

/// A CURVE key pair in Z85 text (40 characters each): the run's (server) keys encrypt
/// the link; a worker's public key can be required to be on the run's list.
struct curve_keys {
  std::string public_key;
  std::string secret_key;
};

}  // namespace adarl
