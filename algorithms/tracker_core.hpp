#pragma once
// The difficulty tracker's logic without actors: steps, leases, the lag gate and the
// strategy, event by event.

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "algorithms/budget_ledger.hpp"
#include "algorithms/lag_gate.hpp"
#include "algorithms/pass_rate.hpp"
#include "algorithms/pass_rate_predictor.hpp"
#include "algorithms/prompt_order.hpp"
#include "algorithms/step_strategy.hpp"
#include "algorithms/step_summary.hpp"
#include "base/result.hpp"

namespace adarl {

/// Settings of the difficulty tracker (docs/design.md "Asynchrony").
struct tracker_config {
  strategy_config strategy;
  uint32_t prompts_per_step = 32;  ///< Prompts drawn at the start of each step.
  uint64_t steps = 0;              ///< Steps to generate; 0 = no limit.
  /// Cumulative samples after which the run ends (at the end of the step that reaches
  /// it; the learner checks); 0 = none. `steps` stays a cap.
  uint64_t sample_budget = 0;
  /// With a sample budget: the run goes on past it until this many steps are trained
  /// (a comparison reads every run at equal steps and at equal samples); 0 = none.
  uint64_t min_steps = 0;
  lag_gate_config lag;             ///< Max policy lag (and exact mode).
  uint64_t lease_ns = 60'000'000'000;  ///< A request not answered within this is re-issued.
  bool sync_rounds = false;        ///< Barrier after each round (the reference's behaviour).
  uint64_t seed = 1;               ///< Keys the prompt order and every sample's stream.
  beta_ema_params pass_rate;       ///< Persistent per-prompt statistics.
  /// Where a prompt's prior comes from; `learned` waits for set_prompt_features().
  estimator_kind estimator = estimator_kind::ema;
  predictor_config predictor;      ///< The learned estimator's settings.
};

/// One sample to draw: what a generator needs besides the prompt's text.
struct work_item {
  uint64_t step = 0;
  prompt_slot slot = 0;
  uint32_t index = 0;      ///< Sample index within the prompt's pool of this step.
  uint64_t prompt_id = 0;
  uint64_t stream = 0;     ///< Random stream: mix_keys(seed, step, prompt_id, index).
};

/// One verified sample, back from a verifier.
struct work_result {
  uint64_t step = 0;
  prompt_slot slot = 0;
  uint32_t index = 0;
  float reward = 0.f;
  uint32_t tokens = 0;
  uint64_t version = 0;    ///< Policy version that drew it.
};

/// What became of a result.
enum class result_fate {
  accepted,   ///< Counted once.
  duplicate,  ///< A late copy of an answered request: dropped.
  stale,      ///< Its step is retired (trained) or unknown: dropped.
  rejected,   ///< The strategy never requested it: dropped.
};

/// A finished group with the step it belongs to.
struct step_group {
  uint64_t step = 0;
  finished_group group;
};

/// Counters of one step beyond the finished groups' summary.
struct step_counters {
  uint64_t results = 0;      ///< Results received, duplicates included (compute spent).
  uint64_t tokens = 0;       ///< Tokens of all results received.
  uint64_t duplicates = 0;
  uint64_t reissued = 0;     ///< Requests re-issued after their lease expired.
  uint64_t lag_sum = 0;      ///< Sum of the accepted samples' policy lag.
  uint64_t lag_max = 0;
  uint64_t opened_ns = 0;    ///< Clock when the step opened and when its generation ended.
  uint64_t done_ns = 0;
};

/// What one call decided, reused across calls.
struct tracker_output {
  std::vector<step_group> finished;   ///< Groups to hand to the learner.
  std::vector<uint64_t> steps_done;   ///< Steps whose generation just completed.
  void clear() {
    finished.clear();
    steps_done.clear();
  }
};

/// Persistent tracker state for checkpoints (what a resumed run continues from): the
/// state after the generation of steps < next_step, as if no later step had opened.
struct tracker_state {
  uint64_t next_step = 0;               ///< First step to open.
  uint64_t prompt_cursor = 0;           ///< prompt_order cursor when next_step opens.
  std::vector<pass_rate_row> pass_rates;  ///< Updated by every step < next_step, no later one.
  predictor_state predictor;            ///< The learned estimator, likewise (empty: none).
  /// The prompt features it was trained on (so that a resumed run predicts as the
  /// original did, whatever weights the features would be computed from now).
  std::vector<std::vector<float>> features;
  /// What the generated steps spent (algorithms/budget_ledger.hpp), one point per step
  /// kept, ascending, the last for next_step - 1: from the last step the learner had
  /// trained. Empty when no step was generated, and in checkpoints written before the
  /// ledger was kept (a resume then reads the totals from metrics.jsonl).
  std::vector<std::pair<uint64_t, budget_point>> budget;
};

/// Checks a saved state's budget points: ascending, each step's spending within the
/// totals through it, the last for next_step - 1. O(points).
result<bool> check_budget(const tracker_state& st);

/// The difficulty tracker's logic, without actors: it opens steps as the lag gate allows,
/// runs one step_strategy per open step, hands out work in order (re-issues first, then
/// the oldest step's requests), takes verified results in any order, re-issues requests
/// whose lease expired and drops late duplicates by (step, prompt slot, sample index).
/// Time is a parameter (nanoseconds on any monotonic clock).
///
/// Not thread-safe (one owner: the tracker actor). next_work is O(items + open steps);
/// on_result is O(1) plus the strategy's cost; expire is O(expired). Memory: the
/// pass-rate table (per prompt) plus O(samples issued) per open step, freed when the
/// step retires.
class tracker_core {
 public:
  /// Precondition: validate(config.strategy) is empty, prompts > 0.
  tracker_core(tracker_config config, uint64_t prompts);

  /// Appends up to `max` work items that may start now, given the learner's version.
  void next_work(uint32_t max, uint64_t learner_version, uint64_t now_ns,
                 std::vector<work_item>& out);

  /// Moves to `out` what steps finished when they opened (in next_work): the groups a
  /// strategy skipped at start and, when it skipped every prompt, the step itself. A
  /// caller that hands out work calls this after next_work, or the step's report never
  /// leaves. O(size moved).
  void take_started(tracker_output& out);

  /// Records one verified result; finished groups and completed steps go to `out`
  /// (after anything take_started() would move).
  result_fate on_result(const work_result& r, uint64_t now_ns, tracker_output& out);

  /// Requeues requests whose lease ended before `now_ns`; returns how many.
  uint32_t expire(uint64_t now_ns);
  /// Requeues one request now, as if its lease had ended (its generator is gone): true
  /// when it was out and is queued again; false for one answered, queued or unknown.
  bool reissue_now(uint64_t step, prompt_slot slot, uint32_t index);

  /// The learner reached `version` (trained steps < version): their state is dropped.
  void retire_through(uint64_t version);

  /// The oldest policy version that may draw a sample of `step` (the lag bound; in exact
  /// mode the one version it is pinned to).
  uint64_t min_version(uint64_t step) const;
  /// True when the configured number of steps has completed generation.
  bool generation_finished() const;
  /// Highest step whose generation is complete with all earlier ones (-1 if none).
  int64_t generated_through() const { return generated_through_; }
  /// Requests handed out and not yet answered, over all open steps.
  uint64_t in_flight() const;
  /// What generation waits for, in words, given the learner's version: the oldest open
  /// step's orders, or why the next step cannot open (e.g. "step 10 cannot open: the
  /// lag gate pins it to version 9 and the learner is at version 10"). "" when the
  /// configured steps are all generated. For a stall report; O(open steps).
  std::string waiting(uint64_t learner_version) const;
  /// Counters of an open (not yet retired) step; null otherwise.
  const step_counters* counters(uint64_t step) const;
  /// Summary of the finished groups of an open step; null otherwise.
  const step_summary* summary(uint64_t step) const;
  /// What a step spent and what every step through it spent (accepted samples and their
  /// tokens, charged to the budget ledger as they arrive): known once the step is
  /// generated with all earlier ones, kept until the learner is two versions past it;
  /// null otherwise. The one count of the budget: reports carry it, checkpoints keep it.
  const budget_point* spent(uint64_t step) const;

  /// The per-prompt statistics: updated by every step whose generation is complete
  /// with all earlier ones (through generated_through()), in step order, and by no
  /// other; a step's groups update it in slot order. So the estimates a step is opened
  /// with depend on which steps completed, never on the order results arrived in.
  const pass_rate_table& pass_rates() const { return table_; }
  /// The state to continue from after steps <= `through`: later steps will be generated
  /// again (their statistics are left out, the prompt cursor is where the first of them
  /// opened). Precondition: retired steps <= through <= generated_through(). O(prompts).
  tracker_state save(int64_t through) const;
  /// Restores a saved state; bad rows are an error and leave the tracker unchanged.
  /// A saved predictor is applied when the features arrive (set_prompt_features).
  result<bool> restore(const tracker_state& s);

  /// The features of the training prompts 0..prompts-1 (estimator learned): no step
  /// opens before they are set. Bad rows, or a restored predictor of another size, are
  /// an error and change nothing. Once set (or restored) they are kept: a later call
  /// changes nothing and returns false. O(prompts * dim).
  result<bool> set_prompt_features(const std::vector<std::vector<float>>& rows);
  /// True while the learned estimator waits for its features.
  bool awaiting_features() const {
    return config_.estimator == estimator_kind::learned && !predictor_.ready();
  }
  const pass_rate_predictor& predictor() const { return predictor_; }

 private:
  enum class lease_state : uint8_t { none, out, queued };
  struct lease {
    uint64_t deadline = 0;
    lease_state state = lease_state::none;  ///< queued: expired, waiting in `reissue_`.
  };
  struct finished_stats {
    prompt_slot slot = 0;
    uint64_t prompt = 0;
    uint32_t samples = 0;
    uint32_t positives = 0;
  };
  struct open_step {
    uint64_t step = 0;
    std::unique_ptr<step_strategy> strategy;
    std::vector<uint64_t> prompt_ids;           ///< By slot.
    std::vector<double> prior_means;            ///< By slot: p_hat when drawn.
    std::vector<double> ema_means;              ///< By slot: the Beta-EMA's p_hat then.
    std::vector<uint8_t> first_seen;            ///< By slot: no statistics when drawn.
    std::deque<sample_request> pending;         ///< Not yet handed out.
    std::vector<sample_request> held;           ///< sync_rounds: waiting for the barrier.
    std::vector<std::vector<lease>> leases;     ///< By slot, then sample index.
    uint64_t outstanding = 0;                   ///< Leases not `none`.
    std::deque<std::pair<uint64_t, uint64_t>> expiries;  ///< (deadline, key), ascending.
    uint64_t admitted = 0;                      ///< First issues (re-issues excluded).
    uint64_t cursor_at_open = 0;                ///< prompt_order cursor before its draws.
    /// Statistics of its finished groups, folded into the table when it commits.
    std::vector<finished_stats> updates;
    /// Rows the commit replaced, in commit order (save() undoes them).
    std::vector<std::pair<uint64_t, std::optional<beta_ema_counts>>> undo;
    /// The learned estimator before this step's fits (set by commit; save() rewinds).
    std::optional<predictor_state> predictor_before;
    bool done = false;
    step_summary summary;
    step_counters counters;
  };
  struct expiry {
    uint64_t deadline = 0;
    uint64_t step = 0;
    uint64_t key = 0;
  };

  open_step* find(uint64_t step);
  const open_step* find(uint64_t step) const;
  static lease* lease_of(open_step& s, prompt_slot slot, uint32_t index);
  bool open_next(uint64_t learner_version, uint64_t now_ns);
  /// Records a prompt drawn into `s` (its id, prior mean and whether it was new).
  void note_drawn(open_step& s, const prompt_entry& p) const;
  void apply(open_step& s, decisions& d, bool from_start, uint64_t now_ns, tracker_output& out);
  void issue(open_step& s, prompt_slot slot, uint32_t index, uint64_t now_ns,
             std::vector<work_item>& out);
  void release_barrier(open_step& s);
  // Folds a complete step's statistics into the table, in slot order.
  void commit(open_step& s);
  std::vector<prompt_entry> draw_prompts(uint32_t n, uint64_t step);

  tracker_config config_;
  lag_gate gate_;
  prompt_order order_;
  pass_rate_table table_;
  budget_ledger ledger_;                       ///< Charged by every accepted result.
  std::map<uint64_t, budget_point> spent_;     ///< Committed steps, newest trained on.
  pass_rate_predictor predictor_;
  predictor_state pending_predictor_;  ///< Restored, applied once features are set.
  std::vector<std::vector<float>> features_;  ///< As given to set_prompt_features.
  std::deque<open_step> steps_;  ///< Ascending step numbers, not yet retired.
  std::deque<expiry> reissue_;   ///< Expired requests to hand out again.
  uint64_t next_step_ = 0;
  int64_t generated_through_ = -1;
  decisions scratch_;
  tracker_output started_;  ///< Finished when opened, not yet taken (take_started).
};

}  // namespace adarl
