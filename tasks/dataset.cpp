#include "tasks/jsonl_text.hpp"
#include "tasks/dataset.hpp"
#include "tasks/atomic_file.hpp"

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

}  // namespace

result<std::vector<task_item>> load_dataset(std::istream& in, const std::string& name,
                                            const verifier_registry* registry,
                                            std::vector<uint32_t>* lines) {
  if (lines) lines->clear();
  problems p{name, max_dataset_errors, {}};
  std::vector<task_item> items;
  std::unordered_map<std::string, uint32_t> first_line;  // id -> line
  std::string text;
  uint32_t line = 0;
  while (!p.full() && std::getline(in, text)) {
    ++line;
    if (blank_line(text)) continue;
    const auto j = json_object_line(text, line, p);
    if (!j) continue;
    task_item item;
    const bool ok = read_item(*j, line, registry, p, item);
    if (!item.id.empty()) {
      const auto [it, fresh] = first_line.emplace(item.id, line);
      if (!fresh) {
        p.add(line,
              "id " + json(item.id).dump(-1, ' ', false, json::error_handler_t::replace) +
                  ": duplicate (first on line " + std::to_string(it->second) + ")");
        continue;
      }
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
  if (p.lines.empty()) return items;
  return p.joined();
}

result<std::vector<task_item>> load_dataset(const std::string& path,
                                            const verifier_registry* registry,
                                            std::vector<uint32_t>* lines) {
  std::ifstream file(path);
  if (!file) return error{path + ": cannot open the file"};
  return load_dataset(file, path, registry, lines);
}

std::string to_jsonl(const task_item& item) {
  nlohmann::ordered_json j;
  j["id"] = item.id;
  j["prompt"] = item.prompt;
  j["answer"] = item.answer;
  j["task"] = item.task;
  j["verifier"] = item.verifier;
  if (!item.tests.empty()) j["tests"] = item.tests;
  if (item.difficulty != 0) j["difficulty"] = item.difficulty;
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
