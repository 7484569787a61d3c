#include "algorithms/pass_rate.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <unordered_set>

namespace adarl {

beta_posterior beta_posterior::from_mean(double p, double strength) {
  const double q = std::clamp(p, 1e-6, 1.0 - 1e-6);
  return {q * strength, (1.0 - q) * strength};
}

beta_ema_counts update(const beta_ema_counts& c, const beta_ema_params& p, uint32_t n,
                       uint32_t k) {
  const auto lambda = static_cast<float>(p.lambda);
  return {lambda * c.n_tot + static_cast<float>(n), lambda * c.n_pos + static_cast<float>(k)};
}

beta_posterior posterior(const beta_ema_counts& c, const beta_ema_params& p) {
  const double pos = c.n_pos;
  const double neg = std::max(0.0, static_cast<double>(c.n_tot) - pos);
  return {pos + p.alpha, neg + p.beta};
}

pass_rate_table::pass_rate_table(beta_ema_params params) : params_(params) {}

void pass_rate_table::update(uint64_t prompt, uint32_t n, uint32_t k) {
  auto& c = counts_[prompt];
  c = adarl::update(c, params_, n, k);
}

beta_posterior pass_rate_table::posterior_of(uint64_t prompt) const {
  auto it = counts_.find(prompt);
  return posterior(it == counts_.end() ? beta_ema_counts{} : it->second, params_);
}

double pass_rate_table::estimate_after(uint64_t prompt, uint32_t n, uint32_t k) const {
  const beta_ema_counts* c = find(prompt);
  return posterior(adarl::update(c ? *c : beta_ema_counts{}, params_, n, k), params_).mean();
}

const beta_ema_counts* pass_rate_table::find(uint64_t prompt) const {
  auto it = counts_.find(prompt);
  return it == counts_.end() ? nullptr : &it->second;
}

void pass_rate_table::set(uint64_t prompt, const beta_ema_counts* counts) {
  if (counts)
    counts_[prompt] = *counts;
  else
    counts_.erase(prompt);
}

std::vector<pass_rate_row> pass_rate_table::save() const {
  std::vector<pass_rate_row> rows;
  rows.reserve(counts_.size());
  for (const auto& [id, c] : counts_) rows.push_back({id, c});
  std::sort(rows.begin(), rows.end(),
            [](const auto& x, const auto& y) { return x.prompt < y.prompt; });
  return rows;
}

result<bool> pass_rate_table::restore(const std::vector<pass_rate_row>& rows) {
  std::unordered_set<uint64_t> seen;
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    const bool finite = std::isfinite(r.counts.n_tot) && std::isfinite(r.counts.n_pos);
    if (!finite || r.counts.n_pos < 0 || r.counts.n_tot < r.counts.n_pos)
      return error{"pass-rate row " + std::to_string(i) + " (prompt " +
                   std::to_string(r.prompt) + "): expected 0 <= n_pos <= n_tot"};
    if (!seen.insert(r.prompt).second)
      return error{"pass-rate row " + std::to_string(i) + ": duplicate prompt " +
                   std::to_string(r.prompt)};
  }
  counts_.clear();
  counts_.reserve(rows.size());
  for (const auto& r : rows) counts_.emplace(r.prompt, r.counts);
  return true;
}

}  // namespace adarl
