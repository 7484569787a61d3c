#pragma once
// The policy-lag gate: may a sample for step t start, given the learner's version and
// the lag bound k (exact in deterministic runs).

#include <cstdint>

namespace adarl {

/// Parameters of the policy-lag gate.
struct lag_gate_config {
  uint32_t max_lag = 1;           ///< k: samples for step t may use versions >= t - k.
  uint64_t max_step_samples = 0;  ///< Samples admitted per step; 0 = no cap.
  bool exact = false;             ///< Deterministic mode: step t uses version max(0, t-k).
  /// Exact mode: the oldest version the run can draw with (the version a resumed run
  /// restored: older weights are gone), so step t uses max(floor_version, t - k). A
  /// checkpoint carries the generated steps that need older versions, so this matters
  /// only for the first steps of a run extended past its last one.
  uint64_t floor_version = 0;
};

/// What the gate says about starting one more sample for a step.
enum class gate_verdict {
  admit,             ///< Start it now.
  wait_for_learner,  ///< Too far ahead of the learner: retry after the next version.
  step_full,         ///< The step already admitted max_step_samples.
  stale,             ///< The step is already trained, or (exact) the version moved past it.
};

/// The pure rule that bounds asynchrony (docs/algorithm.md "Asynchrony and the loss"; Reverb's rate limiter idea).
///
/// Versions count optimizer steps: the learner at version v has trained steps 0..v-1,
/// so training step t produces version t + 1, and a sample for step t drawn with
/// version v has lag t - v. A sample for step t may start when t - v <= k, i.e. the
/// learner is at most k versions behind. In exact mode the version is pinned: step t
/// starts only at v == max(0, t - k), and the learner may not publish v + 1 before the
/// generation of step v + k is complete, so every run uses the same versions.
/// Stateless and thread-safe; O(1).
struct lag_gate {
  lag_gate_config config;

  /// May one more sample for `step` start, given the learner's version and the number
  /// of samples already admitted for that step?
  gate_verdict check(uint64_t step, uint64_t learner_version, uint64_t admitted) const;

  /// Exact mode: the version step t is drawn with, max(floor_version, t - k).
  uint64_t pinned(uint64_t step) const;

  /// Exact mode: may the learner publish version v + 1, given the highest step whose
  /// generation is complete (-1 if none)? Always true outside exact mode.
  bool may_publish(uint64_t learner_version, int64_t generated_through) const;

  /// The lag of a sample for `step` drawn with `version` (0 if the version is newer).
  static uint64_t lag_of(uint64_t step, uint64_t version) {
    return step > version ? step - version : 0;
  }
};

}  // namespace adarl
