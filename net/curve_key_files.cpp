#include "net/curve_key_files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zmq.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>

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
