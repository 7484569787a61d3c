#pragma once
// The wire format between the coordinator and its remote workers, verifiers and
// generators alike (docs/design.md "Beyond one machine"; docs/reference/protocol.md is the reference,
// with every message, field and error reply). Language-neutral: a message is one ZeroMQ
// frame holding a MessagePack map with a "type" key and the protocol version "v" (a
// ROUTER socket adds the worker's identity frame in front); weights chunks add one raw
// binary frame. CAF-free and torch-free; scripts/remote_verifier.py is a verifier in
// Python written from the description alone.
//
// A worker says hello with its role ("verify" or "generate"); the coordinator answers a
// hello of another protocol version, or a role this endpoint does not serve, with
// "refused" and a reason, and the worker stops saying why.
// verify: worker hello {credit, name} / heartbeat / result {session, batch, rewards,
//   reasons} / bye; coordinator verify {session, batch, items} / heartbeat {interval}.
// generate: worker hello {name, capacity} / credit {session, n} / results {session,
//   credit, completions} / chunk_ok / chunk_bad / weights_ok / weights_bad / error / heartbeat /
//   bye; coordinator setup {session, engine, heartbeat} / weights {session, version,
//   chunk, chunks, offset, bytes, hash, chunk_hash} + data frame / weights_path {session,
//   version, path, bytes, hash} / orders {session, orders, prompts} / heartbeat.
// The session is a random number per run (verify) or per worker connection (generate):
// a late answer for another run's or connection's work is recognised and dropped.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/content_hash.hpp"
#include "base/result.hpp"
#include "messages/messages.hpp"
#include "pipelines/curve_keys.hpp"
#include "tasks/task_item.hpp"
#include "tasks/verifier.hpp"

namespace adarl {

inline constexpr uint32_t remote_protocol_version = 2;

/// Hashes of policy bytes (docs/reference/protocol.md "Role `generate`"). content_hash
/// (base/content_hash.hpp): XXH3-128 of the bytes as 32 lowercase hex digits, a weights
/// file's `hash`. chunk_hashes: XXH3-64 of
/// each `chunk_bytes`-long piece (one chunk for no bytes). chunk_list_hash: XXH3-128 of
/// the chunk hashes (8 bytes each, little-endian) in hex, a pushed version's `hash`: it
/// ties the checked chunks to one version without a second pass over the bytes.
std::vector<uint64_t> chunk_hashes(std::string_view bytes, uint32_t chunk_bytes);
std::string chunk_list_hash(const std::vector<uint64_t>& hashes);

/// One completion to score: its task and the completion's text.
struct remote_item {
  task_item item;
  std::string completion;
};

/// Prompt tokens sent with orders (once per prompt and worker connection).
struct remote_prompt {
  uint64_t id = 0;
  std::vector<int32_t> tokens;
};

/// A decoded message; which fields are set depends on `type`.
struct remote_message {
  std::string type;                  ///< hello, heartbeat, result, bye, verify, refused,
                                     ///< setup, weights, weights_path, weights_ok,
                                     ///< weights_bad, chunk_bad, orders, results, credit,
                                     ///< error.
  uint64_t session = 0;              ///< result, verify and every generate message but
                                     ///< hello, heartbeat and bye.
  uint64_t batch = 0;                ///< result, verify.
  uint32_t credit = 0;               ///< hello (verify), results, credit (generate: n).
  std::string name;                  ///< hello.
  std::string role = "verify";       ///< hello: verify or generate.
  uint32_t capacity = 0;             ///< hello (generate): rows it decodes together.
  std::string reason;                ///< refused, error, weights_bad, chunk_bad.
  std::string engine;                ///< setup: the engine spec (engines/engine_spec.hpp).
  uint64_t version = 0;              ///< weights*, chunk_bad: the policy version.
  uint32_t chunk = 0;                ///< weights, chunk_bad: index of the chunk.
  uint32_t chunks = 0;               ///< weights: chunks of the version.
  uint64_t bytes = 0;                ///< weights, weights_path: the version's size.
  uint64_t offset = 0;               ///< weights: where this chunk starts in the whole.
  std::string hash;                  ///< weights, weights_path: hex XXH3-128 of the whole.
  uint64_t chunk_hash = 0;           ///< weights: XXH3-64 of this chunk's data frame.
  std::string path;                  ///< weights_path: the file's name in the shared dir.
  std::vector<work_order> orders;    ///< orders.
  std::vector<remote_prompt> prompts;  ///< orders: tokens of prompts not sent before.
  std::vector<completion> completions;  ///< results (reward and reason unset).
  double interval = 0;               ///< heartbeat from the coordinator (0: not said).
  std::vector<verdict> verdicts;     ///< result.
  std::string problem;               ///< result: why its verdicts are unusable ("" = fine);
                                     ///< the batch is still named, so it can be re-scored.
  std::vector<remote_item> items;    ///< verify.
};

std::string encode_hello(uint32_t credit, const std::string& name);
std::string encode_generate_hello(const std::string& name, uint32_t capacity);
std::string encode_refused(const std::string& reason);
std::string encode_error(const std::string& reason);
std::string encode_setup(uint64_t session, const std::string& engine, double heartbeat);
/// The header frame of one weights chunk; the chunk's bytes follow in a frame of their own.
std::string encode_weights(uint64_t session, uint64_t version, uint32_t chunk, uint32_t chunks,
                           uint64_t offset, uint64_t bytes, const std::string& hash,
                           uint64_t chunk_hash);
std::string encode_weights_path(uint64_t session, uint64_t version, const std::string& path,
                                uint64_t bytes, const std::string& hash);
std::string encode_weights_ok(uint64_t session, uint64_t version);
std::string encode_weights_bad(uint64_t session, uint64_t version, const std::string& reason);
std::string encode_chunk_bad(uint64_t session, uint64_t version, uint32_t chunk,
                             const std::string& reason);
std::string encode_chunk_ok(uint64_t session, uint64_t version, uint32_t chunk);
std::string encode_orders(uint64_t session, const std::vector<work_order>& orders,
                          const std::vector<remote_prompt>& prompts);
std::string encode_results(uint64_t session, const std::vector<completion>& completions,
                           uint32_t credit);
std::string encode_credit(uint64_t session, uint32_t n);
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
