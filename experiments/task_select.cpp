#include "experiments/task_select.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "base/atomic_file.hpp"
#include "base/random_keys.hpp"
#include "tasks/dataset.hpp"

namespace adarl {

std::string check_window(const select_window& w) {
  if (w.k == 0) return "--k: expected a positive number of samples per prompt, got 0";
  if (w.max_correct > w.k)
    return "--max-correct: expected at most --k (" + std::to_string(w.k) + "), got " +
           std::to_string(w.max_correct);
  if (w.min_correct > w.max_correct)
    return "--min-correct: expected at most --max-correct (" + std::to_string(w.max_correct) +
           "), got " + std::to_string(w.min_correct);
  return "";
}

uint32_t correct_of(double mean_reward, uint32_t k) {
  if (!(mean_reward > 0)) return 0;
  const double c = std::round(mean_reward * double(k));
  return c >= double(k) ? k : uint32_t(c);
}

bool in_window(uint32_t correct, const select_window& w) {
  return correct >= w.min_correct && correct <= w.max_correct;
}

std::vector<uint64_t> pass_histogram(std::span<const uint32_t> correct, uint32_t k) {
  std::vector<uint64_t> h(size_t(k) + 1, 0);
  for (uint32_t c : correct) ++h[std::min(c, k)];
  return h;
}

std::string histogram_text(std::span<const uint64_t> h, const select_window& w) {
  uint64_t most = 1, total = 0, kept = 0;
  for (uint64_t n : h) most = std::max(most, n);
  std::string out = "correct  pass rate  prompts\n";
  for (size_t c = 0; c < h.size(); ++c) {
    const bool keep = in_window(uint32_t(c), w);
    total += h[c];
    kept += keep ? h[c] : 0;
    char line[96];
    std::snprintf(line, sizeof line, "%3zu/%-3u  %.3f  %6llu  ", c, w.k,
                  w.k ? double(c) / w.k : 0.0, static_cast<unsigned long long>(h[c]));
    out += line + std::string(size_t(40.0 * double(h[c]) / double(most) + 0.5), '#') +
           (keep ? "  kept" : "") + "\n";
  }
  char line[128];
  std::snprintf(line, sizeof line, "kept %llu of %llu prompts (%u to %u of %u right)\n",
                static_cast<unsigned long long>(kept), static_cast<unsigned long long>(total),
                w.min_correct, w.max_correct, w.k);
  return out + line;
}

std::string select_cache_key(const std::string& policy, const select_pool& pool,
                             const select_window& w) {
  std::ostringstream s;
  s << "select-v1|" << policy << '|' << pool.source << '|' << pool.split << '|' << pool.seed
    << '|' << pool.count << '|';
  for (double m : pool.difficulty_mix) s << m << ' ';
  s << '|' << pool.sampling << '|' << w.k << ' ' << w.min_correct << ' ' << w.max_correct
    << '|' << pool.items;
  uint64_t h = 0x9e3779b97f4a7c15ull;
  for (char ch : s.str()) h = mix_keys(h, uint64_t(uint8_t(ch)));
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

selection select_in_window(const std::vector<task_item>& pool, std::span<const uint32_t> correct,
                           const select_window& w, size_t limit) {
  selection s;
  s.window = w;
  s.pool = pool.size();
  s.histogram = pass_histogram(correct, w.k);
  for (size_t i = 0; i < pool.size() && i < correct.size(); ++i) {
    if (!in_window(correct[i], w)) continue;
    if (limit && s.kept.size() >= limit) break;
    s.kept.push_back({pool[i], correct[i]});
  }
  return s;
}

std::string selected_jsonl(const selected_item& s, uint32_t k) {
  auto j = nlohmann::json::parse(to_jsonl(s.item));
  j["pass_rate"] = k ? double(s.correct) / double(k) : 0.0;
  j["correct"] = s.correct;
  j["samples"] = k;
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

result<bool> write_selected(const std::string& file, const selection& s) {
  std::string text;
  for (const auto& x : s.kept) text += selected_jsonl(x, s.window.k) + "\n";
  return write_file_atomic(file, text);
}

result<bool> write_selection_cache(const std::string& dir, const selection& s) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return error{dir + ": cannot create the directory: " + ec.message()};
  if (auto ok = write_selected(dir + "/selected.jsonl", s); !ok) return ok.err();
  nlohmann::json j{{"k", s.window.k},
                   {"min_correct", s.window.min_correct},
                   {"max_correct", s.window.max_correct},
                   {"pool", s.pool},
                   {"kept", s.kept.size()},
                   {"histogram", s.histogram}};
  return write_file_atomic(dir + "/selection.json", j.dump(1) + "\n");
}

result<selection> read_selection_cache(const std::string& dir) {
  const std::string meta = dir + "/selection.json";
  std::ifstream f(meta);
  if (!f) return error{meta + ": cannot open the selection"};
  const auto j = nlohmann::json::parse(f, nullptr, /*allow_exceptions=*/false);
  selection s;
  try {
    s.window = {j.at("k").get<uint32_t>(), j.at("min_correct").get<uint32_t>(),
                j.at("max_correct").get<uint32_t>()};
    s.pool = j.at("pool").get<uint64_t>();
    s.histogram = j.at("histogram").get<std::vector<uint64_t>>();
    const auto kept = j.at("kept").get<size_t>();
    if (s.histogram.size() != size_t(s.window.k) + 1)
      return error{meta + ": histogram: expected " + std::to_string(s.window.k + 1) + " entries"};
    if (kept == 0) return s;
    auto items = load_dataset(dir + "/selected.jsonl");
    if (!items) return items.err();
    if (items->size() != kept)
      return error{dir + "/selected.jsonl: expected " + std::to_string(kept) + " prompts, got " +
                   std::to_string(items->size())};
    std::ifstream lines(dir + "/selected.jsonl");
    size_t i = 0;
    for (std::string line; std::getline(lines, line);) {
      if (line.empty()) continue;
      const auto l = nlohmann::json::parse(line);
      s.kept.push_back({(*items)[i++], l.at("correct").get<uint32_t>()});
    }
  } catch (const std::exception& e) {
    return error{meta + ": corrupt selection (" + e.what() + ")"};
  }
  return s;
}

}  // namespace adarl
