#include "actors/remote_wire.hpp"

#include <fcntl.h>
#include <unistd.h>
#include <zmq.h>

#include <cerrno>
#include <cstring>

#include <algorithm>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>
#include <type_traits>

#include <nlohmann/json.hpp>

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
        {"completion", &r.completion}};
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

}  // namespace

std::string encode_hello(uint32_t credit, const std::string& name) {
  return pack({{"type", "hello"}, {"credit", credit}, {"name", name}});
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
                    {"answer", r.item.answer},
                    {"tests", r.item.tests},
                    {"difficulty", r.item.difficulty},
                    {"completion", r.completion}});
  return pack({{"type", "verify"}, {"session", session}, {"batch", batch}, {"items", std::move(list)}});
}

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
    return error{"protocol version " + std::to_string(v) + ", expected " +
                 std::to_string(remote_protocol_version)};
  remote_message m;
  if (auto e = field(j, "message", "type", m.type)) return *e;
  if (m.type == "hello") {
    if (auto e = field(j, m.type, "credit", m.credit)) return *e;
    if (auto e = field(j, m.type, "name", m.name)) return *e;
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
  return m;
}

}  // namespace adarl

namespace adarl {

bool is_z85_key(std::string_view text) {
  static constexpr std::string_view alphabet =
      "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#";
  if (text.size() != 40 ||
      !std::all_of(text.begin(), text.end(),
                   [](char c) { return alphabet.find(c) != std::string_view::npos; }))
    return false;
  // Also what libzmq accepts: a group of five characters must stay below 2^32.
  const std::string z(text);
  uint8_t bin[32];
  return zmq_z85_decode(bin, z.c_str()) != nullptr;
}

result<curve_keys> make_curve_keys() {
  char pub[41] = {}, sec[41] = {};
  if (zmq_curve_keypair(pub, sec) != 0)
    return error{std::string("cannot make CURVE keys: ") + zmq_strerror(zmq_errno())};
  return curve_keys{pub, sec};
}

result<bool> write_curve_keys(const curve_keys& keys, const std::string& path) {
  // Created owner-only from the start (never readable by others, not even for a moment),
  // never through a planted link, then renamed over `path`.
  const std::string tmp = path + ".tmp";
  ::unlink(tmp.c_str());  // a leftover (or a link) goes; a file of another user stays
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return error{path + ": cannot write (" + std::strerror(errno) + ")"};
  const std::string text = "public " + keys.public_key + "\nsecret " + keys.secret_key + "\n";
  const bool written = ::write(fd, text.data(), text.size()) == ssize_t(text.size()) &&
                       ::fsync(fd) == 0;
  ::close(fd);
  if (!written || ::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    ::unlink(tmp.c_str());
    return error{path + ": cannot write (" + why + ")"};
  }
  return true;
}

namespace {

/// Calls f(line number, first word, second word) for each non-blank, non-comment line.
template <class F>
std::optional<error> each_key_line(const std::string& path, F f) {
  std::ifstream in(path);
  if (!in) return error{path + ": cannot read"};
  std::string line;
  for (size_t n = 1; std::getline(in, line); ++n) {
    std::istringstream words(line);
    std::string a, b, extra;
    words >> a >> b >> extra;
    if (a.empty() || a[0] == '#') continue;
    if (!extra.empty()) return error{path + ":" + std::to_string(n) + ": more than two words"};
    if (auto e = f(n, a, b)) return e;
  }
  return std::nullopt;
}

}  // namespace

result<curve_keys> read_curve_keys(const std::string& path) {
  curve_keys k;
  auto e = each_key_line(path, [&](size_t n, const std::string& kind,
                                   const std::string& key) -> std::optional<error> {
    const std::string at = path + ":" + std::to_string(n) + ": ";
    if (kind != "public" && kind != "secret")
      return error{at + "expected \"public KEY\" or \"secret KEY\""};
    if (!is_z85_key(key)) return error{at + "not a 40-character Z85 key"};
    std::string& slot = kind == "public" ? k.public_key : k.secret_key;
    if (!slot.empty()) return error{at + "a second \"" + kind + "\" line"};
    slot = key;
    return std::nullopt;
  });
  if (e) return *e;
  if (k.public_key.empty() || k.secret_key.empty())
    return error{path + ": needs a \"public KEY\" and a \"secret KEY\" line "
                        "(adarl worker keygen --out FILE writes one)"};
  char derived[41] = {};
  if (zmq_curve_public(derived, k.secret_key.c_str()) != 0 || k.public_key != derived)
    return error{path + ": the public key is not the secret key's"};
  return k;
}

result<std::vector<std::string>> read_public_keys(const std::string& path) {
  std::vector<std::string> keys;
  auto e = each_key_line(path, [&](size_t n, const std::string& a,
                                   const std::string& b) -> std::optional<error> {
    const std::string at = path + ":" + std::to_string(n) + ": ";
    if (a == "secret") return error{at + "a secret key does not belong in a list of public keys"};
    const std::string& key = a == "public" ? b : a;
    if (!is_z85_key(key) || (a != "public" && !b.empty()))
      return error{at + "expected a 40-character Z85 public key"};
    keys.push_back(key);
    return std::nullopt;
  });
  if (e) return *e;
  if (keys.empty()) return error{path + ": no public key"};
  return keys;
}

}  // namespace adarl
