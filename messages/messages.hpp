#pragma once
// The messages of the actor pipeline, one type per hop (docs/design.md "Data flow").
// Plain aggregates with an inspect() naming every field, so that CAF can copy, print
// and serialize them. A reader can follow one sample from request to gradient:
// work_order -> completion (scored) -> train_group -> step_record.

#include <caf/meta/type_name.hpp>

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "algorithms/step_summary.hpp"
#include "algorithms/step_types.hpp"
#include "messages/record_fields.hpp"

namespace adarl {

/// tracker -> generator: draw one completion.
struct work_order {
  uint64_t step = 0;        ///< Training step (or, for evaluation, the policy version).
  uint32_t slot = 0;        ///< Prompt slot within the step.
  uint32_t index = 0;       ///< Sample index within the prompt's pool.
  uint64_t prompt_id = 0;   ///< Row of the prompt table.
  uint64_t stream = 0;      ///< Random stream (seed, step, prompt, index).
  uint32_t eval_round = 0;  ///< 0 = training; otherwise the evaluation it belongs to.
  bool greedy = false;      ///< Argmax decoding (evaluation).
  uint64_t min_version = 0; ///< Oldest policy version allowed to draw it (the lag bound):
                            ///< a generator with older weights holds it until new ones.
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, work_order& x) {
  return f(caf::meta::type_name("work_order"), x.step, x.slot, x.index, x.prompt_id,
           x.stream, x.eval_round, x.greedy, x.min_version);
}

/// generator -> verifier -> tracker: a drawn completion, scored by the verifier.
struct completion {
  work_order order;
  std::vector<int32_t> tokens;    ///< Completion ids (end token included if drawn).
  std::vector<float> logprobs;    ///< Behaviour log-prob per token.
  bool ended = false;             ///< The end token was drawn.
  uint64_t version = 0;           ///< Policy version that drew it.
  float reward = 0.f;             ///< Set by the verifier.
  std::string reason;             ///< Why the reward is 0 (verifier reason code).
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, completion& x) {
  return f(caf::meta::type_name("completion"), x.order, x.tokens, x.logprobs, x.ended,
           x.version, x.reward, x.reason);
}

/// tracker -> learner: a finished group with the samples the learner trains on.
struct train_group {
  uint64_t step = 0;
  uint32_t slot = 0;                ///< Prompt slot in the step (the batch's order).
  uint64_t prompt_id = 0;
  bool trainable = true;            ///< False for DAPO's dropped groups.
  std::vector<float> advantages;    ///< Per kept sample, already times the weight.
  std::vector<completion> samples;  ///< The kept samples, in kept order.
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, train_group& x) {
  return f(caf::meta::type_name("train_group"), x.step, x.slot, x.prompt_id, x.trainable,
           x.advantages, x.samples);
}

/// tracker -> learner: a step's generation is complete; its sampling statistics.
struct step_report {
  uint64_t step = 0;
  uint32_t prompts = 0;
  uint32_t trainable = 0;
  uint32_t zero_gradient = 0;
  uint64_t samples = 0;             ///< Accepted samples (whole pools).
  uint64_t tokens = 0;              ///< Generated tokens of accepted samples.
  /// Accepted samples and their tokens of every step through this one: the tracker's
  /// budget ledger (tracker_core::spent), the one count of the budget.
  uint64_t cumulative_samples = 0;
  uint64_t cumulative_tokens = 0;
  uint64_t results = 0;             ///< Results received, duplicates included.
  uint64_t result_tokens = 0;       ///< Tokens of all results received (compute spent).
  uint64_t kept_samples = 0;
  uint64_t signal_samples = 0;      ///< Samples of groups with unequal advantages.
  uint32_t max_samples = 0;         ///< Largest pool of one prompt.
  double real_reward = 0;           ///< Mean first-round reward.
  std::vector<uint32_t> exits;      ///< Count per exit_kind.
  std::vector<uint64_t> exit_samples;  ///< Samples drawn per exit_kind.
  std::vector<uint32_t> rounds;     ///< rounds[r] = groups that used r rounds.
  std::vector<uint32_t> rate_prompts;  ///< Groups per estimated pass-rate bin (step_summary) ...
  std::vector<uint64_t> rate_samples;  ///< ... and their samples.
  uint64_t duplicates = 0;
  uint64_t reissued = 0;
  double lag_mean = 0;
  uint64_t lag_max = 0;
  double generation_seconds = 0;    ///< Step opened -> generation complete.
  std::vector<std::string> zero_reasons;  ///< Reason codes of zero rewards ...
  std::vector<uint32_t> zero_counts;      ///< ... and how often each occurred.
  /// The pass-rate prior the prompts were drawn with against their pools' successes
  /// (algorithms/step_summary.hpp calibration_sums): sums over samples of the Brier
  /// score and log loss, all prompts and first-seen ones, and the reliability bins.
  double prior_brier = 0;
  double prior_log_loss = 0;
  uint64_t prior_samples = 0;
  double first_seen_brier = 0;
  double first_seen_log_loss = 0;
  uint64_t first_seen_samples = 0;
  uint32_t first_seen_prompts = 0;
  std::vector<double> reliability_predicted;  ///< Per bin of p: sum of predictions ...
  std::vector<double> reliability_observed;   ///< ... of successes ...
  std::vector<uint64_t> reliability_samples;  ///< ... and samples.
  /// The step's visits in slot order (step_summary::visit), one entry each: the
  /// prompt, its predicted pass rate (-1 = none), samples, successes and exit_kind.
  std::vector<uint64_t> visit_prompts;
  std::vector<double> visit_predicted;
  std::vector<uint32_t> visit_samples;
  std::vector<uint32_t> visit_positives;
  std::vector<uint32_t> visit_exits;
};

/// step_report's field list (messages/record_fields.hpp): its inspect, its checkpoint
/// encoding (actors/checkpoint_files.cpp) and the fields of the metrics line written as
/// they are (actors/metrics_sink.cpp step_json shows the rest in its own form). Required:
/// in every checkpoint since the first; the others default when an older one lacks them.
inline constexpr auto step_report_fields = std::make_tuple(
    named("step", &step_report::step, field_required | field_line),
    named("prompts", &step_report::prompts, field_required | field_line),
    named("trainable", &step_report::trainable, field_required),
    named("zero_gradient", &step_report::zero_gradient, field_required),
    named("samples", &step_report::samples, field_required | field_line),
    named("tokens", &step_report::tokens, field_required | field_line),
    named("results", &step_report::results, field_required | field_line),
    named("result_tokens", &step_report::result_tokens, field_required),
    named("kept_samples", &step_report::kept_samples, field_required | field_line),
    named("signal_samples", &step_report::signal_samples, field_line),
    named("max_samples", &step_report::max_samples, field_required),
    named("real_reward", &step_report::real_reward, field_required | field_line),
    named("exits", &step_report::exits, field_required),
    named("exit_samples", &step_report::exit_samples),
    named("rounds", &step_report::rounds, field_required | field_line),
    named("rate_prompts", &step_report::rate_prompts, field_required),
    named("rate_samples", &step_report::rate_samples, field_required),
    named("duplicates", &step_report::duplicates, field_required | field_line),
    named("reissued", &step_report::reissued, field_required | field_line),
    named("lag_mean", &step_report::lag_mean, field_required | field_line),
    named("lag_max", &step_report::lag_max, field_required | field_line),
    named("generation_seconds", &step_report::generation_seconds, field_required),
    named("zero_reasons", &step_report::zero_reasons, field_required),
    named("zero_counts", &step_report::zero_counts, field_required),
    named("prior_brier", &step_report::prior_brier),
    named("prior_log_loss", &step_report::prior_log_loss),
    named("prior_samples", &step_report::prior_samples),
    named("first_seen_brier", &step_report::first_seen_brier),
    named("first_seen_log_loss", &step_report::first_seen_log_loss),
    named("first_seen_samples", &step_report::first_seen_samples),
    named("first_seen_prompts", &step_report::first_seen_prompts),
    named("reliability_predicted", &step_report::reliability_predicted),
    named("reliability_observed", &step_report::reliability_observed),
    named("reliability_samples", &step_report::reliability_samples),
    named("visit_prompts", &step_report::visit_prompts),
    named("visit_predicted", &step_report::visit_predicted),
    named("visit_samples", &step_report::visit_samples),
    named("visit_positives", &step_report::visit_positives),
    named("visit_exits", &step_report::visit_exits),
    named("cumulative_samples", &step_report::cumulative_samples, field_line),
    named("cumulative_tokens", &step_report::cumulative_tokens, field_line));

/// Where the tracker takes step_report's members from the step's step_summary
/// (actors/tracker.cpp make_report fills them through this list): a metric the tracker
/// core computes is its step_summary member, its entry in step_report_fields and its
/// entry here. The visits (sorted by slot), the budget's totals, the counters and the
/// zero-reward reasons come from elsewhere in the tracker.
inline constexpr auto step_report_sources = std::make_tuple(
    sourced(&step_report::prompts, &step_summary::prompts),
    sourced(&step_report::trainable, &step_summary::trainable),
    sourced(&step_report::zero_gradient, &step_summary::zero_gradient),
    sourced(&step_report::samples, &step_summary::samples),
    sourced(&step_report::tokens, &step_summary::tokens),
    sourced(&step_report::kept_samples, &step_summary::kept_samples),
    sourced(&step_report::signal_samples, &step_summary::signal_samples),
    sourced(&step_report::max_samples, &step_summary::max_samples),
    sourced(&step_report::real_reward, &step_summary::real_reward),
    sourced(&step_report::exits, &step_summary::exits),
    sourced(&step_report::exit_samples, &step_summary::exit_samples),
    sourced(&step_report::rounds, &step_summary::rounds),
    sourced(&step_report::rate_prompts, &step_summary::rate_prompts),
    sourced(&step_report::rate_samples, &step_summary::rate_samples),
    sourced(&step_report::prior_brier, [](const step_summary& s) { return s.prior_fit.brier; }),
    sourced(&step_report::prior_log_loss,
            [](const step_summary& s) { return s.prior_fit.log_loss; }),
    sourced(&step_report::prior_samples,
            [](const step_summary& s) { return s.prior_fit.samples; }),
    sourced(&step_report::first_seen_brier,
            [](const step_summary& s) { return s.prior_fit_first_seen.brier; }),
    sourced(&step_report::first_seen_log_loss,
            [](const step_summary& s) { return s.prior_fit_first_seen.log_loss; }),
    sourced(&step_report::first_seen_samples,
            [](const step_summary& s) { return s.prior_fit_first_seen.samples; }),
    sourced(&step_report::first_seen_prompts,
            [](const step_summary& s) { return s.prior_fit_first_seen.prompts; }),
    sourced(&step_report::reliability_predicted, &step_summary::reliability_predicted),
    sourced(&step_report::reliability_observed, &step_summary::reliability_observed),
    sourced(&step_report::reliability_samples, &step_summary::reliability_samples));

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, step_report& x) {
  return apply_fields(step_report_fields, x, f, caf::meta::type_name("step_report"));
}

/// evaluator -> metrics sink: held-out accuracy at one policy version.
struct eval_report {
  uint64_t version = 0;
  uint32_t prompts = 0;
  double greedy_accuracy = -1;      ///< Share of held-out prompts solved greedily; -1 = not run.
  double sampled_accuracy = -1;     ///< Mean reward of the sampled completions; -1 = not run.
  std::vector<uint32_t> level_prompts;   ///< Per difficulty level (index 0 = unknown).
  std::vector<double> level_greedy;      ///< Greedy accuracy per level.
  std::vector<float> prompt_greedy;      ///< Greedy reward per held-out prompt (in order).
  std::vector<float> prompt_sampled;     ///< Mean sampled reward per held-out prompt.
  double seconds = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, eval_report& x) {
  return f(caf::meta::type_name("eval_report"), x.version, x.prompts, x.greedy_accuracy,
           x.sampled_accuracy, x.level_prompts, x.level_greedy, x.prompt_greedy,
           x.prompt_sampled, x.seconds);
}

/// learner -> metrics sink: one training step, everything the JSONL line holds.
struct step_record {
  step_report sampling;
  uint64_t policy_version = 0;      ///< Version after the step.
  double loss = 0;
  double grad_norm = 0;
  double entropy = 0;
  double clip_fraction = 0;
  uint64_t trained_samples = 0;
  uint64_t trained_tokens = 0;
  double train_seconds = 0;         ///< Optimizer step.
  double wait_seconds = 0;          ///< Learner idle, waiting for the step's data.
  double publish_seconds = 0;       ///< Snapshot and broadcast.
  double wall_seconds = 0;          ///< Since the previous step finished.
  double elapsed_seconds = 0;       ///< Since the run started.
  uint64_t reduced_bytes = 0;       ///< Replicated learners: gradient bytes all-reduced.
  double reduce_seconds = 0;        ///< Replicated learners: time in the collectives.
  std::string nonfinite;            ///< Non-empty: the update was skipped (train_stats).
  uint32_t updates = 0;             ///< Optimizer updates applied (train_stats::updates).
  double logprob_gap = 0;           ///< train_stats::logprob_gap (nats per token) ...
  uint64_t logprob_gap_tokens = 0;  ///< ... over this many tokens (0 = not measured).
};

/// step_record's field list (messages/record_fields.hpp), as step_report_fields.
inline constexpr auto step_record_fields = std::make_tuple(
    named("sampling", &step_record::sampling),
    named("policy_version", &step_record::policy_version, field_line),
    named("loss", &step_record::loss, field_line),
    named("grad_norm", &step_record::grad_norm, field_line),
    named("entropy", &step_record::entropy, field_line),
    named("clip_fraction", &step_record::clip_fraction, field_line),
    named("trained_samples", &step_record::trained_samples, field_line),
    named("trained_tokens", &step_record::trained_tokens, field_line),
    named("train_seconds", &step_record::train_seconds),
    named("wait_seconds", &step_record::wait_seconds),
    named("publish_seconds", &step_record::publish_seconds),
    named("wall_seconds", &step_record::wall_seconds),
    named("elapsed_seconds", &step_record::elapsed_seconds),
    named("reduced_bytes", &step_record::reduced_bytes),
    named("reduce_seconds", &step_record::reduce_seconds),
    named("nonfinite", &step_record::nonfinite),
    named("updates", &step_record::updates, field_line),
    named("logprob_gap", &step_record::logprob_gap, field_line),
    named("logprob_gap_tokens", &step_record::logprob_gap_tokens, field_line));

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, step_record& x) {
  return apply_fields(step_record_fields, x, f, caf::meta::type_name("step_record"));
}

/// tracker -> pipeline supervisor: progress counters for the stall watchdog.
struct tracker_status {
  uint64_t results = 0;          ///< Results received so far (training and evaluation).
  uint64_t learner_version = 0;  ///< The newest version the tracker has heard of.
  int64_t generated_through = -1;
  uint64_t in_flight = 0;        ///< Orders handed out and not answered.
  uint64_t queued = 0;           ///< Orders waiting for generator credit.
  std::string waiting;           ///< What it waits for, in words ("" = nothing).
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, tracker_status& x) {
  return f(caf::meta::type_name("tracker_status"), x.results, x.learner_version,
           x.generated_through, x.in_flight, x.queued, x.waiting);
}

/// remote-generator hub -> metrics sink: the cluster's counters so far (cumulative).
struct cluster_stats {
  uint32_t workers = 0;            ///< Generator workers connected now.
  uint64_t joined = 0;             ///< Workers that joined (reconnections included).
  uint64_t lost = 0;               ///< Workers lost (silent, unreachable, failed, gone).
  uint64_t orders_reissued = 0;    ///< Orders of lost workers handed out again.
  uint64_t stale_results = 0;      ///< Results of an earlier connection, dropped.
  uint64_t weights_versions = 0;   ///< Versions published.
  uint64_t weights_bytes = 0;      ///< Bytes of weights sent, to all workers, re-sends too.
  double weights_seconds = 0;      ///< The last version delivered: from the start of
                                   ///< publishing (serializing the snapshot) to the last
                                   ///< connected worker's acknowledgement.
  uint64_t weights_delivered = 0;  ///< That version (0: none delivered yet).
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, cluster_stats& x) {
  return f(caf::meta::type_name("cluster_stats"), x.workers, x.joined, x.lost,
           x.orders_reissued, x.stale_results, x.weights_versions, x.weights_bytes,
           x.weights_seconds, x.weights_delivered);
}

/// generator -> metrics sink: busy time since its previous report.
struct generator_load {
  uint32_t generator = 0;
  double busy_seconds = 0;          ///< In engine calls (prefill and decode).
  double wall_seconds = 0;          ///< Since the previous report.
  uint64_t tokens = 0;              ///< Tokens generated in that time.
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, generator_load& x) {
  return f(caf::meta::type_name("generator_load"), x.generator, x.busy_seconds,
           x.wall_seconds, x.tokens);
}

}  // namespace adarl
