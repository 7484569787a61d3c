#pragma once
// The interface every sampling strategy implements: a step driven by results, answered
// with decisions.

#include <memory>
#include <span>

#include "algorithms/step_types.hpp"
#include "algorithms/strategy_config.hpp"

namespace adarl {

/// One training step's sampling decisions, driven by events (the tracker's brain).
///
/// The caller starts the step with its prompts, then reports each verified result as it
/// arrives, in any order; after every event it acts on the decisions: issue the sample
/// requests, pass finished groups to the learner, draw more prompts when asked. No call
/// waits for a batch: round semantics are per prompt. A strategy object lives for one
/// step; steps in flight each have their own.
///
/// Not thread-safe (one owner). Each call is O(size of the decisions it emits), except
/// online Est's re-planning: amortised O(log prompts) per result for the incremental
/// re-allocation, O(prompts log prompts) when it falls back to a full re-plan.
class step_strategy {
 public:
  virtual ~step_strategy() = default;

  /// Starts the step with a batch of prompts (slots 0..size-1); emits the first requests.
  virtual void start(std::span<const prompt_entry> prompts, decisions& out) = 0;

  /// Records one verified result. Duplicates, unknown slots and unrequested indices are
  /// ignored and reported, never counted twice.
  virtual result_status on_result(const sample_result& r, decisions& out) = 0;

  /// Adds prompts after a `prompts_wanted` decision (slots continue the numbering).
  /// Giving fewer than wanted tells the strategy the source is exhausted.
  /// Strategies that never ask ignore it.
  virtual void add_prompts(std::span<const prompt_entry> extra, decisions& out) {
    (void)extra;
    (void)out;
  }

  /// True once every prompt of the step is finished (the step_done decision was emitted).
  virtual bool done() const = 0;

  /// Samples accepted so far in this step (each (slot, index) once).
  virtual uint64_t samples_accepted() const = 0;
};

/// Builds the strategy a config names. Precondition: validate(config) is empty.
std::unique_ptr<step_strategy> make_strategy(const strategy_config& config);

}  // namespace adarl
