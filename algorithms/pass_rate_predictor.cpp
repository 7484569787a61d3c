#include "algorithms/pass_rate_predictor.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace adarl {

namespace {
constexpr double adam_beta1 = 0.9, adam_beta2 = 0.999, adam_eps = 1e-8;
double sigmoid(double z) { return 1.0 / (1.0 + std::exp(-z)); }
}  // namespace

pass_rate_predictor::pass_rate_predictor(predictor_config c) : config_(c) {}

result<bool> pass_rate_predictor::set_features(const std::vector<std::vector<float>>& rows) {
  if (rows.empty() || rows[0].empty()) return error{"no prompt features"};
  const size_t d = rows[0].size();
  std::vector<double> mean(d, 0.0), sq(d, 0.0);
  for (size_t r = 0; r < rows.size(); ++r) {
    if (rows[r].size() != d)
      return error{"prompt " + std::to_string(r) + " has " + std::to_string(rows[r].size()) +
                   " features, the first has " + std::to_string(d)};
    for (size_t j = 0; j < d; ++j) {
      if (!std::isfinite(rows[r][j]))
        return error{"prompt " + std::to_string(r) + ": feature " + std::to_string(j) +
                     " is not finite"};
      mean[j] += rows[r][j];
    }
  }
  for (auto& m : mean) m /= double(rows.size());
  for (const auto& row : rows)
    for (size_t j = 0; j < d; ++j) sq[j] += (row[j] - mean[j]) * (row[j] - mean[j]);
  features_.resize(rows.size() * d);
  for (size_t r = 0; r < rows.size(); ++r)
    for (size_t j = 0; j < d; ++j) {
      const double sd = std::sqrt(sq[j] / double(rows.size()));
      // A constant feature carries nothing: it stays 0 rather than dividing by 0.
      features_[r * d + j] = sd > 1e-12 ? float((rows[r][j] - mean[j]) / sd) : 0.f;
    }
  if (d != dim_) {
    dim_ = d;
    state_ = {std::vector<double>(d + 1, 0.0), std::vector<double>(d + 1, 0.0),
              std::vector<double>(d + 1, 0.0), 0};
  }
  return true;
}

double pass_rate_predictor::logit(uint64_t id) const {
  const float* x = features_.data() + id * dim_;
  double z = state_.weights[dim_];
  for (size_t j = 0; j < dim_; ++j) z += state_.weights[j] * x[j];
  return z;
}

double pass_rate_predictor::predict(uint64_t id) const {
  if (!ready() || id >= features_.size() / dim_) return 0.5;
  return std::clamp(sigmoid(logit(id)), 1e-4, 1.0 - 1e-4);
}

beta_posterior pass_rate_predictor::prior(uint64_t id, const beta_ema_counts* counts) const {
  const double p = predict(id), s = config_.prior_strength;
  beta_posterior b{s * p, s * (1.0 - p)};
  if (counts) b = b.with(counts->n_tot, counts->n_pos);
  return b;
}

void pass_rate_predictor::fit(uint64_t id, uint32_t n, uint32_t k) {
  if (!ready() || n == 0 || id >= features_.size() / dim_) return;
  const float* x = features_.data() + id * dim_;
  const double y = double(k) / double(n);
  auto& st = state_;
  for (uint32_t step = 0; step < config_.steps_per_group; ++step) {
    const double err = sigmoid(logit(id)) - y;  // d(mean log loss)/d(logit)
    ++st.updates;
    const double c1 = 1.0 - std::pow(adam_beta1, double(st.updates));
    const double c2 = 1.0 - std::pow(adam_beta2, double(st.updates));
    for (size_t j = 0; j <= dim_; ++j) {
      const bool bias = j == dim_;
      const double g = err * (bias ? 1.0 : x[j]) + (bias ? 0.0 : config_.l2 * st.weights[j]);
      st.m[j] = adam_beta1 * st.m[j] + (1 - adam_beta1) * g;
      st.v[j] = adam_beta2 * st.v[j] + (1 - adam_beta2) * g * g;
      st.weights[j] -= config_.learning_rate * (st.m[j] / c1) / (std::sqrt(st.v[j] / c2) + adam_eps);
    }
  }
}

result<bool> pass_rate_predictor::restore(const predictor_state& s) {
  const size_t want = dim_ + 1;
  if (s.weights.size() != want || s.m.size() != want || s.v.size() != want)
    return error{"predictor state has " + std::to_string(s.weights.size()) +
                 " weights, the features need " + std::to_string(want)};
  for (size_t j = 0; j < want; ++j)
    if (!std::isfinite(s.weights[j]) || !std::isfinite(s.m[j]) || !std::isfinite(s.v[j]) ||
        s.v[j] < 0)
      return error{"predictor state: entry " + std::to_string(j) + " is not usable"};
  state_ = s;
  return true;
}

}  // namespace adarl
