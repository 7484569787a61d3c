#include "tasks/verify_requests.hpp"

#include <nlohmann/json.hpp>
#include <optional>
#include <unordered_map>

#include "base/jsonl_text.hpp"
#include "tasks/dataset.hpp"

namespace adarl {
namespace {

using nlohmann::json;

using problems = line_problems;

/// The string field `key`: true and `out` set, or a problem reported (missing only
/// when `required`).
bool string_field(const json& j, const char* key, bool required, uint32_t line, problems& p,
                  std::string& out) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) {
    if (required) p.add(line, std::string("field \"") + key + "\": missing");
    return !required;
  }
  if (!it->is_string()) {
    p.add(line, std::string("field \"") + key + "\": expected a string, got " + shown_json(*it));
    return false;
  }
  out = it->get<std::string>();
  return true;
}

bool read_request(const json& j, uint32_t line, const verifier_registry& registry,
                  problems& p, verify_request& r) {
  r.line = line;
  r.item.verifier = "math";
  bool ok = string_field(j, "answer", true, line, p, r.item.answer);
  ok &= string_field(j, "completion", true, line, p, r.completion);
  ok &= string_field(j, "id", false, line, p, r.item.id);
  if (string_field(j, "verifier", false, line, p, r.item.verifier)) {
    if (auto found = registry.find(r.item.verifier); !found) {
      p.add(line, "field \"verifier\": " + found.err().message);
      ok = false;
    }
  } else {
    ok = false;
  }
  ok &= read_tests_field(j, line, p, r.item.tests);
  return ok;
}

/// Reads every line of `in` with `read_one`; the requests, or every problem found.
template <class ReadOne>
result<std::vector<verify_request>> read_lines(std::istream& in, const std::string& name,
                                               ReadOne read_one) {
  problems p{name, max_dataset_errors, {}};
  std::vector<verify_request> out;
  std::string text;
  for (uint32_t line = 1; !p.full() && std::getline(in, text); ++line) {
    if (blank_line(text)) continue;
    const auto j = json_object_line(text, line, p);
    verify_request r;
    if (j && read_one(*j, line, p, r)) out.push_back(std::move(r));
  }
  if (in.bad()) p.lines.push_back(name + ": read error");
  if (p.lines.empty() && out.empty()) p.lines.push_back(name + ": no lines to verify");
  if (!p.lines.empty()) return p.joined();
  return out;
}

}  // namespace

result<std::vector<verify_request>> read_verify_requests(std::istream& in,
                                                         const std::string& name,
                                                         const verifier_registry& registry) {
  return read_lines(in, name, [&](const json& j, uint32_t line, problems& p, verify_request& r) {
    return read_request(j, line, registry, p, r);
  });
}

result<std::vector<verify_request>> read_completions(std::istream& in, const std::string& name,
                                                     const std::vector<task_item>& dataset) {
  std::unordered_map<std::string, std::size_t> by_id;
  for (std::size_t i = 0; i < dataset.size(); ++i) by_id.emplace(dataset[i].id, i);
  return read_lines(in, name, [&](const json& j, uint32_t line, problems& p, verify_request& r) {
    std::string id;
    bool ok = string_field(j, "id", true, line, p, id);
    ok &= string_field(j, "completion", true, line, p, r.completion);
    if (!ok) return false;
    const auto it = by_id.find(id);
    if (it == by_id.end()) {
      p.add(line, "id " + json_quoted(id) + ": not in the dataset");
      return false;
    }
    r.item = dataset[it->second];
    r.line = line;
    return true;
  });
}

std::string verdict_json(const verify_request& request, const verdict& v) {
  nlohmann::ordered_json j;
  if (!request.item.id.empty()) j["id"] = request.item.id;
  j["reward"] = v.reward;
  j["reason"] = v.reason;
  return j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

}  // namespace adarl
