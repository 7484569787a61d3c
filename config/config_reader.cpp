#include "config/config_reader.hpp"

#include <algorithm>
#include <charconv>
#include <cctype>
#include <cmath>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <fstream>
#include <limits>
#include <sstream>

namespace adarl {

void config_errors::add(const YAML::Mark& mark, const std::string& path,
                        const std::string& what) {
  std::string where = file.empty() ? "<config>" : file;
  if (mark.line >= 0) where += ":" + std::to_string(mark.line + 1);
  messages.push_back(where + ": " + path + ": " + what);
}

std::string config_errors::joined() const {
  std::string out;
  for (const auto& m : messages) out += m + "\n";
  return out;
}

config_map::config_map(YAML::Node node, std::string path,
                       std::shared_ptr<config_errors> errors)
    : node_(std::move(node)), path_(std::move(path)), errors_(std::move(errors)) {}

std::string config_map::path_of(const std::string& key) const {
  return path_.empty() ? key : path_ + "." + key;
}

bool config_map::has(const std::string& key) const {
  return node_.IsMap() && node_[key].IsDefined() && !node_[key].IsNull();
}

void config_map::allow(const std::string& key) { known_.push_back(key); }

std::vector<std::string> config_map::keys() const {
  std::vector<std::string> out;
  if (!node_.IsMap()) return out;
  for (const auto& kv : node_) {
    if (!kv.first.IsScalar()) return {};
    out.push_back(kv.first.Scalar());
  }
  return out;
}

// Reading never changes the document: the const operator[] adds no entry for an absent
// key (the non-const one links one into the mapping, which an assignment to the
// returned node would then define, in every alias of that mapping too).
YAML::Node config_map::lookup(const std::string& key) {
  known_.push_back(key);
  if (!node_.IsMap()) return YAML::Node(YAML::NodeType::Undefined);
  const YAML::Node& map = node_;
  return map[key];
}

void config_map::fail(const std::string& key, const std::string& what) {
  const YAML::Node& map = node_;
  const YAML::Node n = map.IsMap() ? map[key] : YAML::Node();
  errors_->add(n.IsDefined() ? n.Mark() : node_.Mark(), path_of(key), what);
}

namespace {
// A value echoed in a message is cut: a 50 MB scalar must not fill the terminal.
constexpr size_t max_echo = 80;

std::string got(const YAML::Node& n) {
  if (n.IsScalar())
    return "got \"" +
           (n.Scalar().size() <= max_echo ? n.Scalar() : n.Scalar().substr(0, max_echo) + "...") +
           "\"";
  if (n.IsSequence()) return "got a list";
  if (n.IsMap()) return "got a mapping";
  return "got nothing";
}
}  // namespace

template <class T>
bool config_map::scalar(const std::string& key, T& out, const char* expected) {
  YAML::Node n = lookup(key);
  if (!n.IsDefined() || n.IsNull()) return false;
  T value{};
  if (!n.IsScalar() || !YAML::convert<T>::decode(n, value)) {
    errors_->add(n.Mark(), path_of(key), std::string("expected ") + expected + ", " + got(n));
    return false;
  }
  out = value;
  return true;
}

void config_map::record(const std::string& key, const std::string& value) {
  errors_->values[path_of(key)] = value;
}

void config_map::get(const std::string& key, bool& out) {
  scalar(key, out, "true or false");
  record(key, out ? "true" : "false");
}

void config_map::get(const std::string& key, std::string& out) {
  std::string v = out;
  if (scalar(key, v, "a string")) {
    if (v.size() > max_config_string) {
      fail(key, "expected at most " + std::to_string(max_config_string) + " characters, got " +
                    std::to_string(v.size()));
      return;
    }
    out = std::move(v);
  }
  record(key, out);
}

namespace {
std::string number_text(double v) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

std::string range_text(double lo, double hi) {
  const double big = std::numeric_limits<double>::max();
  if (lo == -big) return "a number up to " + number_text(hi);
  if (hi == big) return "a number >= " + number_text(lo);
  return "a number in [" + number_text(lo) + ", " + number_text(hi) + "]";
}
}  // namespace

void config_map::get(const std::string& key, double& out, double lo, double hi) {
  double v = out;
  if (scalar(key, v, "a number")) {
    if (!std::isfinite(v))
      fail(key, "expected a finite number");
    else if (v < lo || v > hi)
      fail(key, "expected " + range_text(lo, hi) + ", got \"" + node_[key].Scalar() + "\"");
    else
      out = v;
  }
  record(key, number_text(out));
}

void config_map::get(const std::string& key, float& out, double lo, double hi) {
  double v = out;
  get(key, v, lo, hi);
  out = static_cast<float>(v);
}

void config_map::get(const std::string& key, uint64_t& out, uint64_t min, uint64_t max) {
  YAML::Node n = lookup(key);
  if (n.IsDefined() && !n.IsNull()) {
    const bool wide = max == std::numeric_limits<uint64_t>::max();
    const bool narrow = max == std::numeric_limits<uint32_t>::max();
    const std::string expected =
        !wide && !narrow ? "an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "]"
        : min == 0       ? "a non-negative integer"
        : min == 1       ? "a positive integer"
                         : "an integer >= " + std::to_string(min);
    const std::string s = n.IsScalar() ? n.Scalar() : "";
    const bool digits = !s.empty() && std::all_of(s.begin(), s.end(), ::isdigit);
    uint64_t v = 0;
    if (!digits || s.size() > 19 || (v = std::stoull(s)) < min)
      errors_->add(n.Mark(), path_of(key), "expected " + expected + ", " + got(n));
    else if (v > max)
      errors_->add(n.Mark(), path_of(key),
                   "expected " + (narrow ? std::string("an integer below 2^32") : expected) +
                       ", " + got(n));
    else
      out = v;
  }
  record(key, std::to_string(out));
}

void config_map::get(const std::string& key, uint32_t& out, uint32_t min, uint32_t max) {
  uint64_t v = out;
  get(key, v, min, max);
  out = static_cast<uint32_t>(v);  // in range: max fits
}

namespace {
template <class T>
std::string list_text(const std::vector<T>& values) {
  std::string t;
  for (auto v : values) {
    if constexpr (std::is_floating_point_v<T>)
      t += (t.empty() ? "" : ", ") + number_text(v);
    else
      t += (t.empty() ? "" : ", ") + std::to_string(v);
  }
  return "[" + t + "]";
}
}  // namespace

void config_map::get(const std::string& key, std::vector<uint64_t>& out) {
  YAML::Node n = lookup(key);
  if (!n.IsDefined() || n.IsNull()) return record(key, list_text(out));
  if (!n.IsSequence())
    return errors_->add(n.Mark(), path_of(key), "expected a list of integers, " + got(n));
  std::vector<uint64_t> values;
  for (size_t i = 0; i < n.size(); ++i) {
    uint64_t v = 0;
    if (!n[i].IsScalar() || !YAML::convert<uint64_t>::decode(n[i], v) ||
        n[i].Scalar().find('-') != std::string::npos)
      return errors_->add(n[i].Mark(), path_of(key) + "[" + std::to_string(i) + "]",
                          "expected a non-negative integer, " + got(n[i]));
    values.push_back(v);
  }
  out = std::move(values);
  record(key, list_text(out));
}

void config_map::get(const std::string& key, std::vector<double>& out) {
  YAML::Node n = lookup(key);
  if (!n.IsDefined() || n.IsNull()) return record(key, list_text(out));
  if (!n.IsSequence())
    return errors_->add(n.Mark(), path_of(key), "expected a list of numbers, " + got(n));
  std::vector<double> values;
  for (size_t i = 0; i < n.size(); ++i) {
    double v = 0;
    if (!n[i].IsScalar() || !YAML::convert<double>::decode(n[i], v) || !std::isfinite(v))
      return errors_->add(n[i].Mark(), path_of(key) + "[" + std::to_string(i) + "]",
                          "expected a finite number, " + got(n[i]));
    values.push_back(v);
  }
  out = std::move(values);
  record(key, list_text(out));
}

config_map config_map::child(const std::string& key) {
  YAML::Node n = lookup(key);
  if (n.IsDefined() && !n.IsNull() && !n.IsMap()) {
    errors_->add(n.Mark(), path_of(key), "expected a mapping, " + got(n));
    return config_map(YAML::Node(YAML::NodeType::Map), path_of(key), errors_);
  }
  if (!n.IsDefined() || n.IsNull())  // a new node: assigning to n would write the map
    return config_map(YAML::Node(YAML::NodeType::Map), path_of(key), errors_);
  return config_map(n, path_of(key), errors_);
}

std::vector<config_map> config_map::list(const std::string& key) {
  YAML::Node n = lookup(key);
  std::vector<config_map> out;
  if (!n.IsDefined() || n.IsNull()) return out;
  if (!n.IsSequence()) {
    errors_->add(n.Mark(), path_of(key), "expected a list, " + got(n));
    return out;
  }
  for (size_t i = 0; i < n.size(); ++i) {
    const auto p = path_of(key) + "[" + std::to_string(i) + "]";
    if (!n[i].IsMap()) {
      errors_->add(n[i].Mark(), p, "expected a mapping, " + got(n[i]));
      continue;
    }
    out.emplace_back(n[i], p, errors_);
  }
  return out;
}

void config_map::finish() {
  if (!node_.IsMap()) return;
  for (const auto& kv : node_) {
    const auto key = kv.first.as<std::string>("");
    if (std::find(known_.begin(), known_.end(), key) == known_.end())
      errors_->add(kv.first.Mark(), path_of(key), "unknown key");
  }
}

namespace {
// Bounds of the duplicate-key walk: an alias visits its node again at each use.
constexpr size_t max_walk_depth = 64;
constexpr size_t max_walk_nodes = 1'000'000;

// The first key that a mapping of `n` repeats, as "FILE:LINE: ..."; "" when none.
// yaml-cpp keeps both entries of a repeated key and lookups see the first only.
std::string repeated_key(const YAML::Node& n, const std::string& file, size_t depth,
                         size_t& budget) {
  if (depth > max_walk_depth || budget == 0) return "";
  --budget;
  if (n.IsSequence()) {
    for (const auto& child : n)
      if (auto r = repeated_key(child, file, depth + 1, budget); !r.empty()) return r;
  } else if (n.IsMap()) {
    std::map<std::string, int> first_line;
    for (const auto& kv : n) {
      if (kv.first.IsScalar()) {
        const auto [at, fresh] = first_line.emplace(kv.first.Scalar(), kv.first.Mark().line);
        if (!fresh)
          return file + ":" + std::to_string(kv.first.Mark().line + 1) + ": duplicate key \"" +
                 kv.first.Scalar() + "\" (first at line " + std::to_string(at->second + 1) +
                 "): a repeated key would be ignored; keep one";
      }
      if (auto r = repeated_key(kv.second, file, depth + 1, budget); !r.empty()) return r;
    }
  }
  return "";
}
}  // namespace

result<YAML::Node> load_yaml_file(const std::string& file) {
  std::error_code ec;
  if (std::filesystem::is_directory(file, ec))
    return error{file + ": is a directory; expected a YAML file"};
  std::ifstream in(file);
  if (!in) return error{file + ": cannot open the file (" + std::strerror(errno) + ")"};
  try {
    YAML::Node root = YAML::Load(in);
    if (root.IsNull()) root = YAML::Node(YAML::NodeType::Map);
    if (!root.IsMap()) return error{file + ": expected a mapping at the top level"};
    size_t budget = max_walk_nodes;
    if (auto dup = repeated_key(root, file, 0, budget); !dup.empty()) return error{dup};
    return root;
  } catch (const YAML::Exception& e) {
    return error{file + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg};
  }
}

namespace {
// Recursion instead of re-assigning a YAML::Node: yaml-cpp's operator= on a node
// handle rewrites the node it points to, which would corrupt the document.
result<bool> set_path(YAML::Node node, const std::vector<std::string>& keys, size_t i,
                      const YAML::Node& value, const std::string& assignment) {
  if (i + 1 == keys.size()) {
    node[keys[i]] = value;
    return true;
  }
  const YAML::Node existing = node[keys[i]];
  if (!existing.IsDefined() || existing.IsNull())
    node[keys[i]] = YAML::Node(YAML::NodeType::Map);
  YAML::Node child = node[keys[i]];
  if (!child.IsMap())
    return error{"override \"" + assignment + "\": " + keys[i] + " is not a mapping"};
  return set_path(child, keys, i + 1, value, assignment);
}

// An alias can make a YAML value contain itself (`x=&a [*a]`) or double with each level
// (`[&a [1, 1], &b [*a, *a], ...]`), and readers copy override values node by node
// (pipeline_reader.cpp: without_marks): such a value overflowed the stack.
constexpr size_t max_override_depth = 32;
constexpr size_t max_override_nodes = 10000;

// Counts the nodes of `n` as a tree (an alias once per use) against `budget`; false
// when the value is deeper than max_override_depth or larger than the budget.
bool within_limits(const YAML::Node& n, size_t depth, size_t& budget) {
  if (budget == 0 || depth > max_override_depth) return false;
  --budget;
  if (n.IsSequence())
    for (const auto& e : n)
      if (!within_limits(e, depth + 1, budget)) return false;
  if (n.IsMap())
    for (const auto& kv : n)
      if (!within_limits(kv.first, depth + 1, budget) ||
          !within_limits(kv.second, depth + 1, budget))
        return false;
  return true;
}
}  // namespace

result<bool> apply_override(YAML::Node& root, const std::string& assignment) {
  const auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0)
    return error{"override \"" + assignment + "\": expected KEY.PATH=VALUE"};
  const std::string path = assignment.substr(0, eq);
  YAML::Node value;
  try {
    value = YAML::Load(assignment.substr(eq + 1));
  } catch (const YAML::Exception& e) {
    return error{"override \"" + assignment + "\": " + e.msg};
  }
  if (size_t budget = max_override_nodes; !within_limits(value, 1, budget))
    return error{"override \"" + assignment + "\": a value deeper than " +
                 std::to_string(max_override_depth) + " levels or larger than " +
                 std::to_string(max_override_nodes) +
                 " nodes (with aliases expanded; does one refer to itself?)"};
  std::vector<std::string> keys;
  std::stringstream ss(path);
  for (std::string k; std::getline(ss, k, '.');) {
    if (k.empty()) return error{"override \"" + assignment + "\": empty key in the path"};
    keys.push_back(k);
  }
  if (keys.size() > max_override_depth)  // set_path recurses once per key
    return error{"override \"" + assignment + "\": a key path of more than " +
                 std::to_string(max_override_depth) + " keys"};
  return set_path(root, keys, 0, value, assignment);
}

}  // namespace adarl
