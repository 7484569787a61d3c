#pragma once
// Per-prompt pass-rate estimates: Beta posteriors, the discounted table that outlives
// a step, its save and restore.

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "base/result.hpp"

namespace adarl {

/// A Beta(a, b) belief about a prompt's pass rate: a = pseudo-successes, b =
/// pseudo-failures. Strategies receive one per prompt at step start and may add the
/// outcomes they see during the step (online Est).
struct beta_posterior {
  double a = 1.0;
  double b = 1.0;

  /// Posterior mean a / (a + b). Invariant: a > 0 and b > 0, so the mean is in (0, 1).
  double mean() const { return a / (a + b); }
  /// The posterior after k more successes out of n more samples.
  beta_posterior with(double n, double k) const { return {a + k, b + (n - k)}; }
  /// A belief with mean p and total pseudo-count `strength` (p is clamped to
  /// [1e-6, 1 - 1e-6] so that both parameters stay positive).
  static beta_posterior from_mean(double p, double strength);
};

/// Parameters of the discounted Beta-Bernoulli estimator (Ada-EMA, docs/algorithm.md "Reinforce-Ada-Est").
/// The paper gives no values; these defaults are ours: lambda 0.9 forgets about half of
/// the evidence after 7 updates, and alpha = beta = 1 (a uniform prior) gives an unseen
/// prompt p_hat = 0.5 and keeps every estimate strictly inside (0, 1).
struct beta_ema_params {
  double lambda = 0.9;  ///< Discount per update, in (0, 1].
  double alpha = 1.0;   ///< Prior pseudo-successes, > 0.
  double beta = 1.0;    ///< Prior pseudo-failures, > 0.
};

/// Discounted counts of one prompt. 8 bytes: floats suffice for counts that decay.
struct beta_ema_counts {
  float n_tot = 0.f;  ///< lambda-discounted number of samples. Invariant: >= n_pos >= 0.
  float n_pos = 0.f;  ///< lambda-discounted number of successes.
};

/// Folds one step's outcome (n samples, k successes) into the counts:
/// N_tot = lambda*N_tot + n, N_pos = lambda*N_pos + k. O(1).
beta_ema_counts update(const beta_ema_counts& c, const beta_ema_params& p, uint32_t n,
                       uint32_t k);

/// The posterior Beta(N_pos + alpha, N_tot - N_pos + beta) of given counts; its mean is
/// p_hat = (N_pos + alpha) / (N_tot + alpha + beta).
beta_posterior posterior(const beta_ema_counts& c, const beta_ema_params& p);

/// One saved row of a pass_rate_table.
struct pass_rate_row {
  uint64_t prompt = 0;
  beta_ema_counts counts;
};

/// Persistent per-prompt pass-rate statistics across steps and epochs, keyed by prompt
/// id. Not thread-safe: one owner (the tracker) updates it. Lookups and updates are
/// O(1) on average; an unseen prompt has the prior alone.
class pass_rate_table {
 public:
  explicit pass_rate_table(beta_ema_params params = {});

  /// Records that `prompt` got n samples with k successes in one step. Precondition: k <= n.
  void update(uint64_t prompt, uint32_t n, uint32_t k);
  /// The prompt's current posterior (the prior alone if never updated).
  beta_posterior posterior_of(uint64_t prompt) const;
  /// p_hat of the prompt.
  double estimate(uint64_t prompt) const { return posterior_of(prompt).mean(); }
  /// p_hat the prompt would have after update(prompt, n, k), without changing the table.
  double estimate_after(uint64_t prompt, uint32_t n, uint32_t k) const;
  /// The prompt's counts, or nothing when it has none (the prior alone).
  const beta_ema_counts* find(uint64_t prompt) const;
  /// Sets the prompt's counts (`counts` present) or forgets them (absent): undoes an
  /// update() when given the row find() returned before it. O(1) on average.
  void set(uint64_t prompt, const beta_ema_counts* counts);
  /// Number of prompts with statistics.
  size_t size() const { return counts_.size(); }
  const beta_ema_params& params() const { return params_; }

  /// The whole state, sorted by prompt id (so equal tables save equal rows).
  std::vector<pass_rate_row> save() const;
  /// Replaces the state with saved rows; rejects negative or inconsistent counts and
  /// duplicate ids, naming the offending row, and leaves the table unchanged then.
  result<bool> restore(const std::vector<pass_rate_row>& rows);

 private:
  beta_ema_params params_;
  std::unordered_map<uint64_t, beta_ema_counts> counts_;
};

}  // namespace adarl
