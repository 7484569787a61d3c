#pragma once
// The wire format between the coordinator and remote verifier workers (DESIGN.md
// "Beyond one machine"), language-neutral: every message is one ZeroMQ frame holding a
// MessagePack map with a "type" key and protocol version "v" (a ROUTER socket adds the
// worker's identity frame in front). CAF-free and torch-free; scripts/remote_verifier.py
// is a worker in Python written from this description alone.
//
// worker -> coordinator:
//   {"v":1, "type":"hello", "credit":N, "name":S}  N batches at once; a restart says
//                                                   hello again, under the same name
//   {"v":1, "type":"heartbeat"}                     keeps the worker alive
//   {"v":1, "type":"result", "session":S, "batch":B, "rewards":[r...], "reasons":[s...]}
//                                                   one reward in [0, 1] and one reason
//                                                   ("" when rewarded) per item, in
//                                                   order; session and batch as received
//   {"v":1, "type":"bye"}                           leaving: its batches go elsewhere
// coordinator -> worker:
//   {"v":1, "type":"verify", "session":S, "batch":B, "items":[{"id","task","verifier",
//    "prompt","answer","tests","difficulty","completion"}...]}
//   {"v":1, "type":"heartbeat", "interval":T}       T: seconds between its heartbeats;
//                                                   silent for several, it is gone
// The session is a random number per run: batch ids restart with every run, so a late
// answer scored for a previous run is recognised by its session and dropped.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "algorithms/result.hpp"
#include "tasks/task_item.hpp"
#include "tasks/verifier.hpp"

namespace adarl {

inline constexpr uint32_t remote_protocol_version = 1;

/// One completion to score: its task and the completion's text.
struct remote_item {
  task_item item;
  std::string completion;
};

/// A decoded message; which fields are set depends on `type`.
struct remote_message {
  std::string type;                  ///< hello, heartbeat, result, bye, verify.
  uint64_t session = 0;              ///< result, verify.
  uint64_t batch = 0;                ///< result, verify.
  uint32_t credit = 0;               ///< hello.
  std::string name;                  ///< hello.
  double interval = 0;               ///< heartbeat from the coordinator (0: not said).
  std::vector<verdict> verdicts;     ///< result.
  std::string problem;               ///< result: why its verdicts are unusable ("" = fine);
                                     ///< the batch is still named, so it can be re-scored.
  std::vector<remote_item> items;    ///< verify.
};

std::string encode_hello(uint32_t credit, const std::string& name);
std::string encode_heartbeat(double interval = 0);
std::string encode_bye();
std::string encode_result(uint64_t session, uint64_t batch, const std::vector<verdict>& verdicts);
std::string encode_verify(uint64_t session, uint64_t batch, const std::vector<remote_item>& items);

/// Decodes and checks one message. An error names what is wrong ("not MessagePack",
/// "protocol version 2, expected 1", "hello: \"credit\" is not an unsigned integer
/// below 2^32", "MessagePack nested deeper than 16 levels"). A result whose session
/// and batch read but whose verdicts do not is no error: it comes back with `problem`
/// set ("rewards[3] is not a number in [0, 1]").
result<remote_message> decode_remote(std::string_view bytes);

}  // namespace adarl

namespace adarl {

/// A CURVE key pair in Z85 text (40 characters each): the run's (server) keys encrypt
/// the link; a worker's public key can be required to be on the run's list.
struct curve_keys {
  std::string public_key;
  std::string secret_key;
};

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
