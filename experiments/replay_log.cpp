#include "experiments/replay_log.hpp"

#include "base/jsonl_text.hpp"

#include <cmath>
#include <istream>
#include <limits>
#include <nlohmann/json.hpp>
#include <unordered_map>

namespace adarl {
namespace {

using nlohmann::json;

/// A JSON value as the user wrote it, shortened for an error message.

/// Reads a line's fields into `p`; returns the problem or "".
std::string read_fields(const json& j, const std::string& name, const std::string& where,
                        replay_prompt& p) {
  const auto id = j.find("id");
  if (id == j.end()) return where + "missing \"id\"";
  if (!id->is_string() || id->get<std::string>().empty())
    return where + "\"id\": expected a non-empty string, got " + shown_json(*id);
  p.id = id->get<std::string>();
  const std::string who = prompt_where(name, p.line, p.id);

  const auto rewards = j.find("rewards");
  if (rewards == j.end()) return who + "missing \"rewards\"";
  if (!rewards->is_array())
    return who + "\"rewards\": expected a list of numbers, got " + shown_json(*rewards);
  for (size_t i = 0; i < rewards->size(); ++i) {
    const json& r = (*rewards)[i];
    // A reward is in [0, 1], as every verifier's is (NaN fails the test too).
    const bool ok = r.is_number() && r.get<double>() >= 0 && r.get<double>() <= 1;
    if (!ok)
      return who + "rewards[" + std::to_string(i) + "]: expected a number in [0, 1], got " +
             shown_json(r);
    p.rewards.push_back(r.get<double>());
  }

  if (const auto p_hat = j.find("p_hat"); p_hat != j.end()) {
    if (!p_hat->is_number() || !(p_hat->get<double>() >= 0 && p_hat->get<double>() <= 1))
      return who + "\"p_hat\": expected a number in [0, 1], got " + shown_json(*p_hat);
    p.p_hat = p_hat->get<double>();
  }

  if (const auto tokens = j.find("tokens"); tokens != j.end()) {
    if (!tokens->is_array() || tokens->size() != p.rewards.size())
      return who + "\"tokens\": expected a list of " + std::to_string(p.rewards.size()) +
             " token counts (one per reward), got " + shown_json(*tokens);
    for (size_t i = 0; i < tokens->size(); ++i) {
      const json& t = (*tokens)[i];
      if (!t.is_number_unsigned() ||
          t.get<uint64_t>() > std::numeric_limits<uint32_t>::max())
        return who + "tokens[" + std::to_string(i) +
               "]: expected a non-negative integer below 2^32, got " + shown_json(t);
      p.tokens.push_back(t.get<uint32_t>());
    }
  }
  return "";
}

}  // namespace

std::string prompt_where(const std::string& name, uint32_t line, const std::string& id) {
  return name + ":" + std::to_string(line) + ": prompt " + json(id).dump() + ": ";
}

result<std::vector<replay_prompt>> read_replay_log(std::istream& in,
                                                   const std::string& name) {
  std::vector<replay_prompt> prompts;
  std::unordered_map<std::string, uint32_t> first_line;  // id -> line
  std::string text;
  for (uint32_t line = 1; std::getline(in, text); ++line) {
    if (blank_line(text)) continue;
    const std::string where = name + ":" + std::to_string(line) + ": ";  // before the id
    if (json_depth(text) > max_json_depth)
      return error{where + "not valid JSON (nested deeper than " +
                   std::to_string(max_json_depth) + " levels)"};
    json j;
    try {
      j = json::parse(text);
    } catch (const json::exception& e) {  // a syntax error or a number out of range
      return error{where + "not valid JSON (" + json_parse_message(e) + ")"};
    }
    if (!j.is_object())
      return error{where + "expected a JSON object, got " + std::string(j.type_name())};
    replay_prompt p;
    p.line = line;
    if (auto problem = read_fields(j, name, where, p); !problem.empty())
      return error{problem};
    const auto [it, fresh] = first_line.emplace(p.id, line);
    if (!fresh)
      return error{prompt_where(name, line, p.id) + "duplicate id (first on line " +
                   std::to_string(it->second) + ")"};
    prompts.push_back(std::move(p));
  }
  if (in.bad()) return error{name + ": read error"};
  if (prompts.empty()) return error{name + ": no prompts (every line is empty)"};
  return prompts;
}

}  // namespace adarl
