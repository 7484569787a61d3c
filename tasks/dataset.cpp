#include "tasks/dataset.hpp"

#include "base/atomic_file.hpp"
#include "base/jsonl_text.hpp"
#include "base/text.hpp"
#include "math/math_extract.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <unordered_map>

namespace adarl {
namespace {

using nlohmann::json;

using problems = line_problems;

constexpr std::string_view prompt_slot = "{prompt}";

std::string field(const char* key) {
  return std::string("field \"") + key + "\": ";
}

/// Reads a required string field into `out`; reports and returns false on a problem.
bool read_string(const json& j, const char* key, bool non_empty, uint32_t line,
                 problems& p, std::string& out) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) {
    p.add(line, field(key) + "missing");
    return false;
  }
  if (!it->is_string()) {
    p.add(line, field(key) + "expected a string, got " + shown_json(*it));
    return false;
  }
  out = it->get<std::string>();
  if (non_empty && out.empty()) {
    p.add(line, field(key) + "expected a non-empty string");
    return false;
  }
  return true;
}

/// Reads one object into `item`; reports every problem of the line; true when none.
bool read_item(const json& j, uint32_t line, const verifier_registry* registry,
               problems& p, task_item& item) {
  bool ok = read_string(j, "id", true, line, p, item.id);
  ok &= read_string(j, "prompt", true, line, p, item.prompt);
  ok &= read_string(j, "answer", false, line, p, item.answer);
  ok &= read_string(j, "task", false, line, p, item.task);
  if (const auto sys = j.find("system"); sys != j.end() && !sys->is_null())  // optional
    ok &= read_string(j, "system", false, line, p, item.system);
  if (const auto sol = j.find("solution"); sol != j.end() && !sol->is_null())  // optional
    ok &= read_string(j, "solution", false, line, p, item.solution);
  if (!read_string(j, "verifier", true, line, p, item.verifier)) {
    ok = false;
  } else if (registry) {
    if (auto found = registry->find(item.verifier); !found) {
      p.add(line, field("verifier") + found.err().message);
      ok = false;
    }
  }
  ok &= read_tests_field(j, line, p, item.tests);
  if (const auto d = j.find("difficulty"); d != j.end() && !d->is_null()) {
    if (d->is_number_integer() && d->get<int64_t>() >= 1 && d->get<int64_t>() <= 5) {
      item.difficulty = static_cast<uint32_t>(d->get<int64_t>());
    } else {
      p.add(line,
            field("difficulty") + "expected an integer from 1 to 5, got " + shown_json(*d));
      ok = false;
    }
  }
  return ok;
}

/// The column a non-plain format reads task field `name` from.
const std::string& column_of(const dataset_format& f, const std::string& name) {
  const auto it = f.columns.find(name);
  return it == f.columns.end() ? name : it->second;
}

/// The value of `column` in the line: the key itself, else a dotted path through its
/// objects (and arrays, by index); nullptr when absent or null.
const json* find_column(const json& j, const std::string& column) {
  if (const auto it = j.find(column); it != j.end()) return it->is_null() ? nullptr : &*it;
  if (column.find('.') == std::string::npos) return nullptr;
  const json* at = &j;
  for (size_t begin = 0;;) {
    const size_t dot = column.find('.', begin);
    const std::string part =
        column.substr(begin, dot == std::string::npos ? std::string::npos : dot - begin);
    if (at->is_object()) {
      const auto it = at->find(part);
      if (it == at->end()) return nullptr;
      at = &*it;
    } else if (at->is_array() && !part.empty() && part.size() < 10 &&
               part.find_first_not_of("0123456789") == std::string::npos) {
      const size_t index = std::stoul(part);
      if (index >= at->size()) return nullptr;
      at = &(*at)[index];
    } else {
      return nullptr;
    }
    if (dot == std::string::npos) break;
    begin = dot + 1;
  }
  return at->is_null() ? nullptr : at;
}

/// A chat-message prompt as its user turn's text, with its system message's text in
/// `system_text` ("" when none) (dataset_format); "" with `problem` set when the list is
/// not one user message after at most one system message.
std::string chat_prompt_text(const json& messages, std::string& system_text,
                             std::string& problem) {
  std::string user_text;
  system_text.clear();
  size_t users = 0, systems = 0;
  for (size_t i = 0; i < messages.size(); ++i) {
    const json& m = messages[i];
    const std::string where = "message " + std::to_string(i + 1) + ": ";
    if (!m.is_object() || !m.contains("role") || !m["role"].is_string() ||
        !m.contains("content") || !m["content"].is_string()) {
      problem = where + "expected {\"role\": string, \"content\": string}, got " + shown_json(m);
      return "";
    }
    const auto role = m["role"].get<std::string>();
    if (role == "system" && users == 0 && systems == 0) {
      system_text = m["content"].get<std::string>();
      ++systems;
    } else if (role == "user" && users == 0) {
      user_text = m["content"].get<std::string>();
      ++users;
    } else if (role == "assistant" || role == "user") {
      problem = where + "a multi-turn prompt (" + role +
                " after the user turn): adarl trains on one-turn prompts";
      return "";
    } else {
      problem = where + "role " + json_quoted(role) +
                (role == "system" ? " again or after the user turn" : " (expected system or user)");
      return "";
    }
  }
  if (users == 0) {
    problem = "no user message";
    return "";
  }
  return user_text;
}

/// The line's columns under adarl's own field names, with the defaults of
/// dataset_format filled in (counted in `counts`).
std::optional<json> remapped(const json& j, const dataset_format& f, uint32_t line,
                             dataset_mapping_counts& counts,
                             const std::map<std::string, std::string>& numbers, problems& p) {
  json out = json::object();
  for (const auto& name : dataset_field_names())
    if (const json* v = find_column(j, column_of(f, name))) out[name] = *v;
  if (const auto prompt = out.find("prompt"); prompt != out.end() && prompt->is_array()) {
    std::string system, problem;
    auto text = chat_prompt_text(*prompt, system, problem);
    if (problem.empty() && !system.empty() && out.contains("system"))
      problem = "a system message, and the column " + json_quoted(column_of(f, "system")) +
                " too: keep one of them";
    if (!problem.empty()) {
      p.add(line, "column " + json_quoted(column_of(f, "prompt")) + " (a chat-message list): " +
                      problem);
      return std::nullopt;
    }
    *prompt = std::move(text);
    ++counts.chat_prompts;
    if (!system.empty()) {
      out["system"] = std::move(system);
      ++counts.system_turns;
    }
  }
  // HumanEval: the test column holds check(candidate), entry_point names the function,
  // the prompt is the code a body-only completion continues (tasks/python_verifier.hpp).
  if (const auto entry = out.find("entry_point"); entry != out.end()) {
    if (!entry->is_string()) {
      p.add(line, "column " + json_quoted(column_of(f, "entry_point")) +
                      ": expected a string, got " + shown_json(*entry));
      return std::nullopt;
    }
    if (const auto t = out.find("tests"); t != out.end() && t->is_string()) {
      json program{{"check", *t}, {"entry_point", *entry}};
      if (const auto code = out.find("prompt"); code != out.end() && code->is_string())
        program["prefix"] = *code;
      *t = std::move(program);
      ++counts.check_tests;
    }
    out.erase("entry_point");
  }
  // MBPP: an assert list runs after the line's test_setup_code, when it has one.
  if (const auto t = out.find("tests"); t != out.end() && t->is_array())
    if (const json* setup = find_column(j, "test_setup_code");
        setup && setup->is_string() && !setup->get<std::string>().empty()) {
      *t = json{{"asserts", *t}, {"setup", *setup}};
      ++counts.setup_tests;
    }
  // An integer id (MBPP's task_id) is its decimal text.
  if (const auto id = out.find("id"); id != out.end() && id->is_number_integer()) {
    *id = id->dump();
    ++counts.number_ids;
  }
  if (!out.contains("id") && !f.columns.count("id")) {
    out["id"] = "line-" + std::to_string(line);
    ++counts.ids_from_lines;
  }
  for (const char* optional : {"task", "answer"})
    if (!out.contains(optional) && !f.columns.count(optional)) out[optional] = "";
  if (!out.contains("verifier") && !f.source_verifiers.empty()) {
    if (const json* source = find_column(j, "data_source"); source && source->is_string()) {
      if (const auto it = f.source_verifiers.find(source->get<std::string>());
          it != f.source_verifiers.end()) {
        out["verifier"] = it->second;
        ++counts.source_verifier;
      } else if (f.verifier.empty()) {
        std::string known;
        for (const auto& [name, v] : f.source_verifiers) known += (known.empty() ? "" : ", ") + name;
        p.add(line, "column \"data_source\": no verifier for " +
                        json_quoted(source->get<std::string>()) +
                        " (mapped: " + known + ")");
        return std::nullopt;
      }
    }
  }
  if (!out.contains("verifier") && !f.verifier.empty()) {
    out["verifier"] = f.verifier;
    ++counts.default_verifier;
  }
  // A number answer as written: its text, not a double's (2^64 and 1.0000000000000000001
  // survive; integers within 64 bits are exact either way).
  if (const auto a = out.find("answer"); a != out.end() && a->is_number()) {
    const auto text = numbers.find(column_of(f, "answer"));
    *a = text != numbers.end() ? text->second : a->dump();
  }
  return out;
}

/// The answer a reference states (dataset_format), counted by how it was found.
std::string stated_answer(const std::string& reference, dataset_mapping_counts& counts) {
  if (const auto boxed = extract_math_answer(reference, extraction::boxed)) {
    ++counts.answers_boxed;
    return std::string(*boxed);
  }
  if (const auto hashes = extract_math_answer(reference, extraction::hashes)) {
    ++counts.answers_hashes;
    return std::string(trim_blanks(*hashes));
  }
  ++counts.answers_whole;
  return std::string(trim_blanks(reference));
}

/// Problems of a mapped line name the file's column: `field "prompt"` becomes
/// `column "problem" (mapped to prompt)`.
std::string named_by_column(std::string message, const dataset_format& f) {
  for (const auto& [name, column] : f.columns) {
    const std::string from = "field \"" + name + "\"";
    if (const auto at = message.find(from); at != std::string::npos)
      message.replace(at, from.size(),
                      "column " + json_quoted(column) + " (mapped to " + name + ")");
  }
  return message;
}

}  // namespace

const std::vector<std::string>& dataset_field_names() {
  static const std::vector<std::string> names{"id",    "prompt",     "answer",
                                              "task",  "verifier",   "tests",
                                              "difficulty", "entry_point", "system"};
  return names;
}

std::string check_dataset_format(const dataset_format& f, const std::string& key) {
  const auto& names = dataset_field_names();
  std::map<std::string, std::string> field_of_column;
  for (const auto& [name, column] : f.columns) {
    if (std::find(names.begin(), names.end(), name) == names.end())
      return key + ": unknown task field \"" + name +
             "\" (known: id, prompt, answer, task, verifier, tests, difficulty, entry_point, "
             "system)";
    if (column.empty()) return key + "." + name + ": expected a column name, got \"\"";
    if (const auto [it, fresh] = field_of_column.emplace(column, name); !fresh)
      return key + ": " + it->second + " and " + name + " both read column \"" + column +
             "\"";
  }
  for (const auto& [source, verifier] : f.source_verifiers)
    if (source.empty() || verifier.empty())
      return "verifiers: expected data_source: verifier pairs of non-empty names, got \"" +
             source + "\": \"" + verifier + "\"";
  if (!f.prompt_template.empty()) {
    const auto first = f.prompt_template.find(prompt_slot);
    if (first == std::string::npos ||
        f.prompt_template.find(prompt_slot, first + 1) != std::string::npos)
      return "prompt_template: expected \"{prompt}\" once in the template, got \"" +
             f.prompt_template + "\"";
  }
  return "";
}

result<std::vector<task_item>> load_dataset(std::istream& in, const std::string& name,
                                            const verifier_registry* registry,
                                            std::vector<uint32_t>* lines,
                                            const dataset_format& format,
                                            dataset_mapping_counts* counts_out) {
  if (lines) lines->clear();
  if (const auto bad = check_dataset_format(format, "fields"); !bad.empty())
    return error{name + ": " + bad};
  if (registry && !format.verifier.empty())
    if (auto found = registry->find(format.verifier); !found)
      return error{name + ": the verifier for lines without one: " + found.err().message};
  if (registry)
    for (const auto& [source, verifier] : format.source_verifiers)
      if (auto found = registry->find(verifier); !found)
        return error{name + ": the verifier of data_source " + json_quoted(source) + ": " +
                     found.err().message};
  const bool mapped = !format.plain();
  dataset_mapping_counts counts;
  problems p{name, max_dataset_errors, {}};
  std::vector<task_item> items;
  std::unordered_map<std::string, uint32_t> first_line;  // id -> line
  std::string text;
  std::map<std::string, std::string> numbers;  // source text of number columns
  uint32_t line = 0;
  while (!p.full() && std::getline(in, text)) {
    ++line;
    if (blank_line(text)) continue;
    auto j = json_object_line(text, line, p, mapped ? &numbers : nullptr);
    if (!j) continue;
    if (mapped) {
      j = remapped(*j, format, line, counts, numbers, p);
      if (!j) continue;
    }
    task_item item;
    problems found{name, max_dataset_errors, {}};
    const bool ok = read_item(*j, line, registry, found, item);
    for (auto& problem : found.lines)
      if (!p.full()) p.lines.push_back(mapped ? named_by_column(problem, format) : problem);
    if (!item.id.empty()) {
      const auto [it, fresh] = first_line.emplace(item.id, line);
      if (!fresh) {
        p.add(line,
              "id " + json_quoted(item.id) + ": duplicate (first on line " + std::to_string(it->second) + ")");
        continue;
      }
    }
    if (ok && mapped) {
      if (!format.prompt_template.empty()) {
        std::string prompt = format.prompt_template;
        prompt.replace(prompt.find(prompt_slot), prompt_slot.size(), item.prompt);
        item.prompt = std::move(prompt);
      }
      if (item.verifier != "python" && item.verifier != "expr")
        item.answer = stated_answer(item.answer, counts);
    }
    if (ok) {
      items.push_back(std::move(item));
      if (lines) lines->push_back(line);
    }
  }
  if (in.bad()) p.lines.push_back(name + ": read error");
  if (p.full() && std::getline(in, text))
    p.lines.push_back(name + ": stopped after " + std::to_string(max_dataset_errors) +
                      " problems");
  if (p.lines.empty() && items.empty())
    p.lines.push_back(name + ": no items (the file is empty)");
  if (counts_out) *counts_out = counts;
  if (p.lines.empty()) return items;
  return p.joined();
}

result<std::vector<task_item>> load_dataset(const std::string& path,
                                            const verifier_registry* registry,
                                            std::vector<uint32_t>* lines,
                                            const dataset_format& format,
                                            dataset_mapping_counts* counts) {
  std::ifstream file(path);
  if (!file) return error{path + ": cannot open the file"};
  return load_dataset(file, path, registry, lines, format, counts);
}

std::string to_jsonl(const task_item& item) {
  nlohmann::ordered_json j;
  j["id"] = item.id;
  j["prompt"] = item.prompt;
  if (!item.system.empty()) j["system"] = item.system;
  j["answer"] = item.answer;
  j["task"] = item.task;
  j["verifier"] = item.verifier;
  if (!item.tests.empty()) j["tests"] = item.tests;
  if (item.difficulty != 0) j["difficulty"] = item.difficulty;
  if (!item.solution.empty()) j["solution"] = item.solution;
  return j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

result<std::size_t> write_dataset(const std::string& path,
                                  const std::vector<task_item>& items) {
  std::string text;
  for (const auto& item : items) text += to_jsonl(item) + '\n';
  if (auto ok = write_file_atomic(path, text); !ok) return ok.err();
  return items.size();
}

}  // namespace adarl
