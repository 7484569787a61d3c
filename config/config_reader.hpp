#pragma once
// Reading YAML configs with every problem reported as FILE:LINE: key: what was expected;
// overrides (key.path=value) and their checks.

#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "base/result.hpp"

namespace adarl {

/// Longest string value a config may hold (a path fits; a runaway value does not reach
/// every log line and metrics label).
inline constexpr size_t max_config_string = 4096;

/// Problems found while reading one config document, each as
/// `FILE:LINE: KEY.PATH: what was expected, got "value"`, and the effective value of
/// every key read (the default where the document has none).
struct config_errors {
  std::string file;
  std::vector<std::string> messages;
  std::map<std::string, std::string> values;  ///< KEY.PATH -> effective value as text.

  /// Records a problem at `mark` (yaml-cpp's 0-based position) for `path`.
  void add(const YAML::Mark& mark, const std::string& path, const std::string& what);
  bool empty() const { return messages.empty(); }
  /// All messages, one per line.
  std::string joined() const;
};

/// A mapping of a YAML config being read: typed getters that leave the target alone
/// when the key is absent, record a clear error when the value is of the wrong type or
/// out of range, and remember which keys were read so that finish() can reject unknown
/// keys with their full path. Reading is single-threaded; O(keys).
class config_map {
 public:
  config_map(YAML::Node node, std::string path, std::shared_ptr<config_errors> errors);

  /// True when the key is present.
  bool has(const std::string& key) const;
  /// The keys of this mapping, in document order (for mappings whose keys are data,
  /// such as tasks.verifiers); empty when it is not a mapping or a key is not a scalar.
  std::vector<std::string> keys() const;
  /// Marks a key as known without reading it.
  void allow(const std::string& key);

  // Each getter leaves `out` alone when the key is absent and records the effective
  // value (given or default) under the key's path in errors()->values.
  void get(const std::string& key, bool& out);
  void get(const std::string& key, std::string& out);
  /// A finite number in [lo, hi].
  void get(const std::string& key, double& out,
           double lo = -std::numeric_limits<double>::max(),
           double hi = std::numeric_limits<double>::max());
  void get(const std::string& key, float& out,
           double lo = -std::numeric_limits<double>::max(),
           double hi = std::numeric_limits<double>::max());
  /// Integers: a non-negative integer in [min, max] is expected.
  void get(const std::string& key, uint32_t& out, uint32_t min = 0,
           uint32_t max = std::numeric_limits<uint32_t>::max());
  void get(const std::string& key, uint64_t& out, uint64_t min = 0,
           uint64_t max = std::numeric_limits<uint64_t>::max());
  /// Records the effective value of a key read some other way (an enum by name).
  void record(const std::string& key, const std::string& value);
  void get(const std::string& key, std::vector<uint64_t>& out);
  void get(const std::string& key, std::vector<double>& out);

  /// The mapping under `key` (an empty one when absent; an error when not a mapping).
  config_map child(const std::string& key);
  /// The mappings of a sequence under `key` (empty when absent).
  std::vector<config_map> list(const std::string& key);

  /// Records an error for `key` of this mapping (for checks across several keys).
  void fail(const std::string& key, const std::string& what);
  /// Reports keys that were never read or allowed, with their path.
  void finish();

  /// Dotted path of `key` under this mapping.
  std::string path_of(const std::string& key) const;
  const std::shared_ptr<config_errors>& errors() const { return errors_; }

 private:
  YAML::Node lookup(const std::string& key);
  template <class T>
  bool scalar(const std::string& key, T& out, const char* expected);

  YAML::Node node_;
  std::string path_;
  std::shared_ptr<config_errors> errors_;
  std::vector<std::string> known_;
};

/// Reads an enum key by its name: `parse` turns the text into a value or an error whose
/// message is reported at the key; `name_of` gives the effective value's name when the
/// key is absent. The one way an enum key is read (strategy kinds, objectives, model.kind).
template <class T>
void read_enum(config_map& m, const std::string& key, T& out,
               result<T> (*parse)(std::string_view), std::string_view (*name_of)(T)) {
  if (!m.has(key)) {
    m.record(key, std::string(name_of(out)));
    return m.allow(key);
  }
  std::string name;
  const auto before = m.errors()->messages.size();
  m.get(key, name);
  if (m.errors()->messages.size() != before) return;  // not a string: already reported
  if (auto parsed = parse(name))
    out = *parsed;
  else
    m.fail(key, parsed.err().message);
}

/// Loads a YAML file; a missing file, a directory, a syntax error or a key repeated
/// within one mapping (yaml-cpp would keep the first silently) is an error naming the
/// file (and the line, for syntax errors and both lines of a repeated key).
result<YAML::Node> load_yaml_file(const std::string& file);

/// Applies a command-line override `a.b.c=value` to a document: the value is parsed
/// as YAML (so `6`, `true`, `[1, 2]` keep their types); intermediate maps are created.
/// A malformed override (no '=', empty key, more than 32 keys, a value deeper than 32
/// levels or of more than 10,000 nodes once YAML aliases are expanded, as in the
/// self-referring `x=&a [*a]`) is an error quoting it.
result<bool> apply_override(YAML::Node& root, const std::string& assignment);

}  // namespace adarl
