#include "algorithms/signal_chance.hpp"

#include <algorithm>
#include <cmath>

namespace adarl {

namespace {
// log B(x, y), the Beta function.
double log_beta(double x, double y) { return std::lgamma(x) + std::lgamma(y) - std::lgamma(x + y); }
}  // namespace

double signal_chance(const beta_posterior& belief, uint32_t pos, uint32_t neg, uint32_t more,
                     uint32_t need_pos, uint32_t need_neg) {
  const uint32_t want_pos = need_pos > pos ? need_pos - pos : 0;
  const uint32_t want_neg = need_neg > neg ? need_neg - neg : 0;
  if (want_pos + want_neg == 0) return 1.0;
  if (uint64_t{want_pos} + want_neg > more) return 0.0;
  // X ~ BetaBinomial(more, a, b): P(X = x) = C(more, x) B(x + a, more - x + b) / B(a, b).
  const double a = belief.a, b = belief.b, m = more;
  const double base = std::lgamma(m + 1) - log_beta(a, b);
  double total = 0;
  for (uint32_t x = want_pos; x + want_neg <= more; ++x)
    total += std::exp(base - std::lgamma(double(x) + 1) - std::lgamma(m - x + 1) +
                      log_beta(x + a, m - x + b));
  return std::clamp(total, 0.0, 1.0);
}

double mixed_chance(const beta_posterior& belief, uint32_t n) {
  if (n < 2) return 0.0;
  // P(all right) = B(a + n, b) / B(a, b), P(all wrong) = B(a, b + n) / B(a, b).
  const double a = belief.a, b = belief.b, base = log_beta(a, b);
  const double one_sided = std::exp(log_beta(a + n, b) - base) + std::exp(log_beta(a, b + n) - base);
  return std::clamp(1.0 - one_sided, 0.0, 1.0);
}

}  // namespace adarl
