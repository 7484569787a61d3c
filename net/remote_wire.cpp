#include "net/remote_wire.hpp"

#include <fcntl.h>
#include <unistd.h>
#include <zmq.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include <algorithm>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>
#include <type_traits>

#include <nlohmann/json.hpp>
#include <xxhash.h>

namespace adarl {

namespace {

using json = nlohmann::json;

std::string pack(json j) {
  j["v"] = remote_protocol_version;
  const auto bytes = json::to_msgpack(j);
  return std::string(bytes.begin(), bytes.end());
}

json type_only(const char* type) { return json{{"type", type}}; }

/// Deepest nesting of a frame; the deepest message (verify: map, items, item) has 3.
constexpr std::size_t max_frame_depth = 16;

/// nlohmann's DOM builder with a nesting limit: its MessagePack reader recurses once per
/// level, so a frame of nested one-element arrays (0x91 0x91 ...) overflowed the stack.
/// Returning false stops the reader at once.
class bounded_dom {
 public:
  explicit bounded_dom(json& out) : dom_(out, /*allow_exceptions=*/false) {}
  bool too_deep() const { return too_deep_; }

  bool null() { return dom_.null(); }
  bool boolean(bool v) { return dom_.boolean(v); }
  bool number_integer(json::number_integer_t v) { return dom_.number_integer(v); }
  bool number_unsigned(json::number_unsigned_t v) { return dom_.number_unsigned(v); }
  bool number_float(json::number_float_t v, const json::string_t& s) {
    return dom_.number_float(v, s);
  }
  bool string(json::string_t& v) { return dom_.string(v); }
  bool binary(json::binary_t& v) { return dom_.binary(v); }
  bool key(json::string_t& v) { return dom_.key(v); }
  bool start_object(std::size_t n) { return enter() && dom_.start_object(n); }
  bool end_object() {
    --depth_;
    return dom_.end_object();
  }
  bool start_array(std::size_t n) { return enter() && dom_.start_array(n); }
  bool end_array() {
    --depth_;
    return dom_.end_array();
  }
  template <class Exception>
  bool parse_error(std::size_t at, const std::string& token, const Exception& e) {
    return dom_.parse_error(at, token, e);
  }

 private:
  bool enter() {
    too_deep_ = ++depth_ > max_frame_depth;
    return !too_deep_;
  }

  nlohmann::detail::json_sax_dom_parser<json> dom_;
  std::size_t depth_ = 0;
  bool too_deep_ = false;
};

/// Reads a required field of the expected kind; the error names the message type and key.
/// Unsigned integers must fit T.
template <class T>
std::optional<error> field(const json& j, const std::string& type, const char* key, T& out) {
  auto it = j.find(key);
  if (it == j.end()) return error{type + ": missing \"" + key + "\""};
  if constexpr (std::is_unsigned_v<T>) {
    if (!it->is_number_unsigned() ||
        it->template get<uint64_t>() > uint64_t(std::numeric_limits<T>::max()))
      return error{type + ": \"" + key + "\" is not an unsigned integer below 2^" +
                   std::to_string(8 * sizeof(T))};
    out = T(it->template get<uint64_t>());
    return std::nullopt;
  }
  try {
    out = it->template get<T>();
  } catch (const json::exception&) {
    return error{type + ": \"" + key + "\" has the wrong type"};
  }
  return std::nullopt;
}

std::optional<error> read_items(const json& j, std::vector<remote_item>& items) {
  auto it = j.find("items");
  if (it == j.end() || !it->is_array()) return error{"verify: \"items\" is not an array"};
  for (size_t i = 0; i < it->size(); ++i) {
    const json& x = (*it)[i];
    const std::string at = "verify: items[" + std::to_string(i) + "]";
    if (!x.is_object()) return error{at + " is not a map"};
    remote_item r;
    std::pair<const char*, std::string*> text[] = {
        {"id", &r.item.id},           {"task", &r.item.task},     {"verifier", &r.item.verifier},
        {"prompt", &r.item.prompt},   {"answer", &r.item.answer}, {"tests", &r.item.tests},
        {"system", &r.item.system},   {"completion", &r.completion}};
    for (auto& [key, out] : text) {
      auto f = x.find(key);
      if (f == x.end()) continue;  // absent: empty
      if (!f->is_string()) return error{at + "." + key + " is not a string"};
      *out = f->get<std::string>();
    }
    if (auto d = x.find("difficulty"); d != x.end()) {
      if (!d->is_number_unsigned()) return error{at + ".difficulty is not an unsigned integer"};
      r.item.difficulty = d->get<uint32_t>();
    }
    items.push_back(std::move(r));
  }
  return std::nullopt;
}

std::optional<error> read_verdicts(const json& j, std::vector<verdict>& out) {
  auto r = j.find("rewards");
  auto s = j.find("reasons");
  if (r == j.end() || !r->is_array()) return error{"\"rewards\" is not an array"};
  if (s == j.end() || !s->is_array()) return error{"\"reasons\" is not an array"};
  if (r->size() != s->size())
    return error{std::to_string(r->size()) + " rewards but " + std::to_string(s->size()) +
                 " reasons"};
  for (size_t i = 0; i < r->size(); ++i) {
    const json& x = (*r)[i];
    const double v = x.is_number() ? x.get<double>() : -1.0;
    if (!(v >= 0.0 && v <= 1.0))  // also NaN
      return error{"rewards[" + std::to_string(i) + "] is not a number in [0, 1]"};
    if (!(*s)[i].is_string())
      return error{"reasons[" + std::to_string(i) + "] is not a string"};
    out.push_back({float(v), (*s)[i].get<std::string>()});
  }
  return std::nullopt;
}

/// 4-byte little-endian elements as MessagePack binary (exact floats, compact ids).
template <class T>
json::binary_t to_bin(const std::vector<T>& v) {
  static_assert(sizeof(T) == 4);
  std::vector<uint8_t> bytes(v.size() * 4);
  if (!v.empty()) std::memcpy(bytes.data(), v.data(), bytes.size());
  return json::binary_t(std::move(bytes));
}

template <class T>
std::optional<error> from_bin(const json& x, const std::string& what, std::vector<T>& out) {
  if (!x.is_binary() || x.get_binary().size() % 4 != 0)
    return error{what + " is not binary of 4-byte elements"};
  const auto& b = x.get_binary();
  out.resize(b.size() / 4);
  if (!b.empty()) std::memcpy(out.data(), b.data(), b.size());
  return std::nullopt;
}

json order_array(const work_order& o) {
  return json::array({o.step, o.slot, o.index, o.prompt_id, o.stream, o.eval_round, o.greedy,
                      o.min_version});
}

/// Reads the 8 leading fields of an order array (orders, and the start of a completion).
std::optional<error> read_order(const json& x, const std::string& at, work_order& o) {
  if (!x.is_array() || x.size() < 8) return error{at + " is not an array of at least 8"};
  auto u64 = [&](size_t i, uint64_t& out) -> bool {
    if (!x[i].is_number_unsigned()) return false;
    out = x[i].get<uint64_t>();
    return true;
  };
  uint64_t slot = 0, index = 0, round = 0;
  if (!u64(0, o.step) || !u64(1, slot) || !u64(2, index) || !u64(3, o.prompt_id) ||
      !u64(4, o.stream) || !u64(5, round) || !x[6].is_boolean() || !u64(7, o.min_version) ||
      slot > UINT32_MAX || index > UINT32_MAX || round > UINT32_MAX)
    return error{at + " has a field of the wrong type"};
  o.slot = uint32_t(slot);
  o.index = uint32_t(index);
  o.eval_round = uint32_t(round);
  o.greedy = x[6].get<bool>();
  return std::nullopt;
}

std::optional<error> read_orders(const json& j, remote_message& m) {
  auto it = j.find("orders");
  if (it == j.end() || !it->is_array()) return error{"orders: \"orders\" is not an array"};
  for (size_t i = 0; i < it->size(); ++i) {
    work_order o;
    if (auto e = read_order((*it)[i], "orders: orders[" + std::to_string(i) + "]", o)) return e;
    m.orders.push_back(o);
  }
  auto p = j.find("prompts");
  if (p == j.end()) return std::nullopt;
  if (!p->is_array()) return error{"orders: \"prompts\" is not an array"};
  for (size_t i = 0; i < p->size(); ++i) {
    const json& x = (*p)[i];
    const std::string at = "orders: prompts[" + std::to_string(i) + "]";
    if (!x.is_array() || x.size() != 2 || !x[0].is_number_unsigned())
      return error{at + " is not [id, tokens]"};
    remote_prompt r;
    r.id = x[0].get<uint64_t>();
    if (auto e = from_bin(x[1], at + " tokens", r.tokens)) return e;
    m.prompts.push_back(std::move(r));
  }
  return std::nullopt;
}

std::optional<error> read_completions(const json& j, remote_message& m) {
  auto it = j.find("completions");
  if (it == j.end() || !it->is_array()) return error{"results: \"completions\" is not an array"};
  for (size_t i = 0; i < it->size(); ++i) {
    const json& x = (*it)[i];
    const std::string at = "results: completions[" + std::to_string(i) + "]";
    completion c;
    if (auto e = read_order(x, at, c.order)) return e;
    if (x.size() != 12 || !x[10].is_boolean() || !x[11].is_number_unsigned())
      return error{at + " is not [order fields..., tokens, logprobs, ended, version]"};
    if (auto e = from_bin(x[8], at + " tokens", c.tokens)) return e;
    if (auto e = from_bin(x[9], at + " logprobs", c.logprobs)) return e;
    if (c.logprobs.size() != c.tokens.size())
      return error{at + ": " + std::to_string(c.tokens.size()) + " tokens but " +
                   std::to_string(c.logprobs.size()) + " log-probs"};
    c.ended = x[10].get<bool>();
    c.version = x[11].get<uint64_t>();
    m.completions.push_back(std::move(c));
  }
  return std::nullopt;
}

}  // namespace

std::vector<uint64_t> chunk_hashes(std::string_view bytes, uint32_t chunk_bytes) {
  const size_t step = std::max<uint32_t>(1, chunk_bytes);
  std::vector<uint64_t> out;
  out.reserve(bytes.size() / step + 1);
  size_t at = 0;
  do {
    const size_t len = std::min(step, bytes.size() - at);
    out.push_back(XXH3_64bits(bytes.data() + at, len));
    at += len;
  } while (at < bytes.size());
  return out;
}

std::string chunk_list_hash(const std::vector<uint64_t>& hashes) {
  std::string le(hashes.size() * 8, '\0');
  for (size_t i = 0; i < hashes.size(); ++i)
    for (int b = 0; b < 8; ++b) le[i * 8 + b] = char((hashes[i] >> (8 * b)) & 0xff);
  return content_hash(le);
}


std::string encode_hello(uint32_t credit, const std::string& name) {
  return pack({{"type", "hello"}, {"role", "verify"}, {"credit", credit}, {"name", name}});
}

std::string encode_generate_hello(const std::string& name, uint32_t capacity) {
  return pack({{"type", "hello"}, {"role", "generate"}, {"name", name}, {"capacity", capacity}});
}

std::string encode_refused(const std::string& reason) {
  return pack({{"type", "refused"}, {"reason", reason}});
}

std::string encode_error(const std::string& reason) {
  return pack({{"type", "error"}, {"reason", reason}});
}

std::string encode_setup(uint64_t session, const std::string& engine, double heartbeat) {
  return pack({{"type", "setup"}, {"session", session}, {"engine", engine}, {"heartbeat", heartbeat}});
}

std::string encode_weights(uint64_t session, uint64_t version, uint32_t chunk, uint32_t chunks,
                           uint64_t offset, uint64_t bytes, const std::string& hash,
                           uint64_t chunk_hash) {
  return pack({{"type", "weights"}, {"session", session}, {"version", version},
               {"chunk", chunk}, {"chunks", chunks}, {"offset", offset}, {"bytes", bytes},
               {"hash", hash}, {"chunk_hash", chunk_hash}});
}

std::string encode_weights_path(uint64_t session, uint64_t version, const std::string& path,
                                uint64_t bytes, const std::string& hash) {
  return pack({{"type", "weights_path"}, {"session", session}, {"version", version},
               {"path", path}, {"bytes", bytes}, {"hash", hash}});
}

std::string encode_weights_ok(uint64_t session, uint64_t version) {
  return pack({{"type", "weights_ok"}, {"session", session}, {"version", version}});
}

std::string encode_weights_bad(uint64_t session, uint64_t version, const std::string& reason) {
  return pack({{"type", "weights_bad"}, {"session", session}, {"version", version}, {"reason", reason}});
}

std::string encode_chunk_bad(uint64_t session, uint64_t version, uint32_t chunk,
                             const std::string& reason) {
  return pack({{"type", "chunk_bad"}, {"session", session}, {"version", version},
               {"chunk", chunk}, {"reason", reason}});
}

std::string encode_chunk_ok(uint64_t session, uint64_t version, uint32_t chunk) {
  return pack({{"type", "chunk_ok"}, {"session", session}, {"version", version}, {"chunk", chunk}});
}

std::string encode_orders(uint64_t session, const std::vector<work_order>& orders,
                          const std::vector<remote_prompt>& prompts) {
  json list = json::array(), known = json::array();
  for (const auto& o : orders) list.push_back(order_array(o));
  for (const auto& p : prompts) known.push_back(json::array({p.id, to_bin(p.tokens)}));
  return pack({{"type", "orders"}, {"session", session}, {"orders", std::move(list)},
               {"prompts", std::move(known)}});
}

std::string encode_results(uint64_t session, const std::vector<completion>& completions,
                           uint32_t credit) {
  json list = json::array();
  for (const auto& c : completions) {
    json x = order_array(c.order);
    x.push_back(to_bin(c.tokens));
    x.push_back(to_bin(c.logprobs));
    x.push_back(c.ended);
    x.push_back(c.version);
    list.push_back(std::move(x));
  }
  return pack({{"type", "results"}, {"session", session}, {"credit", credit},
               {"completions", std::move(list)}});
}

std::string encode_credit(uint64_t session, uint32_t n) {
  return pack({{"type", "credit"}, {"session", session}, {"credit", n}});
}

std::string encode_heartbeat(double interval) {
  json j = type_only("heartbeat");
  if (interval > 0) j["interval"] = interval;
  return pack(std::move(j));
}

std::string encode_bye() { return pack(type_only("bye")); }

std::string encode_result(uint64_t session, uint64_t batch, const std::vector<verdict>& verdicts) {
  json rewards = json::array(), reasons = json::array();
  for (const auto& v : verdicts) {
    rewards.push_back(v.reward);
    reasons.push_back(v.reason);
  }
  return pack({{"type", "result"},
               {"session", session},
               {"batch", batch},
               {"rewards", rewards},
               {"reasons", reasons}});
}

std::string encode_verify(uint64_t session, uint64_t batch, const std::vector<remote_item>& items) {
  json list = json::array();
  for (const auto& r : items)
    list.push_back({{"id", r.item.id},
                    {"task", r.item.task},
                    {"verifier", r.item.verifier},
                    {"prompt", r.item.prompt},
                    {"system", r.item.system},
                    {"answer", r.item.answer},
                    {"tests", r.item.tests},
                    {"difficulty", r.item.difficulty},
                    {"completion", r.completion}});
  return pack({{"type", "verify"}, {"session", session}, {"batch", batch}, {"items", std::move(list)}});
}

namespace {

/// The fields of a "hello": the role, with its credit (verify) or capacity (generate),
/// and the worker's name.
std::optional<error> read_hello(const json& j, remote_message& m) {
  if (auto it = j.find("role"); it != j.end())
    if (auto e = field(j, m.type, "role", m.role)) return *e;
  if (m.role != "verify" && m.role != "generate")
    return error{"hello: unknown role \"" + m.role + "\""};
  if (m.role == "verify") {
    if (auto e = field(j, m.type, "credit", m.credit)) return *e;
  } else if (auto e = field(j, m.type, "capacity", m.capacity)) {
    return *e;
  }
  if (auto e = field(j, m.type, "name", m.name)) return *e;
  return std::nullopt;
}

/// The fields of a weights chunk ("weights") or of a weights file ("weights_path").
std::optional<error> read_weights(const json& j, remote_message& m) {
  if (auto e = field(j, m.type, "version", m.version)) return *e;
  if (auto e = field(j, m.type, "bytes", m.bytes)) return *e;
  if (auto e = field(j, m.type, "hash", m.hash)) return *e;
  if (m.type == "weights_path") {
    if (auto e = field(j, m.type, "path", m.path)) return *e;
  } else {
    if (auto e = field(j, m.type, "chunk", m.chunk)) return *e;
    if (auto e = field(j, m.type, "chunks", m.chunks)) return *e;
    if (auto e = field(j, m.type, "chunk_hash", m.chunk_hash)) return *e;
    if (auto e = field(j, m.type, "offset", m.offset)) return *e;
    if (m.offset > m.bytes) return error{"weights: offset beyond the version's bytes"};
    if (m.chunk >= m.chunks) return error{"weights: chunk " + std::to_string(m.chunk) +
                                          " of " + std::to_string(m.chunks)};
  }
  return std::nullopt;
}

/// The fields of message type m.type (the header read), or an unknown type.
std::optional<error> read_body(const json& j, remote_message& m) {
  if (m.type == "hello") return read_hello(j, m);
  if (m.type == "refused" || m.type == "error") {
    if (auto e = field(j, m.type, "reason", m.reason)) return *e;
  } else if (m.type == "setup") {
    if (auto e = field(j, m.type, "engine", m.engine)) return *e;
    if (auto e = field(j, m.type, "heartbeat", m.interval)) return *e;
  } else if (m.type == "weights" || m.type == "weights_path") {
    return read_weights(j, m);
  } else if (m.type == "weights_ok" || m.type == "weights_bad" || m.type == "chunk_bad" ||
             m.type == "chunk_ok") {
    if (auto e = field(j, m.type, "version", m.version)) return *e;
    if (m.type == "weights_bad" || m.type == "chunk_bad")
      if (auto e = field(j, m.type, "reason", m.reason)) return *e;
    if (m.type == "chunk_bad" || m.type == "chunk_ok")
      if (auto e = field(j, m.type, "chunk", m.chunk)) return *e;
  } else if (m.type == "orders") {
    if (auto e = read_orders(j, m)) return *e;
  } else if (m.type == "results") {
    if (auto e = field(j, m.type, "credit", m.credit)) return *e;
    if (auto e = read_completions(j, m)) return *e;
  } else if (m.type == "credit") {
    if (auto e = field(j, m.type, "credit", m.credit)) return *e;
  } else if (m.type == "result") {
    if (auto e = field(j, m.type, "session", m.session)) return *e;
    if (auto e = field(j, m.type, "batch", m.batch)) return *e;
    if (auto e = read_verdicts(j, m.verdicts)) {
      m.verdicts.clear();
      m.problem = e->message;
    }
  } else if (m.type == "verify") {
    if (auto e = field(j, m.type, "session", m.session)) return *e;
    if (auto e = field(j, m.type, "batch", m.batch)) return *e;
    if (auto e = read_items(j, m.items)) return *e;
  } else if (m.type == "heartbeat") {
    if (auto it = j.find("interval"); it != j.end()) {
      if (!it->is_number() || !(it->get<double>() > 0))
        return error{"heartbeat: \"interval\" is not a positive number"};
      m.interval = it->get<double>();
    }
  } else if (m.type != "bye") {
    return error{"unknown message type \"" + m.type + "\""};
  }
  return std::nullopt;
}

}  // namespace

result<remote_message> decode_remote(std::string_view bytes) {
  // Completions are the policy's text: not always valid UTF-8. MessagePack strings carry
  // bytes; nlohmann checks UTF-8 only when dumping text, never when reading msgpack.
  json j;
  bounded_dom dom(j);
  if (!json::sax_parse(bytes.begin(), bytes.end(), &dom, json::input_format_t::msgpack,
                       /*strict=*/true)) {
    if (dom.too_deep())
      return error{"MessagePack nested deeper than " + std::to_string(max_frame_depth) +
                   " levels"};
    return error{"not MessagePack"};
  }
  if (!j.is_object()) return error{"not a MessagePack map"};
  uint32_t v = 0;
  if (auto e = field(j, "message", "v", v)) return *e;
  if (v != remote_protocol_version)
    return error{"protocol version " + std::to_string(v) + ", this side speaks " +
                 std::to_string(remote_protocol_version)};
  remote_message m;
  if (auto e = field(j, "message", "type", m.type)) return *e;
  // Generation messages (and verify results, below) carry a session.
  static const char* with_session[] = {"setup",     "weights",  "weights_path", "weights_ok",
                                       "weights_bad", "chunk_ok", "chunk_bad",    "orders",
                                       "results",   "credit"};
  for (const char* t : with_session)
    if (m.type == t)
      if (auto e = field(j, m.type, "session", m.session)) return *e;
  if (auto e = read_body(j, m)) return *e;
  return m;
}

}  // namespace adarl
