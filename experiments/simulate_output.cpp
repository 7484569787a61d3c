#include "experiments/simulate_output.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <sstream>

#include "base/atomic_file.hpp"

namespace adarl {
namespace {

std::string fixed(double v, int digits) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(digits) << v;
  return s.str();
}

std::string count_or_never(std::optional<double> v) {
  return v ? std::to_string(std::llround(*v)) : "never";
}

std::string samples_cell(const strategy_result& r) {
  const auto as_double = [](std::optional<uint64_t> v) -> std::optional<double> {
    if (!v) return std::nullopt;
    return static_cast<double>(*v);
  };
  return count_or_never(r.median_samples) + " [" +
         count_or_never(as_double(r.min_samples)) + ", " +
         count_or_never(as_double(r.max_samples)) + "]";
}

std::string seeds_text(const std::vector<uint64_t>& seeds) {
  std::string s;
  for (auto v : seeds) s += (s.empty() ? "" : " ") + std::to_string(v);
  return s;
}

}  // namespace

void print_simulate_table(std::ostream& out, const simulate_config& c,
                          const std::vector<strategy_result>& rows) {
  out << "simulate: " << c.prompts << " prompts (+" << c.held_out << " held out), batch "
      << c.batch_prompts << ", budget " << c.total_samples << " samples, target "
      << fixed(c.target_pass_rate, 2) << ", seeds " << seeds_text(c.seeds)
      << "; model mean_logit " << c.model.mean_logit << " sd_logit " << c.model.sd_logit
      << " optimizer " << sim_optimizer_name(c.model.optimizer);
  if (c.model.optimizer == sim_optimizer::adam)
    out << " adam_shared_lr " << c.model.adam_shared_lr << " adam_prompt_lr "
        << c.model.adam_prompt_lr << "\n";
  else
    out << " shared_lr " << c.model.shared_lr << " prompt_lr " << c.model.prompt_lr
        << "\n";
  std::vector<std::vector<std::string>> cells;
  cells.push_back({"strategy", "reached", "samples to target [min, max]",
                   "vs " + c.baseline, "steps to target", "train", "held-out", "zero-grad", "wasted",
                   "samples/prompt"});
  for (const auto& r : rows)
    cells.push_back(
        {r.name, std::to_string(r.reached) + "/" + std::to_string(r.runs.size()),
         samples_cell(r), r.ratio ? fixed(*r.ratio, 2) : "n/a",
         count_or_never(r.median_steps), fixed(r.final_train, 3),
         fixed(r.final_held_out, 3), fixed(r.zero_gradient_fraction, 3),
         fixed(r.wasted_fraction, 3), fixed(r.samples_per_prompt, 2)});
  std::vector<size_t> width(cells[0].size(), 0);
  for (const auto& row : cells)
    for (size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  for (const auto& row : cells) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      const std::string pad(width[i] - row[i].size(), ' ');
      // The name is left-aligned, the numbers right-aligned.
      line += i == 0 ? row[i] + pad : "  " + pad + row[i];
    }
    out << line << "\n";
  }
}

namespace {

using nlohmann::json;

template <class T>
json or_null(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

json config_json(const simulate_config& c) {
  json strategies = json::array();
  for (const auto& s : c.strategies)
    strategies.push_back({{"name", s.name}, {"kind", strategy_name(s.config.kind)}});
  return {{"seeds", c.seeds},
          {"prompts", c.prompts},
          {"held_out", c.held_out},
          {"batch_prompts", c.batch_prompts},
          {"total_samples", c.total_samples},
          {"target_pass_rate", c.target_pass_rate},
          {"baseline", c.baseline},
          {"model",
           {{"mean_logit", c.model.mean_logit},
            {"sd_logit", c.model.sd_logit},
            {"optimizer", sim_optimizer_name(c.model.optimizer)},
            {"shared_lr", c.model.shared_lr},
            {"prompt_lr", c.model.prompt_lr},
            {"adam_shared_lr", c.model.adam_shared_lr},
            {"adam_prompt_lr", c.model.adam_prompt_lr}}},
          {"estimator",
           {{"lambda", c.estimator.lambda},
            {"alpha", c.estimator.alpha},
            {"beta", c.estimator.beta}}},
          {"strategies", strategies}};
}

json row_json(const strategy_result& r) {
  return {{"name", r.name},
          {"seeds", r.runs.size()},
          {"reached", r.reached},
          {"median_samples_to_target", or_null(r.median_samples)},
          {"median_steps_to_target", or_null(r.median_steps)},
          {"min_samples_to_target", or_null(r.min_samples)},
          {"max_samples_to_target", or_null(r.max_samples)},
          {"ratio_vs_baseline", or_null(r.ratio)},
          {"final_train_pass_rate", r.final_train},
          {"final_held_out_pass_rate", r.final_held_out},
          {"zero_gradient_fraction", r.zero_gradient_fraction},
          {"wasted_fraction", r.wasted_fraction},
          {"samples_per_prompt", r.samples_per_prompt}};
}

json run_json(const std::string& name, const seed_run& run) {
  // Column arrays: about half the size of an array of objects.
  json curve = {{"step", json::array()},          {"samples", json::array()},
                {"train", json::array()},         {"held_out", json::array()},
                {"zero_gradient", json::array()}, {"samples_per_prompt", json::array()}};
  for (const auto& p : run.curve) {
    curve["step"].push_back(p.step);
    curve["samples"].push_back(p.samples);
    curve["train"].push_back(p.train_pass_rate);
    curve["held_out"].push_back(p.held_out_pass_rate);
    curve["zero_gradient"].push_back(p.zero_gradient_fraction);
    curve["samples_per_prompt"].push_back(p.samples_per_prompt);
  }
  return {{"strategy", name},
          {"seed", run.seed},
          {"samples_to_target", or_null(run.samples_to_target)},
          {"steps_to_target", or_null(run.steps_to_target)},
          {"samples", run.samples},
          {"groups", run.groups},
          {"wasted_samples", run.wasted_samples},
          {"curve", curve}};
}

}  // namespace

std::string simulate_json(const simulate_config& c,
                          const std::vector<strategy_result>& rows) {
  json table = json::array(), runs = json::array();
  for (const auto& r : rows) {
    table.push_back(row_json(r));
    for (const auto& run : r.runs) runs.push_back(run_json(r.name, run));
  }
  return json{{"config", config_json(c)}, {"table", table}, {"runs", runs}}.dump();
}

result<bool> write_simulate_json(const std::string& file, const simulate_config& config,
                                 const std::vector<strategy_result>& rows) {
  return write_file_atomic(file, simulate_json(config, rows) + "\n");
}

}  // namespace adarl
