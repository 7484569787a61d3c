#include "actors/checkpoint_files.hpp"

#include <limits>
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <type_traits>

#include <nlohmann/json.hpp>

#include "base/atomic_file.hpp"
#include "base/content_hash.hpp"

namespace adarl {

namespace fs = std::filesystem;
using nlohmann::json;

std::string checkpoint_name(uint64_t version) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "step-%06llu", static_cast<unsigned long long>(version));
  return buf;
}

namespace {

constexpr const char* manifest_file = "checkpoint.json";
constexpr const char* manifest_format = "adarl-checkpoint-manifest-2";  // sizes and hashes
constexpr const char* manifest_format_sizes = "adarl-checkpoint-manifest-1";  // sizes alone
constexpr const char* carried_format = "adarl-carried-1";

result<std::string> read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return error{path + ": cannot open"};
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return error{path + ": read failed"};
  return bytes;
}

// Every field of the message structs, by name (messages/messages.hpp).
json order_json(const work_order& o) {
  return {{"step", o.step},           {"slot", o.slot},         {"index", o.index},
          {"prompt_id", o.prompt_id}, {"stream", o.stream},     {"eval_round", o.eval_round},
          {"greedy", o.greedy},       {"min_version", o.min_version}};
}

work_order order_of(const json& j) {
  work_order o;
  o.step = j.at("step");
  o.slot = j.at("slot");
  o.index = j.at("index");
  o.prompt_id = j.at("prompt_id");
  o.stream = j.at("stream");
  o.eval_round = j.at("eval_round");
  o.greedy = j.at("greedy");
  o.min_version = j.at("min_version");
  return o;
}

json group_json(const train_group& g) {
  json samples = json::array();
  for (const auto& c : g.samples)
    samples.push_back({{"order", order_json(c.order)},
                       {"tokens", c.tokens},
                       {"logprobs", c.logprobs},
                       {"ended", c.ended},
                       {"version", c.version},
                       {"reward", c.reward},
                       {"reason", c.reason}});
  return {{"step", g.step},           {"slot", g.slot},
          {"prompt_id", g.prompt_id}, {"trainable", g.trainable},
          {"advantages", g.advantages}, {"samples", std::move(samples)}};
}

train_group group_of(const json& j) {
  train_group g;
  g.step = j.at("step");
  g.slot = j.at("slot");
  g.prompt_id = j.at("prompt_id");
  g.trainable = j.at("trainable");
  g.advantages = j.at("advantages").get<std::vector<float>>();
  for (const auto& s : j.at("samples")) {
    completion c;
    c.order = order_of(s.at("order"));
    c.tokens = s.at("tokens").get<std::vector<int32_t>>();
    // null is a log-prob the generator did not have (NaN, written by JSON as null).
    for (const auto& lp : s.at("logprobs"))
      c.logprobs.push_back(lp.is_null() ? std::numeric_limits<float>::quiet_NaN()
                                        : lp.get<float>());
    c.ended = s.at("ended");
    c.version = s.at("version");
    c.reward = s.at("reward");
    c.reason = s.at("reason");
    g.samples.push_back(std::move(c));
  }
  if (g.advantages.size() != g.samples.size())
    throw std::runtime_error("group of step " + std::to_string(g.step) + " slot " +
                             std::to_string(g.slot) + ": advantages and samples differ in count");
  return g;
}

json report_json(const step_report& r) {
  json j = json::object();
  for_each_field(step_report_fields, [&](const auto& f) { j[f.name] = r.*(f.member); });
  return j;
}

// A required field missing is an error (json::at throws, naming the key); the others
// are absent from older checkpoints and keep their defaults then.
step_report report_of(const json& j) {
  step_report r;
  for_each_field(step_report_fields, [&](const auto& f) {
    using value_t = std::remove_reference_t<decltype(r.*(f.member))>;
    if (f.has(field_required))
      r.*(f.member) = j.at(f.name).template get<value_t>();
    else if (const auto it = j.find(f.name); it != j.end())
      r.*(f.member) = it->template get<value_t>();
  });
  return r;
}

}  // namespace

result<bool> write_manifest(const std::string& dir, uint64_t version, int64_t through) {
  json files = json::object();
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (!it->is_regular_file(ec)) continue;
    const auto rel = fs::relative(it->path(), dir, ec).generic_string();
    if (rel == manifest_file) continue;
    const auto size = uint64_t(it->file_size(ec));
    auto hash = file_content_hash(it->path().string());
    if (!hash) return hash.err();
    files[rel] = {{"bytes", size}, {"xxh3", *hash}};
  }
  if (ec) return error{dir + ": cannot list the checkpoint: " + ec.message()};
  const json j{{"format", manifest_format},
               {"version", version},
               {"through", through},
               {"files", std::move(files)}};
  return write_file_atomic(dir + "/" + manifest_file, j.dump(1) + "\n");
}

result<checkpoint_manifest> read_manifest(const std::string& dir) {
  const std::string path = dir + "/" + manifest_file;
  if (!fs::exists(path)) return error{dir + ": incomplete checkpoint (no " + manifest_file + ")"};
  auto text = read_all(path);
  if (!text) return text.err();
  checkpoint_manifest m;
  try {
    const auto j = json::parse(*text);
    const auto format = j.value("format", "");
    if (format != manifest_format && format != manifest_format_sizes)
      return error{path + ": not an adarl checkpoint manifest"};
    m.version = j.at("version");
    m.through = j.at("through");
    // Manifests before the content hashes list each file's size alone.
    for (const auto& [name, f] : j.at("files").items())
      if (f.is_object())
        m.files.push_back({name, f.at("bytes").get<uint64_t>(), f.at("xxh3").get<std::string>()});
      else
        m.files.push_back({name, f.get<uint64_t>(), ""});
  } catch (const json::exception& e) {
    return error{path + ": corrupt manifest (" + e.what() + ")"};
  }
  for (const auto& f : m.files) {
    std::error_code ec;
    const std::string file = dir + "/" + f.name;
    const auto actual = fs::file_size(file, ec);
    if (ec) return error{dir + ": incomplete checkpoint (" + f.name + " is missing)"};
    if (actual != f.bytes)
      return error{dir + ": damaged checkpoint (" + f.name + " has " + std::to_string(actual) +
                   " bytes, the manifest says " + std::to_string(f.bytes) + ")"};
    if (f.hash.empty()) continue;
    auto hash = file_content_hash(file);
    if (!hash) return error{dir + ": damaged checkpoint (" + hash.err().message + ")"};
    if (*hash != f.hash)
      return error{dir + ": damaged checkpoint (" + f.name +
                   "'s content differs from the one written: its hash is " + *hash +
                   ", the manifest says " + f.hash + ")"};
  }
  return m;
}

result<bool> write_carried_steps(const std::string& path, const carried_steps& steps,
                                 uint64_t from, int64_t through) {
  json groups = json::array(), reports = json::array();
  for (const auto& [step, list] : steps.groups)
    if (step >= from && int64_t(step) <= through)
      for (const auto& g : list) groups.push_back(group_json(g));
  for (const auto& [step, r] : steps.reports)
    if (step >= from && int64_t(step) <= through) reports.push_back(report_json(r));
  const json j{{"format", carried_format},
               {"groups", std::move(groups)},
               {"reports", std::move(reports)}};
  const auto bytes = json::to_cbor(j);
  return write_file_atomic(path, std::string_view(reinterpret_cast<const char*>(bytes.data()),
                                                  bytes.size()));
}

result<carried_steps> read_carried_steps(const std::string& path) {
  auto bytes = read_all(path);
  if (!bytes) return bytes.err();
  carried_steps out;
  try {
    const auto j = json::from_cbor(*bytes);
    if (j.value("format", "") != carried_format)
      return error{path + ": not a file of carried steps"};
    for (const auto& g : j.at("groups")) {
      auto group = group_of(g);
      out.groups[group.step].push_back(std::move(group));
    }
    for (const auto& r : j.at("reports")) {
      auto report = report_of(r);
      out.reports[report.step] = std::move(report);
    }
  } catch (const std::exception& e) {
    return error{path + ": corrupt carried steps (" + e.what() + ")"};
  }
  return out;
}

result<std::string> resolve_checkpoint(const std::string& dir, std::string* note) {
  if (fs::exists(dir + "/" + manifest_file)) {
    auto m = read_manifest(dir);
    if (!m) return m.err();
    return dir;
  }
  const std::string root = dir + "/checkpoints";
  if (!fs::is_directory(root))
    return error{dir + ": not a checkpoint (no " + manifest_file + ") and no " + root +
                 " (checkpoints/latest)"};
  std::string named;
  std::ifstream(root + "/latest") >> named;
  std::string passed;
  if (!named.empty()) {
    auto m = read_manifest(root + "/" + named);
    if (m) return root + "/" + named;
    passed = "passed over " + m.err().message;
  }
  // `latest` is missing or names a damaged checkpoint: the newest complete one not
  // after it (later ones may belong to a timeline abandoned by an earlier resume).
  std::vector<std::string> candidates;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(root, ec)) {
    const auto name = e.path().filename().string();
    if (e.is_directory() && name.rfind("step-", 0) == 0 && name.find('.') == std::string::npos &&
        (named.empty() || name <= named))
      candidates.push_back(name);
  }
  std::sort(candidates.rbegin(), candidates.rend());
  for (const auto& name : candidates) {
    if (name == named) continue;
    auto m = read_manifest(root + "/" + name);
    if (m) {
      if (note && !passed.empty()) *note = passed;
      return root + "/" + name;
    }
    if (passed.empty()) passed = "passed over " + m.err().message;
  }
  return error{dir + ": no complete checkpoint under " + root +
               (passed.empty() ? std::string(" (checkpoints/latest names none)")
                               : " (" + passed + ")")};
}

std::optional<budget_point> fill_carried_totals(carried_steps& steps, uint64_t version,
                                                budget_totals before) {
  std::optional<budget_point> last;
  for (auto& [step, r] : steps.reports) {
    if (step < version) continue;
    before.samples += r.samples;
    before.tokens += r.tokens;
    r.cumulative_samples = before.samples;
    r.cumulative_tokens = before.tokens;
    last = budget_point{{r.samples, r.tokens}, before};
  }
  return last;
}

}  // namespace adarl
