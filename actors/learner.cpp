#include "actors/learner.hpp"

#include <caf/all.hpp>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>

#include <spdlog/logger.h>

#include "actors/checkpoint_files.hpp"
#include "actors/failure.hpp"
#include "base/atomic_file.hpp"
#include "base/clock.hpp"

namespace adarl {

namespace {

using clock_type = steady_clock;

struct learner_state {
  learner_setup setup;
  std::unique_ptr<learner_engine> engine;
  /// Groups and reports of steps not trained yet (what a checkpoint carries).
  carried_steps data;
  int64_t ready_through = -1;  ///< Every step up to this one has reported.
  uint64_t version() const { return engine->version(); }
  clock_type::time_point start = clock_type::now();
  clock_type::time_point last_step = clock_type::now();
  bool finishing = false;
  uint64_t samples = 0;  ///< Cumulative samples of the trained steps.
  /// Steps in a row whose update was skipped as non-finite (train_stats::nonfinite).
  uint32_t nonfinite_in_a_row = 0;
  bool gap_warned = false;        ///< The log-prob gap alarm was given ...
  uint64_t gap_warned_step = 0;   ///< ... last at this step.
  logger_ptr log;
  bool budget_spent() const {
    return setup.sample_budget && samples >= setup.sample_budget && version() >= setup.min_steps;
  }
  static inline const char* name = "learner";
};

using self_ptr = learner_actor::stateful_pointer<learner_state>;

void fatal(self_ptr self, const std::string& what) {
  caf::anon_send(self->state.setup.supervisor, stop_atom::value, "learner: " + what);
}

void publish(self_ptr self) {
  auto& st = self->state;
  weights_ptr w = st.engine->snapshot();
  for (const auto& g : st.setup.generators) self->send(g, weights_atom::value, w);
  self->send(st.setup.tracker, version_atom::value, st.version());
}

void advance_ready(learner_state& st) {
  while (st.data.reports.count(uint64_t(st.ready_through + 1)) ||
         uint64_t(st.ready_through + 1) < st.version())
    ++st.ready_through;
}

/// Runs once a checkpoint is written ("") or failed (why, naming the checkpoint).
using checkpoint_done = std::function<void(const std::string& failure)>;

void publish_checkpoint(self_ptr self, const std::string& dir,
                        const std::string& final_dir, uint64_t v, int64_t through,
                        const checkpoint_done& then);

/// Assembles OUT/checkpoints/step-V.partial (the engine's files, the carried steps, the
/// config, the tracker's state as of the last carried step, the manifest last), puts it
/// in place of step-V and points OUT/checkpoints/latest at it; `then` runs once it is
/// done or failed. A failure (a full disk) removes the partial directory, the engine's
/// staging one (DIR.tmp) too, and leaves the previous checkpoints as they were. The
/// tracker's and the metrics sink's answers are awaited: no group or report is taken
/// meanwhile, so the carried steps and the tracker's state describe the same moment.
void checkpoint(self_ptr self, checkpoint_done then) {
  namespace fs = std::filesystem;
  auto& st = self->state;
  const uint64_t v = st.version();
  const std::string root = st.setup.checkpoint_dir;
  const std::string final_dir = root + "/" + checkpoint_name(v);
  const std::string dir = final_dir + ".partial";
  auto failed = [=](const std::string& why) {
    std::error_code ec;
    fs::remove_all(staging_path(dir), ec);
    fs::remove_all(dir, ec);
    then("checkpoint " + final_dir + ": " + why);
  };
  std::error_code ec;
  fs::create_directories(root, ec);
  fs::remove_all(dir, ec);
  if (auto ok = st.engine->save(dir); !ok) return failed(ok.err().message);
  const int64_t through = std::max<int64_t>(st.ready_through, int64_t(v) - 1);
  if (auto ok = write_carried_steps(dir + "/carried.cbor", st.data, v, through); !ok)
    return failed(ok.err().message);
  if (!st.setup.config_json.empty())
    if (auto ok = write_file_atomic(dir + "/config.json", st.setup.config_json); !ok)
      return failed(ok.err().message);
  self->request(st.setup.tracker, std::chrono::seconds(60), save_atom::value,
                dir + "/tracker.json", through)
      .await(
          [=](bool ok) {
            if (!ok) return failed("the tracker could not write its state");
            publish_checkpoint(self, dir, final_dir, v, through,
                               [=](const std::string& why) {
                                 if (why.empty()) return then("");
                                 failed(why);
                               });
          },
          [=](caf::error& e) {
            failed("the tracker did not write its state: " +
                   error_text(self->system(), e));
          });
}

/// The end of checkpoint(): once the metrics files hold every step up to the version
/// (a checkpoint must never get ahead of them: a resume would leave a gap), the
/// manifest, the flush, the rename into place and `latest`, each checked.
void publish_checkpoint(self_ptr self, const std::string& dir,
                        const std::string& final_dir, uint64_t v, int64_t through,
                        const checkpoint_done& then) {
  auto written = [=](bool) {
    auto& st = self->state;
    // One after the other: nothing is renamed into place after a failed step.
    auto r = write_manifest(dir, v, through);
    if (r) r = sync_tree(dir);
    if (r) r = replace_directory(dir, final_dir);
    const std::string latest = st.setup.checkpoint_dir + "/latest";
    if (r) r = write_file_atomic(latest, checkpoint_name(v) + "\n");
    if (!r) return then(r.err().message);
    st.log->info("checkpoint {} written", final_dir);
    then("");
  };
  if (!self->state.setup.metrics) return written(true);
  self->request(self->state.setup.metrics, std::chrono::seconds(60), save_atom::value)
      .await(written, [=](caf::error& e) { then(error_text(self->system(), e)); });
}

void evaluate(self_ptr self, std::function<void()> then) {
  self->request(self->state.setup.evaluator, caf::infinite, eval_atom::value,
                self->state.version())
      .then([=](const eval_report&) { then(); }, [=](caf::error&) { then(); });
}

void finish_run(self_ptr self) {
  if (self->state.finishing) return;
  self->state.finishing = true;
  evaluate(self, [=] {
    checkpoint(self, [=](const std::string& failure) {
      if (!failure.empty()) return fatal(self, failure);  // the supervisor ends the run
      caf::anon_send(self->state.setup.supervisor, done_atom::value, self->state.version());
    });
  });
}

/// A checkpoint every checkpoint_every steps; one that cannot be written (a full disk)
/// ends the run, and the learner trains no further meanwhile.
void periodic_checkpoint(self_ptr self) {
  checkpoint(self, [=](const std::string& failure) {
    if (failure.empty()) return;
    self->state.finishing = true;
    fatal(self, failure);
  });
}

std::vector<train_sample> batch_of(const learner_state& st, std::vector<train_group>& groups) {
  // Groups arrive in completion order; the batch is in slot order, so that its
  // composition (and the loss's summation order) does not depend on timing.
  std::sort(groups.begin(), groups.end(),
            [](const train_group& a, const train_group& b) { return a.slot < b.slot; });
  std::vector<train_sample> batch;
  for (auto& g : groups) {
    if (!g.trainable) continue;
    for (size_t i = 0; i < g.samples.size(); ++i) {
      completion& c = g.samples[i];
      train_sample s;
      s.prompt_id = g.prompt_id;
      if (g.prompt_id < st.setup.prompts->rows.size())
        s.prompt = st.setup.prompts->rows[g.prompt_id].tokens;
      s.completion = c.tokens;  // copies: the groups stay until the step is trained
      s.behaviour_logprobs = c.logprobs;
      s.advantage = g.advantages[i];
      s.reward = c.reward;
      s.version = c.version;
      batch.push_back(std::move(s));
    }
  }
  return batch;
}

/// Steps in a row whose update may be skipped as non-finite before the run stops.
constexpr uint32_t max_nonfinite_in_a_row = 3;

/// A step whose loss or gradient was not finite (its update was not applied): warns, and
/// stops the run when it is the max_nonfinite_in_a_row-th in a row. False when it stops.
bool nonfinite_step(self_ptr self, uint64_t step, const train_stats& stats) {
  auto& st = self->state;
  ++st.nonfinite_in_a_row;
  const double value = stats.nonfinite == "loss" ? stats.loss : stats.grad_norm;
  st.log->warn("step {}: the {} is {}; the update was not applied ({} in a row)", step,
               stats.nonfinite, value, st.nonfinite_in_a_row);
  if (st.nonfinite_in_a_row < max_nonfinite_in_a_row) return true;
  fatal(self, "step " + std::to_string(step) + ": the " + stats.nonfinite + " was not finite (" +
                  std::to_string(value) + ") in " + std::to_string(st.nonfinite_in_a_row) +
                  " steps in a row: training diverged (no such update was applied; the "
                  "checkpoints hold finite weights)");
  return false;
}

/// Warns when the step's log-prob gap passes the tolerance: at the first such step and
/// every 50 steps while it lasts (the figure is in every metrics line either way).
void gap_alarm(self_ptr self, uint64_t step, const train_stats& stats) {
  auto& st = self->state;
  const double tolerance = st.setup.logprob_tolerance;
  if (tolerance <= 0 || stats.logprob_gap_tokens == 0 || !(stats.logprob_gap > tolerance)) return;
  if (st.gap_warned && step < st.gap_warned_step + 50) return;
  st.gap_warned = true;
  st.gap_warned_step = step;
  st.log->warn("step {}: the generators' log-probs differ from the learner's by {:.4f} nats "
               "per token on {} fresh tokens (learner.logprob_tolerance {}): the samples were "
               "not drawn from the distribution the importance ratio assumes (a server's "
               "default samplers, quantized or other weights; docs/guides/engines.md \"The "
               "log-prob check\")",
               step, stats.logprob_gap, stats.logprob_gap_tokens, tolerance);
}

/// Trains every step whose data is complete, in order.
void train_ready(self_ptr self) {
  auto& st = self->state;
  while (!st.finishing && st.version() < st.setup.steps) {
    const uint64_t step = st.version();
    auto rep = st.data.reports.find(step);
    if (rep == st.data.reports.end()) return;
    // Deterministic mode (lag_gate::may_publish): step v + max_lag must be generated
    // with version v, so version v + 1 waits until that generation is complete.
    const uint64_t needed = std::min(step + st.setup.max_lag, st.setup.steps - 1);
    if (st.setup.exact_lag && st.ready_through < int64_t(needed)) return;
    step_record rec;
    rec.sampling = rep->second;
    rec.wait_seconds = seconds_since(st.last_step);
    auto t0 = clock_type::now();
    auto batch = batch_of(st, st.data.groups[step]);
    caf::anon_send(st.setup.supervisor, progress_atom::value, step, true);
    auto stats = st.engine->train(batch);
    caf::anon_send(st.setup.supervisor, progress_atom::value, step, false);
    // A failed step (e.g. a learner replica died) keeps its groups and report: the
    // checkpoint the supervisor asks for then carries them, and --resume trains it.
    if (!stats) return fatal(self, "step " + std::to_string(step) + ": " + stats.err().message);
    const uint64_t samples_before = st.samples;
    st.samples = rec.sampling.cumulative_samples;  // the tracker's ledger
    st.data.reports.erase(step);
    st.data.groups.erase(step);
    rec.train_seconds = seconds_since(t0);
    rec.wait_seconds -= rec.train_seconds;
    rec.wait_seconds = std::max(0.0, rec.wait_seconds);
    t0 = clock_type::now();
    publish(self);
    rec.publish_seconds = seconds_since(t0);
    rec.policy_version = st.version();
    rec.loss = stats->loss;
    rec.grad_norm = stats->grad_norm;
    rec.entropy = stats->entropy;
    rec.clip_fraction = stats->clip_fraction;
    rec.trained_samples = stats->samples;
    rec.trained_tokens = stats->tokens;
    rec.reduced_bytes = stats->reduced_bytes;
    rec.reduce_seconds = stats->reduce_seconds;
    rec.nonfinite = stats->nonfinite;
    rec.updates = stats->updates;
    rec.logprob_gap = stats->logprob_gap;
    rec.logprob_gap_tokens = stats->logprob_gap_tokens;
    gap_alarm(self, step, *stats);
    rec.wall_seconds = seconds_since(st.last_step);
    rec.elapsed_seconds = seconds_since(st.start);
    st.last_step = clock_type::now();
    st.log->debug("step {} trained: {} samples, loss {:.4f}, {:.3f} s", step, rec.trained_samples,
                  rec.loss, rec.train_seconds);
    self->send(st.setup.metrics, record_atom::value, std::move(rec));
    if (!stats->nonfinite.empty() && !nonfinite_step(self, step, *stats)) return;
    if (stats->nonfinite.empty()) st.nonfinite_in_a_row = 0;
    const uint64_t v = st.version();
    if (v >= st.setup.steps || st.budget_spent()) return finish_run(self);
    const uint64_t per = st.setup.eval_every_samples;
    const bool sample_mark = per && samples_before / per != st.samples / per;
    if ((st.setup.eval_every && v % st.setup.eval_every == 0) || sample_mark)
      evaluate(self, [] {});
    if (st.setup.checkpoint_every && v % st.setup.checkpoint_every == 0)
      periodic_checkpoint(self);
  }
}

/// What the learner waits for, in words.
std::string waiting_for(const learner_state& st) {
  if (!st.engine) return "the learner has no engine";
  const uint64_t v = st.version();
  if (st.finishing) return "the learner is finishing at version " + std::to_string(v);
  std::string held;
  for (const auto& [step, groups] : st.data.groups)
    held += (held.empty() ? "" : ", ") + std::to_string(step) + " (" +
            std::to_string(groups.size()) + " groups)";
  std::string out = "the learner (version " + std::to_string(v) + ") waits for step " +
                    std::to_string(v) + "'s report";
  if (st.data.reports.count(v))
    out = "the learner (version " + std::to_string(v) +
          ", deterministic) waits for the generation of step " +
          std::to_string(std::min(v + st.setup.max_lag, st.setup.steps - 1)) +
          " to complete (reported through " + std::to_string(st.ready_through) + ")";
  return out + (held.empty() ? "; it holds no groups" : "; it holds groups of steps " + held);
}

/// The training prompts' features from the engine, to the tracker (its learned
/// estimator waits for them); false, with the run ended, when the engine has none.
bool send_features(self_ptr self) {
  auto& st = self->state;
  std::vector<std::vector<int32_t>> prompts;
  std::vector<uint64_t> ids;
  for (uint32_t i = 0; i < st.setup.prompts->train; ++i) {
    prompts.push_back(st.setup.prompts->rows[i].tokens);
    ids.push_back(i);
  }
  auto f = st.engine->features(prompts, ids);
  if (!f) {
    fatal(self, "tracker.estimator.kind learned: " + f.err().message);
    st.engine.reset();
    return false;
  }
  self->send(st.setup.tracker, features_atom::value,
             std::make_shared<const prompt_features>(std::move(*f)));
  return true;
}

/// Restores the engine and the carried steps of setup.resume_from; false (the run
/// failed, said to the supervisor) when it cannot.
bool resume(self_ptr self) {
  auto& st = self->state;
  const std::string& dir = st.setup.resume_from;
  auto ok = st.engine->restore(dir);
  auto carried = ok ? read_carried_steps(dir + "/carried.cbor") : result<carried_steps>(ok.err());
  if (!carried) {
    fatal(self, "resume from " + dir + ": " + carried.err().message);
    st.engine.reset();
    return false;
  }
  st.data = std::move(*carried);
  if (!st.setup.carried_totals_known) {
    // A checkpoint written before the tracker kept its ledger: its reports have no
    // cumulative totals; they follow from the totals before the version, in step order.
    fill_carried_totals(st.data, st.version(), {st.setup.samples_before, st.setup.tokens_before});
  }
  st.log->info("resumed from {} at version {}", dir, st.version());
  return true;
}

/// Whether the uninterrupted run evaluates the version a resumed run starts at: a
/// resumed run evaluates it only then (and when the evaluation is not on record yet), so
/// that both write the same evaluations.
bool evaluation_due(const learner_state& st) {
  const uint64_t v = st.version(), per = st.setup.eval_every_samples;
  const uint64_t before = st.samples - std::min(st.samples, st.setup.last_step_samples);
  return v == 0 || (st.setup.eval_every && v % st.setup.eval_every == 0) ||
         (per && before / per != st.samples / per);
}

/// A checkpoint of the current version; the promise delivers the version, or why the
/// checkpoint was not written.
caf::typed_response_promise<uint64_t> checkpoint_promise(self_ptr self) {
  auto rp = self->make_response_promise<uint64_t>();
  checkpoint(self, [=](const std::string& failure) mutable {
    if (failure.empty()) rp.deliver(self->state.version());
    else rp.deliver(caf::make_error(caf::sec::runtime_error, failure));
  });
  return rp;
}

learner_actor::behavior_type learner_fun(self_ptr self, learner_setup setup) {
  report_exceptions(self, "learner");
  auto& st = self->state;
  auto engine = setup.make_engine();
  st.setup = std::move(setup);
  st.log = component_log(st.setup.log, "learner");
  st.samples = st.setup.samples_before;
  auto idle = learner_actor::behavior_type{
      [](group_atom, train_group&) {}, [](ready_atom, step_report&) {},
      [](stop_atom) -> caf::result<uint64_t> {  // no engine: no checkpoint to claim
        return caf::make_error(caf::sec::runtime_error, "the learner failed to start");
      },
      [](save_atom) -> caf::result<uint64_t> {
        return caf::make_error(caf::sec::runtime_error, "the learner failed to start");
      },
      [](status_atom) -> std::string { return "the learner failed to start"; }};
  if (!engine) {
    fatal(self, engine.err().message);
    return idle;
  }
  st.engine = std::move(*engine);
  if (!st.setup.resume_from.empty() && !resume(self)) return idle;
  advance_ready(st);
  publish(self);
  if (st.setup.send_features && !send_features(self)) return idle;
  if (st.setup.resume_from.empty() || (evaluation_due(st) && !st.setup.evaluated))
    evaluate(self, [] {});
  if (st.version() >= st.setup.steps || st.budget_spent()) finish_run(self);
  else train_ready(self);
  return {
      [=](group_atom, train_group& g) {
        auto& s = self->state;
        if (g.step >= s.version()) s.data.groups[g.step].push_back(std::move(g));
      },
      [=](ready_atom, step_report& r) {
        auto& s = self->state;
        if (r.step < s.version()) return;  // carried by the checkpoint we resumed from
        s.data.reports[r.step] = std::move(r);
        advance_ready(s);
        train_ready(self);
      },
      [=](stop_atom) -> caf::typed_response_promise<uint64_t> {
        self->state.finishing = true;  // no more training
        return checkpoint_promise(self);
      },
      [=](save_atom) -> caf::typed_response_promise<uint64_t> {
        if (!self->state.finishing) return checkpoint_promise(self);
        auto rp = self->make_response_promise<uint64_t>();
        rp.deliver(caf::make_error(caf::sec::runtime_error, "the run is ending"));
        return rp;
      },
      [=](status_atom) -> std::string { return waiting_for(self->state); },
  };
}

}  // namespace

learner_actor spawn_learner(caf::actor_system& sys, learner_setup setup) {
  return sys.spawn<caf::detached>(learner_fun, std::move(setup));
}

}  // namespace adarl
