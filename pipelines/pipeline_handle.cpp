#include "pipelines/pipeline_handle.hpp"

#include <caf/all.hpp>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <ostream>

#include <nlohmann/json.hpp>
#include <spdlog/logger.h>

#include "actors/checkpoint_files.hpp"
#include "actors/evaluator.hpp"
#include "actors/failure.hpp"
#include "actors/generator.hpp"
#include "actors/learner.hpp"
#include "actors/metrics_sink.hpp"
#include "actors/tracker.hpp"
#include "actors/verifier.hpp"
#include "base/atomic_file.hpp"
#include "base/clock.hpp"
#include "base/run_config_file.hpp"
#include "pipelines/engine_registry.hpp"

namespace adarl {

namespace {

/// The budget a resumed run starts from, read from its checkpoint: what the steps
/// before `version` spent, from the point the tracker's ledger kept for step version - 1,
/// into `totals` (the learner's samples and tokens before the version, and what the
/// version's own step spent). A checkpoint written before the ledger was kept has no
/// points: the metrics lines already in `totals` stand, and the tracker's ledger is
/// seeded through its last carried step with the carried reports (false is returned:
/// those reports carry no totals). Errors name the checkpoint.
result<bool> resume_budget(const std::string& dir, uint64_t version, tracker_state& restored,
                           metrics_totals& totals) {
  if (!restored.budget.empty()) {
    if (version == 0) {
      totals.samples = totals.tokens = totals.last_step_samples = 0;
      return true;
    }
    for (const auto& [step, p] : restored.budget)
      if (step + 1 == version) {
        totals.samples = p.through.samples;
        totals.tokens = p.through.tokens;
        totals.last_step_samples = p.step.samples;
        return true;
      }
    return error{dir + "/tracker.json: its budget has no point for step " +
                 std::to_string(version - 1) + ", the last one trained"};
  }
  if (restored.next_step == 0) return true;
  auto carried = read_carried_steps(dir + "/carried.cbor");
  if (!carried) return carried.err();
  const budget_point before{{totals.last_step_samples, 0}, {totals.samples, totals.tokens}};
  restored.budget.emplace_back(restored.next_step - 1,
                               fill_carried_totals(*carried, version, before.through)
                                   .value_or(before));
  return false;
}

/// What a failed run keeps, in words: why its last checkpoint was not written (`failure`,
/// "checkpoint DIR: why", unless `fatal` says so already) and the newest complete
/// checkpoint, the one --resume continues from.
std::string kept_checkpoint(const std::string& out, const std::string& failure,
                            const std::string& fatal) {
  std::string s;
  if (!failure.empty() && fatal.find(failure) == std::string::npos)
    s = "the final checkpoint was not written: " + failure + "; ";
  auto kept = resolve_checkpoint(out);
  return s + (kept ? "the last complete checkpoint: " + *kept
                   : std::string("no checkpoint to resume from"));
}

/// The supervisor's view of the run: which actor is which, and the stall watchdog.
struct run_watch {
  std::map<caf::actor_addr, std::string> names;  ///< Monitored actors.
  steady_clock::time_point last_progress = steady_clock::now();
  steady_clock::time_point last_status = steady_clock::now();
  tracker_status seen;
  bool training = false;  ///< The learner is inside an optimizer step.

  template <class Handle>
  void watch(caf::scoped_actor& self, const Handle& h, std::string name) {
    self->monitor(h);
    names[caf::actor_cast<caf::actor_addr>(h)] = std::move(name);
  }
  void progressed() { last_progress = steady_clock::now(); }
  /// Records a tracker status; true when it shows progress since the last one.
  bool update(const tracker_status& s) {
    const bool moved = s.results != seen.results || s.learner_version != seen.learner_version ||
                       s.generated_through != seen.generated_through;
    seen = s;
    if (moved) progressed();
    return moved;
  }
};

}  // namespace

/// Everything a running pipeline holds: its actors, its supervisor (a scoped actor the
/// actors report to) and how it ended.
struct pipeline_handle::impl {
  impl(caf::actor_system& s, const pipeline_config& c, run_options o)
      : sys(s), config(c), options(std::move(o)), self(s) {}

  caf::actor_system& sys;
  const pipeline_config config;
  const run_options options;
  caf::scoped_actor self;
  logger_ptr run_log;
  logger_ptr log;
  run_watch watch;
  metrics_actor metrics;
  tracker_actor tracker;
  std::vector<verifier_actor> verifiers;  ///< Local ones (adarl's or the caller's).
  std::vector<generator_actor> generators;
  evaluator_actor evaluator;
  learner_actor learner;
  std::unique_ptr<cluster_parts> cluster;
  std::atomic<bool> stop_requested{false};
  std::optional<result<run_outcome>> outcome;  ///< Set once wait() returned.
  /// False when resuming a checkpoint written before the tracker kept its ledger.
  bool carried_totals_known = true;

  /// A line for the user on options.log, also in the run's log file.
  void say(const std::string& line) const {
    if (options.log) *options.log << line << std::endl;
    log->info("{}", line);
  }
  /// Ends every actor spawned so far (and the cluster parts): a failed start or the end.
  void stop_actors() {
    if (cluster) cluster->close();
    cluster.reset();
    for (const auto& g : generators) self->send_exit(g, caf::exit_reason::user_shutdown);
    for (const auto& v : verifiers) self->send_exit(v, caf::exit_reason::user_shutdown);
    for (const auto& a : {caf::actor_cast<caf::actor>(learner), caf::actor_cast<caf::actor>(evaluator),
                          caf::actor_cast<caf::actor>(tracker), caf::actor_cast<caf::actor>(metrics)})
      if (a) self->send_exit(a, caf::exit_reason::user_shutdown);
  }
  result<bool> start(prompt_table_ptr prompts, pipeline_components parts);
  result<run_outcome> supervise();

 private:
  /// How the supervision of a running pipeline stands.
  struct supervision {
    run_outcome out;
    std::optional<std::string> fatal;  ///< Why the run ends early.
    uint32_t failed_generators = 0;
    bool running = true;
    bool learner_alive = true;
    std::string checkpoint_failure;  ///< Why the learner's last checkpoint was not written.
  };
  /// One message of the actors (or 100 ms without one) into `st`.
  void receive_one(supervision& st);
  /// Asks the learner for a last checkpoint (stop_atom); false when it cannot.
  bool last_checkpoint(supervision& st, std::chrono::seconds patience);
  /// The stall watchdog, about once a second: why the run made no progress for
  /// stall_seconds, or nothing.
  std::optional<std::string> stalled();
  /// The end of a run: a last checkpoint after a failure, the metrics flushed, the
  /// actors and the cluster stopped; the outcome or the first error.
  result<run_outcome> wind_down(supervision& st);
  /// Where a resumed run continues: the tracker's saved state, checked against the
  /// manifest, and the weights version it carries. Nothing for a fresh run.
  result<bool> read_resume(std::optional<tracker_state>& restored, uint64_t& version) const;
  /// The output directory (config.json written) and the metrics sink, watched, which
  /// appends to a resumed run's files: the totals the run continues from.
  result<metrics_totals> open_run_dir(bool resumed, uint64_t resumed_version,
                                      const std::string& config_text, caf::actor supervisor);
  /// The tracker, restored on a resumed run, watched.
  void spawn_tracker_of(const prompt_table_ptr& prompts,
                        const std::optional<tracker_state>& restored, uint64_t resumed_version);
  /// The generators, local and (through the cluster parts) remote, each sending to the
  /// local verifiers or the cluster's hubs in front of them, watched. On an error the
  /// caller stops what was spawned.
  result<bool> spawn_workers(const pipeline_components& parts, const prompt_table_ptr& prompts,
                             caf::actor supervisor);
  /// The local verifiers (adarl's or the caller's), watched.
  result<bool> spawn_verifiers(const pipeline_components& parts, const prompt_table_ptr& prompts,
                               std::shared_ptr<const verifier_registry> registry,
                               std::shared_ptr<const tokenizer> tok);
  /// The cluster's view of this run, for the parts outside this process.
  cluster_context cluster_view(const prompt_table_ptr& prompts, caf::actor supervisor);
  /// The local generators, each drawing from its own engine and sending to `scorers`.
  void spawn_generators(const pipeline_components& parts, const prompt_table_ptr& prompts,
                        const std::vector<verifier_actor>& scorers, caf::actor supervisor);
  /// What the learner is given: its engine, its peers, the run's budget and schedule.
  learner_setup learner_settings(const pipeline_components& parts, const prompt_table_ptr& prompts,
                                 const metrics_totals& totals, const std::string& config_text,
                                 caf::actor supervisor) const;
};

result<bool> pipeline_handle::impl::read_resume(std::optional<tracker_state>& restored,
                                                uint64_t& version) const {
  const auto& o = options;
  if (o.resume_from.empty()) return true;
  auto m = read_manifest(o.resume_from);
  if (!m) return m.err();
  auto s = load_tracker_state(o.resume_from + "/tracker.json");
  if (!s) return s.err();
  if (int64_t(s->next_step) != m->through + 1)
    return error{o.resume_from + ": tracker.json continues at step " +
                 std::to_string(s->next_step) + ", the manifest carries steps through " +
                 std::to_string(m->through)};
  restored = std::move(*s);
  version = m->version;
  return true;
}

result<bool> pipeline_handle::impl::spawn_verifiers(
    const pipeline_components& parts, const prompt_table_ptr& prompts,
    std::shared_ptr<const verifier_registry> registry, std::shared_ptr<const tokenizer> tok) {
  for (uint32_t i = 0; i < config.actors.verifiers; ++i) {
    if (parts.verifier_actors) {
      auto v = parts.verifier_actors({&sys, i, prompts, tracker, registry});
      if (!v) return error{"verifier " + std::to_string(i) + ": " + v.err().message};
      verifiers.push_back(*v);
    } else {
      verifiers.push_back(spawn_verifier(sys, {prompts, registry, tok, tracker}));
    }
    watch.watch(self, verifiers.back(), "verifier " + std::to_string(i));
  }
  return true;
}

cluster_context pipeline_handle::impl::cluster_view(const prompt_table_ptr& prompts,
                                                    caf::actor supervisor) {
  cluster_context cc;
  cc.sys = &sys;
  cc.config = &config;
  cc.prompts = prompts;
  cc.tracker = tracker;
  cc.metrics = metrics;
  cc.warn = [supervisor](const std::string& w) { caf::anon_send(supervisor, w); };
  cc.note = [l = run_log](const std::string& line) { log_note(l, line); };
  cc.say = [this](const std::string& line) { say(line); };
  return cc;
}

void pipeline_handle::impl::spawn_generators(const pipeline_components& parts,
                                             const prompt_table_ptr& prompts,
                                             const std::vector<verifier_actor>& scorers,
                                             caf::actor supervisor) {
  for (uint32_t i = 0; i < config.actors.generators; ++i) {
    generator_setup gs;
    gs.index = i;
    gs.make_engine = [f = parts.engines.generator, i] { return f(i); };
    gs.prompts = prompts;
    gs.tracker = tracker;
    gs.verifiers = scorers;
    gs.metrics = metrics;
    gs.supervisor = supervisor;
    gs.log = run_log;
    generators.push_back(spawn_generator(sys, std::move(gs)));
    watch.watch(self, generators.back(), "generator " + std::to_string(i));
  }
}

learner_setup pipeline_handle::impl::learner_settings(const pipeline_components& parts,
                                                      const prompt_table_ptr& prompts,
                                                      const metrics_totals& totals,
                                                      const std::string& config_text,
                                                      caf::actor supervisor) const {
  const auto& c = config;
  learner_setup ls;
  ls.send_features = c.tracker.estimator == estimator_kind::learned;
  ls.logprob_tolerance = c.learner.logprob_tolerance;
  ls.make_engine = parts.engines.learner;
  ls.prompts = prompts;
  ls.tracker = tracker;
  ls.generators = generators;
  ls.evaluator = evaluator;
  ls.metrics = metrics;
  ls.supervisor = supervisor;
  ls.steps = c.tracker.steps;
  ls.sample_budget = c.tracker.sample_budget;
  ls.min_steps = c.tracker.min_steps;
  ls.samples_before = totals.samples;
  ls.tokens_before = totals.tokens;
  ls.carried_totals_known = carried_totals_known;
  ls.last_step_samples = totals.last_step_samples;
  ls.evaluated = totals.evaluated;
  ls.checkpoint_every = c.learner.checkpoint_every;
  ls.eval_every = c.eval.every;
  ls.eval_every_samples = c.eval.every_samples;
  ls.exact_lag = c.tracker.lag.exact;
  ls.max_lag = c.tracker.lag.max_lag;
  ls.checkpoint_dir = c.out + "/checkpoints";
  ls.resume_from = options.resume_from;
  if (!c.effective.empty()) ls.config_json = config_text;
  ls.log = run_log;
  return ls;
}

result<bool> pipeline_handle::impl::start(prompt_table_ptr prompts, pipeline_components parts) {
  const auto& c = config;
  const auto& o = options;
  std::optional<tracker_state> restored;
  uint64_t resumed_version = 0;
  if (auto ok = read_resume(restored, resumed_version); !ok) return ok.err();
  const caf::actor supervisor = caf::actor_cast<caf::actor>(self);
  // A failed write of the log file ends the run like any other failed write.
  run_log = log_failures_end_run(o.logger ? o.logger : stream_log(o.log), supervisor);
  if (!parts.engines.generator || !parts.engines.learner) {
    engine_request request;
    request.config = &c;
    request.prompts = prompts;
    request.warn = [log = component_log(run_log, "engines")](const std::string& line) {
      log->warn("{}", line);
    };
    auto built = engines_for(request);
    if (!built)
      return error{built.err().message + "; or pass yours in pipeline_components::engines"};
    if (!parts.engines.generator) parts.engines.generator = built->generator;
    if (!parts.engines.learner) parts.engines.learner = built->learner;
  }
  auto tok = tokenizer::from_charset(tokenizer::default_charset());
  if (!tok) return tok.err();
  auto registry = parts.verifiers ? parts.verifiers
                                  : std::make_shared<const verifier_registry>(
                                        verifier_registry::with_builtins());
  auto shared_tok = std::make_shared<const tokenizer>(*tok);
  log = component_log(run_log, "run");

  const std::string config_text = run_config_text(c.effective);
  auto totals = open_run_dir(restored.has_value(), resumed_version, config_text, supervisor);
  if (!totals) return totals.err();
  if (restored) {
    auto known = resume_budget(o.resume_from, resumed_version, *restored, *totals);
    if (!known) {
      stop_actors();
      return known.err();
    }
    carried_totals_known = *known;
  }
  spawn_tracker_of(prompts, restored, resumed_version);
  if (auto ok = spawn_verifiers(parts, prompts, registry, shared_tok); !ok) {
    stop_actors();
    return ok.err();
  }
  if (auto ok = spawn_workers(parts, prompts, supervisor); !ok) {
    stop_actors();
    return ok.err();
  }
  evaluator = spawn_evaluator(sys, {prompts, c.eval.greedy, c.eval.samples, tracker, metrics});
  watch.watch(self, evaluator, "evaluator");
  learner = spawn_learner(sys, learner_settings(parts, prompts, *totals, config_text, supervisor));
  watch.watch(self, learner, "learner");
  self->send(tracker, start_atom::value, learner, evaluator);
  return true;
}

result<metrics_totals> pipeline_handle::impl::open_run_dir(bool resumed, uint64_t resumed_version,
                                                          const std::string& config_text,
                                                          caf::actor supervisor) {
  const auto& c = config;
  metrics_totals totals;
  if (resumed) {
    auto t = resume_metrics(c.out, resumed_version);
    if (!t) return t.err();
    totals = *t;
  }
  std::error_code ec;
  std::filesystem::create_directories(c.out, ec);
  if (ec) return error{c.out + ": cannot create the output directory: " + ec.message()};
  if (!c.effective.empty())
    if (auto ok = write_file_atomic(c.out + "/config.json", config_text); !ok) return ok.err();
  metrics = spawn_metrics(sys, {c.out, c.tracker.steps, c.progress, /*append=*/resumed, totals,
                                options.observer, run_log, supervisor});
  watch.watch(self, metrics, "metrics");
  return totals;
}

void pipeline_handle::impl::spawn_tracker_of(const prompt_table_ptr& prompts,
                                             const std::optional<tracker_state>& restored,
                                             uint64_t resumed_version) {
  const auto& c = config;
  tracker_setup ts;
  ts.core = c.tracker;
  ts.core.lag.floor_version = resumed_version;  // older weights are gone
  ts.prompts = prompts;
  ts.eval_greedy = c.eval.greedy;
  ts.eval_samples = c.eval.samples;
  ts.restore = restored;
  ts.log = run_log;
  ts.alarm.share = c.metrics.alarm_share;
  tracker = spawn_tracker(sys, ts);
  watch.watch(self, tracker, "tracker");
}

result<bool> pipeline_handle::impl::spawn_workers(const pipeline_components& parts,
                                                  const prompt_table_ptr& prompts,
                                                  caf::actor supervisor) {
  // Parts outside this process (remote workers): they may put hubs in front of the
  // local verifiers and add generators.
  cluster = options.cluster ? options.cluster() : nullptr;
  cluster_context cc = cluster_view(prompts, supervisor);
  std::vector<verifier_actor> scorers = verifiers;
  if (cluster) {
    auto s = cluster->scorers(cc, verifiers);
    if (!s) return s.err();
    scorers = std::move(*s);
    for (const auto& v : scorers)
      if (std::find(verifiers.begin(), verifiers.end(), v) == verifiers.end())
        watch.watch(self, v, "remote verifier hub");
  }
  spawn_generators(parts, prompts, scorers, supervisor);
  if (!cluster) return true;
  auto remote = cluster->generators(cc, scorers);
  if (!remote) return remote.err();
  for (const auto& g : *remote) {
    generators.push_back(g);  // the learner's weights reach the remote workers through it
    watch.watch(self, g, "remote generator hub");
  }
  return true;
}

bool pipeline_handle::impl::last_checkpoint(supervision& st, std::chrono::seconds patience) {
  if (!st.learner_alive) return false;
  bool ok = false;
  self->request(learner, patience, stop_atom::value)
      .receive([&](uint64_t v) { st.out.version = v; ok = true; },
               [&](caf::error& e) { st.checkpoint_failure = error_text(sys, e); });
  return ok;
}

void pipeline_handle::impl::receive_one(supervision& st) {
  const auto end = [&st](std::string why) {
    st.fatal = std::move(why);
    st.running = false;
  };
  self->receive(
      [&](done_atom, uint64_t version) {
        st.out.version = version;
        st.running = false;
      },
      [&](stop_atom, const std::string& what) { end(what); },
      [&](progress_atom, uint64_t, bool training) {
        watch.training = training;
        watch.progressed();
      },
      [&](caf::down_msg& dm) {
        auto it = watch.names.find(dm.source);
        const std::string name = it == watch.names.end() ? "an actor" : it->second;
        if (name == "learner") st.learner_alive = false;
        if (name.rfind("generator ", 0) == 0 && !dm.reason) return;  // its engine failed: warned
        end(name + " stopped: " +
            (dm.reason ? sys.render(dm.reason) : std::string("it quit unexpectedly")));
      },
      [&](const std::string& warning) {
        ++st.out.warnings;
        log_warning(run_log, warning);
        if (warning.rfind("generator ", 0) == 0 &&
            warning.find("cannot load weights") == std::string::npos &&
            ++st.failed_generators == config.actors.generators)
          end("every generator failed; the last: " + warning);
      },
      caf::after(std::chrono::milliseconds(100)) >> [] {});
}

std::optional<std::string> pipeline_handle::impl::stalled() {
  const auto now = steady_clock::now();
  if (now - watch.last_status < std::chrono::seconds(1)) return std::nullopt;
  watch.last_status = now;
  self->request(tracker, std::chrono::seconds(10), status_atom::value)
      .receive(
          [&](tracker_status& s) {
            watch.update(s);
            if (options.observer) options.observer->on_tracker(s);
          },
          [&](caf::error&) {});
  const auto stall = std::chrono::duration<double>(config.stall_seconds);
  if (watch.training || now - watch.last_progress < stall) return std::nullopt;
  std::string learner_says = "the learner did not answer";
  self->request(learner, std::chrono::seconds(10), status_atom::value)
      .receive([&](std::string& s) { learner_says = s; }, [&](caf::error&) {});
  char secs[32];
  std::snprintf(secs, sizeof secs, "%.0f", config.stall_seconds);
  return std::string("no progress for ") + secs + " s (stall_seconds): " +
         (watch.seen.waiting.empty() ? "the tracker has nothing left to generate"
                                     : watch.seen.waiting) +
         "; " + learner_says + "; " + std::to_string(watch.seen.in_flight) +
         " orders in flight, " + std::to_string(watch.seen.queued) + " evaluation orders queued";
}

result<run_outcome> pipeline_handle::impl::wind_down(supervision& st) {
  const auto& c = config;
  auto& fatal = st.fatal;
  // Keep what was learned: a checkpoint of the last completed step, when possible;
  // else say which complete checkpoint is left.
  bool say_kept = bool(fatal);
  if (fatal && !st.out.interrupted && last_checkpoint(st, std::chrono::seconds(120))) {
    *fatal += " (checkpoint " + c.out + "/checkpoints/" + checkpoint_name(st.out.version) +
              " written)";
    say_kept = false;
  }
  self->request(metrics, std::chrono::seconds(30), flush_atom::value)
      .receive([](bool) {},
               [&](caf::error& e) {
                 if (fatal) return;  // the first error is the run's
                 fatal = error_text(sys, e);
                 say_kept = true;
               });
  if (say_kept) *fatal += " (" + kept_checkpoint(c.out, st.checkpoint_failure, *fatal) + ")";
  if (cluster)
    for (const auto& line : cluster->close()) say(line);
  cluster.reset();
  stop_actors();
  if (fatal) return error{*fatal};
  st.out.checkpoint = c.out + "/checkpoints/" + checkpoint_name(st.out.version);
  return st.out;
}

result<run_outcome> pipeline_handle::impl::supervise() {
  supervision st;
  while (st.running) {
    receive_one(st);
    if (!st.running) break;
    if (stop_requested.load() || (options.stop && options.stop->load())) {
      if (!options.stop_line.empty()) say(options.stop_line);
      if (!last_checkpoint(st, std::chrono::seconds(3600)))
        st.fatal = "stop: " + (st.checkpoint_failure.empty() ? "the learner did not answer"
                                                             : st.checkpoint_failure);
      st.out.interrupted = true;
      break;
    }
    // The stall watchdog: the tracker's counters, polled about once a second.
    if (auto why = stalled()) {
      st.fatal = std::move(why);
      break;
    }
  }
  return wind_down(st);
}

pipeline_handle::pipeline_handle(std::unique_ptr<impl> state) : impl_(std::move(state)) {}

pipeline_handle::~pipeline_handle() {
  if (impl_->outcome) return;
  stop();
  wait();
}

result<run_outcome> pipeline_handle::wait() {
  if (!impl_->outcome) impl_->outcome = impl_->supervise();
  return *impl_->outcome;
}

void pipeline_handle::stop() { impl_->stop_requested = true; }

result<std::string> pipeline_handle::checkpoint(std::chrono::seconds timeout) {
  caf::scoped_actor asker{impl_->sys};
  result<std::string> got = error{"the learner did not answer"};
  asker->request(impl_->learner, timeout, save_atom::value)
      .receive(
          [&](uint64_t v) { got = impl_->config.out + "/checkpoints/" + checkpoint_name(v); },
          [&](caf::error& e) {
            got = error{"checkpoint: " + error_text(impl_->sys, e)};
          });
  return got;
}

tracker_actor pipeline_handle::tracker() const { return impl_->tracker; }
learner_actor pipeline_handle::learner() const { return impl_->learner; }
metrics_actor pipeline_handle::metrics() const { return impl_->metrics; }

result<std::unique_ptr<pipeline_handle>> start_pipeline(caf::actor_system& sys,
                                                        const pipeline_config& config,
                                                        prompt_table_ptr prompts,
                                                        pipeline_components components,
                                                        run_options options) {
  auto state = std::make_unique<pipeline_handle::impl>(sys, config, std::move(options));
  if (auto ok = state->start(std::move(prompts), std::move(components)); !ok) return ok.err();
  return std::make_unique<pipeline_handle>(std::move(state));
}

}  // namespace adarl
