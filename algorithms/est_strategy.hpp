#pragma once

#include <vector>

#include "algorithms/budget_allocation.hpp"
#include "algorithms/sample_pool.hpp"
#include "algorithms/step_strategy.hpp"

namespace adarl {

/// Reinforce-Ada-Est (ALGORITHM.md section 4) and adarl's online variant (4b).
///
/// Offline: at start, N_x ~ f'(p_hat_x + eps)^s (1/sqrt(p_hat) for the default log
/// objective and s = 0.5), clipped to [n_min, n_max], summing exactly to the step
/// budget; all N_x are requested at once and every sample is trained on, with advantage
/// r - rbar_x and weight f'(rbar_x + eps)^(1-s) (1/sqrt(rbar) by default).
///
/// Online: the same plan, but at most `wave` requests per prompt are in flight; after
/// each accepted result the prompt's posterior takes in this step's outcomes so far and
/// the step budget is re-planned among unfinished prompts (never below what a prompt was
/// already given, never above n_max). A prompt whose plan is all verified is finished.
/// The step spends its budget exactly in both modes.
/// Offline: O(1) per result. Online: O(P) per result plus the bisection.
class est_strategy final : public step_strategy {
 public:
  est_strategy(est_config config, bool online);

  void start(std::span<const prompt_entry> prompts, decisions& out) override;
  result_status on_result(const sample_result& r, decisions& out) override;
  bool done() const override { return active_ == 0; }
  uint64_t samples_accepted() const override { return accepted_; }

  /// The step's budget (set by start).
  uint64_t budget() const { return budget_; }
  /// The current plan: samples each prompt will get.
  const std::vector<uint32_t>& plan() const { return plan_; }

 private:
  struct prompt_state {
    uint64_t id = 0;
    beta_posterior prior;
    sample_pool pool;
    uint32_t positives = 0;  ///< Accepted results with reward > threshold.
    bool finished = false;
  };

  double sampling_weight(double p) const;
  void replan();
  void top_up(prompt_slot slot, decisions& out);
  void try_finish(prompt_slot slot, decisions& out);
  finished_group make_group(prompt_slot slot) const;

  est_config config_;
  bool online_ = false;
  uint64_t budget_ = 0;
  std::vector<prompt_state> prompts_;
  std::vector<uint32_t> plan_;  ///< Invariant: sums to budget_; plan_[x] >= requested.
  std::vector<double> weights_;
  std::vector<allocation_bounds> bounds_;
  uint32_t active_ = 0;
  uint64_t accepted_ = 0;
};

}  // namespace adarl
