#pragma once
// CURVE key files: making a key pair, writing and reading the run's key file and a list of
// allowed client keys. What a config reader needs of the cluster, without the wire.

#include <string>
#include <string_view>
#include <vector>

#include "base/result.hpp"
#include "pipelines/curve_keys.hpp"

namespace adarl {

/// A fresh key pair (libzmq's zmq_curve_keypair); an error when libzmq lacks CURVE.
result<curve_keys> make_curve_keys();
/// Writes "public KEY" and "secret KEY" lines to `path`, readable by its owner only.
result<bool> write_curve_keys(const curve_keys& keys, const std::string& path);
/// Reads a file written by write_curve_keys; errors name the file and line.
result<curve_keys> read_curve_keys(const std::string& path);
/// Public keys, one per line, bare or as "public KEY" (blank lines and '#' comments
/// skipped); a line that is not a key is an error naming the file and line, and so is a
/// secret key (a key file is not a client list).
result<std::vector<std::string>> read_public_keys(const std::string& path);
/// 40 characters of the Z85 alphabet.
bool is_z85_key(std::string_view text);

}  // namespace adarl
