#pragma once
// The typed interfaces of every pipeline actor (CAF 0.17.6), with their atoms. One
// header, a comment per handler: what it does and what it replies.

#include <caf/allowed_unsafe_message_type.hpp>
#include <caf/atom.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "engines/engine.hpp"
#include "messages/messages.hpp"

// Weight snapshots travel in process only, as a shared pointer to immutable memory: one
// copy for all generators. Across processes runtime/ sends their bytes instead.
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(adarl::weights_ptr)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(adarl::weight_bytes_ptr)
// Prompt features likewise (the learner computes them once, the tracker keeps them).
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(adarl::prompt_features_ptr)

namespace adarl {

using work_atom = caf::atom_constant<caf::atom("work")>;
using weights_atom = caf::atom_constant<caf::atom("weights")>;
using decode_atom = caf::atom_constant<caf::atom("decode")>;
using verify_atom = caf::atom_constant<caf::atom("verify")>;
using scored_atom = caf::atom_constant<caf::atom("scored")>;
using credit_atom = caf::atom_constant<caf::atom("credit")>;
using version_atom = caf::atom_constant<caf::atom("version")>;
using group_atom = caf::atom_constant<caf::atom("group")>;
using ready_atom = caf::atom_constant<caf::atom("ready")>;
using eval_atom = caf::atom_constant<caf::atom("eval")>;
using tick_atom = caf::atom_constant<caf::atom("tick")>;
using save_atom = caf::atom_constant<caf::atom("save")>;
using record_atom = caf::atom_constant<caf::atom("record")>;
using load_atom = caf::atom_constant<caf::atom("load")>;
using stop_atom = caf::atom_constant<caf::atom("stop")>;
using done_atom = caf::atom_constant<caf::atom("done")>;
using start_atom = caf::atom_constant<caf::atom("start")>;
using flush_atom = caf::atom_constant<caf::atom("flush")>;
using status_atom = caf::atom_constant<caf::atom("status")>;
using progress_atom = caf::atom_constant<caf::atom("progress")>;
using reissue_atom = caf::atom_constant<caf::atom("reissue")>;
using cluster_atom = caf::atom_constant<caf::atom("cluster")>;
using features_atom = caf::atom_constant<caf::atom("features")>;

/// A generator: owns a policy replica, pulls work with credits, decodes continuously.
using generator_actor = caf::typed_actor<
    // New orders, never more than the credit it announced; admitted as slots free up.
    caf::reacts_to<work_atom, std::vector<work_order>>,
    // New weights; applied between decoding steps. Rows in flight continue with them.
    caf::reacts_to<weights_atom, weights_ptr>,
    // New weights as bytes (a remote generator): read with the engine, then as above.
    caf::reacts_to<weights_atom, weight_bytes_ptr>,
    // Internal: one decoding step of every active row, then scheduled again if busy.
    caf::reacts_to<decode_atom>>;

/// A verifier: scores completions with their task's verifier and passes them on.
using verifier_actor = caf::typed_actor<
    // Scores a batch (reward and reason filled in) and sends it to the tracker with the
    // credit its generator returns (credit n for generator g travels with the results:
    // one message per batch, not two); a verifier failure is a zero reward with a
    // reason, never an error. n may be 0 (no credit to return).
    caf::reacts_to<verify_atom, std::vector<completion>, uint32_t, generator_actor>>;

/// The metrics sink: JSONL and CSV per step, the progress line.
using metrics_actor = caf::typed_actor<
    // One training step: appended to metrics.jsonl and metrics.csv.
    caf::reacts_to<record_atom, step_record>,
    // A held-out evaluation: appended to eval.jsonl; joins the next step line.
    caf::reacts_to<eval_atom, eval_report>,
    // A generator's busy time since its previous report.
    caf::reacts_to<load_atom, generator_load>,
    // The remote generators' counters (cumulative); the next step line carries them.
    caf::reacts_to<cluster_atom, cluster_stats>,
    // Flushes every line received so far to the disk (fsync); replies true, or an error
    // naming the file whose write failed. The learner asks before it publishes a
    // checkpoint, so that a checkpoint never holds steps the metrics files lack.
    caf::replies_to<save_atom>::with<bool>,
    // The run's end: flushes and closes the files; replies as save_atom does.
    caf::replies_to<flush_atom>::with<bool>>;

/// The evaluator: tallies held-out completions into accuracy.
using evaluator_actor = caf::typed_actor<
    // Runs an evaluation of the policy at a version; replies with its report once every
    // held-out completion is scored (and sends it to the metrics sink).
    caf::replies_to<eval_atom, uint64_t>::with<eval_report>,
    // Scored held-out completions, routed here by the tracker.
    caf::reacts_to<scored_atom, std::vector<completion>>>;

/// The learner: trains one step per complete batch, publishes weights.
using learner_actor = caf::typed_actor<
    // A finished group of a step (sent before that step's ready message).
    caf::reacts_to<group_atom, train_group>,
    // A step's generation is complete: train it when every earlier step is trained.
    caf::reacts_to<ready_atom, step_report>,
    // Stops after the current step: writes a checkpoint; replies with the version saved,
    // or the error (naming the file) that kept the checkpoint from being written.
    caf::replies_to<stop_atom>::with<uint64_t>,
    // Writes a checkpoint of the last trained step now and goes on training; replies
    // with its version once written (an error when it failed or the run is ending).
    caf::replies_to<save_atom>::with<uint64_t>,
    // What the learner waits for, in words (the run's stall watchdog).
    caf::replies_to<status_atom>::with<std::string>>;

// The tracker's facets: each of its clients holds only the part of its interface it
// uses (a typed handle converts to any subset of its signatures), so a stand-in for the
// tracker, such as a remote worker's uplink or a test's, implements only that part.

/// Where a generator asks for work: it can take `n` more orders, pushed to it as they
/// become available.
using work_source_actor = caf::typed_actor<
    caf::reacts_to<credit_atom, uint32_t, generator_actor>>;

/// Where verifiers send scored completions: training ones feed the strategy, evaluation
/// ones go to the evaluator; with credit n returned by generator g (the results' own
/// generator) the results are taken first, then the credit, then work is handed out
/// once. Credit alone too (a remote verifier hub returns it before the scores).
using result_sink_actor = caf::typed_actor<
    caf::reacts_to<credit_atom, uint32_t, generator_actor>,
    caf::reacts_to<scored_atom, std::vector<completion>>,
    caf::reacts_to<scored_atom, std::vector<completion>, uint32_t, generator_actor>>;

/// Where the remote generators' hub speaks for its workers: their credit, and the orders
/// a lost worker held, handed out again at once (evaluation orders first; answers that
/// still come for them count as duplicates); with g, generator g is gone and gets no
/// more work (orders already on their way to it come back through its hub).
using generator_pool_actor = caf::typed_actor<
    caf::reacts_to<credit_atom, uint32_t, generator_actor>,
    caf::reacts_to<reissue_atom, std::vector<work_order>>,
    caf::reacts_to<reissue_atom, std::vector<work_order>, generator_actor>>;

/// The learner's link: the version it reached (the lag gate opens, trained steps are
/// dropped); the state to continue from after a step (pass rates, prompt cursor, ledger,
/// next step: tracker_core::save) written to a file, replying true or an error naming
/// the file and the reason; the training prompts' features (tracker.estimator.kind
/// learned, sent at start: no step opens before they arrive; a second set is ignored).
using learner_link_actor = caf::typed_actor<
    caf::reacts_to<version_atom, uint64_t>,
    caf::replies_to<save_atom, std::string, int64_t>::with<bool>,
    caf::reacts_to<features_atom, prompt_features_ptr>>;

/// The evaluator's link: queues an evaluation round (id, version) over the held-out
/// prompts; replies with the number of orders queued.
using eval_queue_actor = caf::typed_actor<
    caf::replies_to<eval_atom, uint32_t, uint64_t>::with<uint32_t>>;

/// Run control, the supervisor's: connects the learner and the evaluator (spawned after
/// the tracker); progress counters and what the tracker waits for (the stall watchdog).
using run_control_actor = caf::typed_actor<
    caf::reacts_to<start_atom, learner_actor, evaluator_actor>,
    caf::replies_to<status_atom>::with<tracker_status>>;

/// The tracker: the difficulty tracker driving the strategy (algorithms/tracker_core),
/// every facet above and its own lease check (tick_atom, self-scheduled: re-issues
/// expired requests).
using tracker_actor = caf::typed_actor<
    caf::reacts_to<credit_atom, uint32_t, generator_actor>,
    caf::reacts_to<scored_atom, std::vector<completion>>,
    caf::reacts_to<scored_atom, std::vector<completion>, uint32_t, generator_actor>,
    caf::reacts_to<reissue_atom, std::vector<work_order>>,
    caf::reacts_to<reissue_atom, std::vector<work_order>, generator_actor>,
    caf::reacts_to<version_atom, uint64_t>,
    caf::replies_to<save_atom, std::string, int64_t>::with<bool>,
    caf::reacts_to<features_atom, prompt_features_ptr>,
    caf::replies_to<eval_atom, uint32_t, uint64_t>::with<uint32_t>,
    caf::reacts_to<start_atom, learner_actor, evaluator_actor>,
    caf::replies_to<status_atom>::with<tracker_status>,
    caf::reacts_to<tick_atom>>;

}  // namespace adarl
