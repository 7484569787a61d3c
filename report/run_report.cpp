#include "report/run_report.hpp"

#include <filesystem>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "report/compare.hpp"
#include "report/report.hpp"
#include "tasks/atomic_file.hpp"

namespace adarl {

result<nlohmann::json> run_report_data(const std::string& dir, const run_report_options& o) {
  compare_settings s;
  s.title = o.title.empty() ? "adarl report: " + dir : o.title;
  s.heldout_metric = o.metric;
  s.target_heldout = o.target_heldout;
  s.target_reward = o.target_reward;
  s.smooth = o.smooth;
  compare_run r;
  r.strategy = std::filesystem::path(dir).filename().string();
  if (r.strategy.empty()) r.strategy = "run";
  s.baseline = r.strategy;
  r.seed = 0;
  r.config.out = dir;
  return collect_compare(s, {r.strategy}, {r});
}

result<std::string> write_report_page(const std::string& dir, const nlohmann::json& data) {
  std::string html;
  try {
    html = report_html(data);
  } catch (const std::exception& e) {
    return error{dir + ": " + e.what()};
  }
  const std::string out = dir + "/report.html";
  if (auto ok = write_file_atomic(out, html); !ok) return ok.err();
  return out;
}

}  // namespace adarl
