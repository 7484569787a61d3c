#pragma once
// Reinforce-Ada-Seq: rounds until a prompt shows the signal its exit rule asks for.

#include <vector>

#include "algorithms/sample_pool.hpp"
#include "algorithms/step_strategy.hpp"
#include "algorithms/visit_skips.hpp"

namespace adarl {

/// Reinforce-Ada-Seq (docs/algorithm.md "Reinforce-Ada-Seq"): each prompt draws rounds of M samples;
/// the moment a prompt's round is fully verified its exit rule is tested on the whole
/// pool, and either the prompt finishes or its next round is requested at once. After
/// N rounds a prompt falls back and is kept. Groups are balanced-down-sampled to n;
/// advantages are r_i - p_hat with p_hat = positives / pool size over this step's whole
/// pool; optional std normalisation and explicit f'(p_hat) weight.
/// O(1) per accepted result, O(pool) when a round completes.
class seq_strategy final : public step_strategy {
 public:
  explicit seq_strategy(seq_config config);

  void start(std::span<const prompt_entry> prompts, decisions& out) override;
  result_status on_result(const sample_result& r, decisions& out) override;
  /// Replacements for skipped prompts (seq_config::skip_below), as DAPO's extra prompts.
  void add_prompts(std::span<const prompt_entry> extra, decisions& out) override;
  bool done() const override { return active_ == 0 && draws_.wanted() == 0; }
  uint64_t samples_accepted() const override { return accepted_; }

 private:
  struct prompt_state {
    uint64_t id = 0;
    beta_posterior prior;  ///< The tracker's belief at step start.
    sample_pool pool;
    uint32_t rounds = 0;
    bool finished = false;
  };

  /// Adds one prompt: its first round, or (informed) a skipped group and a request
  /// for a replacement.
  void add(const prompt_entry& e, decisions& out);
  /// The prompt's signal chance with `rounds_left` more rounds, its pool so far counted.
  double chance(const prompt_state& p, uint32_t rounds_left) const;
  void round_complete(prompt_slot slot, decisions& out);
  finished_group make_group(prompt_slot slot, exit_kind exit) const;

  seq_config config_;
  uint32_t k_pos_ = 1;
  uint32_t k_neg_ = 0;
  std::vector<prompt_state> prompts_;
  uint32_t active_ = 0;  ///< Invariant: number of prompts with finished == false.
  replacement_draws draws_;  ///< Replacements of skipped visits.
  uint64_t accepted_ = 0;
};

}  // namespace adarl
