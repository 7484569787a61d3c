#include "report/run_report.hpp"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "base/atomic_file.hpp"
#include "base/json_lines.hpp"
#include "base/run_config_file.hpp"
#include "report/report.hpp"
#include "report/run_facts.hpp"
#include "report/run_page.hpp"

namespace adarl {

namespace {

using json = nlohmann::json;

/// config.json's values (KEY.PATH -> text); an empty object when the file is missing.
result<json> read_config_values(const std::string& dir) {
  const std::string file = dir + "/config.json";
  if (!std::filesystem::exists(file)) return json::object();
  auto values = read_run_config(file);
  if (!values) return values.err();
  return json(*values);
}

/// The config's seed as a number; null when the config has none or it is not a count.
json seed_of(const json& config) {
  const auto s = config.find("seed");
  if (s == config.end()) return nullptr;
  const std::string text = s->get<std::string>();
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos ||
      text.size() > 19)
    return nullptr;
  return std::stoull(text);
}

std::string name_of(const json& config, const std::string& dir) {
  if (const auto n = config.find("name");
      n != config.end() && !n->get<std::string>().empty())
    return n->get<std::string>();
  const std::string base =
      std::filesystem::path(dir).lexically_normal().filename().string();
  return base.empty() || base == "." ? "run" : base;
}

}  // namespace

result<json> run_report_data(const std::string& dir, const run_report_options& o) {
  std::string torn_steps, torn_evals;
  auto steps = read_json_lines(dir + "/metrics.jsonl", /*missing_ok=*/false, &torn_steps);
  if (!steps) return steps.err();
  auto evals = read_json_lines(dir + "/eval.jsonl", /*missing_ok=*/true, &torn_evals);
  if (!evals) return evals.err();
  auto config = read_config_values(dir);
  if (!config) return config.err();
  json data = run_facts(*steps, std::move(*evals), o);
  data["kind"] = "run";
  data["title"] = o.title.empty() ? "adarl report: " + dir : o.title;
  data["dir"] = dir;
  data["name"] = name_of(*config, dir);
  data["seed"] = seed_of(*config);
  data["strategy"] = run_strategy_kind(*config, data["exits"]);
  data["config"] = std::move(*config);
  for (const auto* torn : {&torn_steps, &torn_evals})
    if (!torn->empty()) data["warnings"].push_back(*torn);
  return data;
}

bool is_run_data(const json& data) {
  if (!data.is_object()) return false;
  const auto k = data.find("kind");
  return k != data.end() && *k == "run";
}

result<std::string> write_report_page(const std::string& dir, const json& data) {
  std::string html;
  try {
    html = is_run_data(data) ? run_page_html(data) : report_html(data);
  } catch (const std::exception& e) {
    return error{dir + ": " + e.what()};
  }
  const std::string out = dir + "/report.html";
  if (auto ok = write_file_atomic(out, html); !ok) return ok.err();
  return out;
}

}  // namespace adarl
