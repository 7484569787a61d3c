#include "pipelines/pipeline.hpp"

#include <caf/all.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <ostream>

#include "actors/evaluator.hpp"
#include "actors/generator.hpp"
#include "actors/learner.hpp"
#include "actors/metrics_sink.hpp"
#include "actors/remote_verifier.hpp"
#include "actors/tracker.hpp"
#include "actors/verifier.hpp"
#include "models/sim_engines.hpp"

namespace adarl {

namespace {

struct pipeline_system_config : caf::actor_system_config {
  explicit pipeline_system_config(uint32_t threads) {
    set("scheduler.max-threads", static_cast<size_t>(std::max<uint32_t>(threads, 1)));
    // The actors log through their supervisor; CAF's own console output stays quiet.
    set("logger.console", caf::atom("none"));
  }
};

void say(const run_options& o, const std::string& line) {
  if (o.log) *o.log << line << std::endl;
}

}  // namespace

result<std::string> resolve_checkpoint(const std::string& dir) {
  namespace fs = std::filesystem;
  if (fs::exists(dir + "/tracker.json")) return dir;
  const std::string latest = dir + "/checkpoints/latest";
  std::ifstream f(latest);
  std::string name;
  if (!(f >> name))
    return error{dir + ": not a checkpoint (no tracker.json) and no " + latest};
  const std::string ckpt = dir + "/checkpoints/" + name;
  if (!fs::exists(ckpt + "/tracker.json"))
    return error{latest + " names " + ckpt + ", which has no tracker.json"};
  return ckpt;
}

engine_factories sim_factories(const pipeline_config& c, prompt_table_ptr prompts) {
  auto world = std::make_shared<sim_world>();
  world->model = c.policy.sim;
  world->train = prompts->train;
  world->seed = c.seed;
  for (const auto& r : prompts->rows) world->answers.push_back(r.item.answer);
  auto latency = c.actors.sim_latency;
  latency.capacity = c.actors.generator_capacity;
  engine_factories f;
  f.generator = [world, latency](uint32_t) -> result<std::unique_ptr<generation_engine>> {
    auto tok = tokenizer::from_charset(tokenizer::default_charset());
    if (!tok) return tok.err();
    return make_sim_generator(*world, latency, *tok);
  };
  f.learner = [world]() -> result<std::unique_ptr<learner_engine>> {
    return make_sim_learner(*world);
  };
  return f;
}

result<run_outcome> run_pipeline(const pipeline_config& c, prompt_table_ptr prompts,
                                 const engine_factories& engines, const run_options& o) {
  std::optional<tracker_state> restored;
  if (!o.resume_from.empty()) {
    auto s = load_tracker_state(o.resume_from + "/tracker.json");
    if (!s) return s.err();
    restored = std::move(*s);
  }
  auto tok = tokenizer::from_charset(tokenizer::default_charset());
  if (!tok) return tok.err();
  auto registry = std::make_shared<const verifier_registry>(verifier_registry::with_builtins());
  auto shared_tok = std::make_shared<const tokenizer>(*tok);

  pipeline_system_config cfg(c.actors.scheduler_threads);
  caf::actor_system sys{cfg};
  caf::scoped_actor self{sys};
  const caf::actor supervisor = caf::actor_cast<caf::actor>(self);

  metrics_totals totals;
  if (restored) {
    auto t = resume_metrics(c.out, restored->next_step);
    if (!t) return t.err();
    totals = *t;
  }
  auto metrics = spawn_metrics(
      sys, {c.out, c.tracker.steps, c.progress, /*append=*/restored.has_value(), totals});
  tracker_setup ts;
  ts.core = c.tracker;
  ts.prompts = prompts;
  ts.eval_greedy = c.eval.greedy;
  ts.eval_samples = c.eval.samples;
  ts.restore = restored;
  auto tracker = spawn_tracker(sys, ts);
  std::vector<verifier_actor> verifiers;
  for (uint32_t i = 0; i < c.actors.verifiers; ++i)
    verifiers.push_back(spawn_verifier(sys, {prompts, registry, shared_tok, tracker}));
  // Remote workers: every batch goes through the hub; the local verifiers are its fallback.
  std::shared_ptr<remote_verifier_hub> hub;
  std::vector<verifier_actor> scorers = verifiers;
  if (const auto& r = c.actors.remote_verifiers; !r.bind.empty()) {
    remote_verifier_setup rs;
    rs.bind = r.bind;
    rs.pool = r.pool;
    rs.scoring = {prompts, registry, shared_tok, tracker};
    rs.local = verifiers;
    rs.warn = [supervisor](const std::string& w) { caf::anon_send(supervisor, w); };
    rs.curve = r.curve;
    rs.curve_clients = r.curve_clients;
    auto opened = remote_verifier_hub::open(std::move(rs));
    if (!opened) {
      for (const auto& v : verifiers) self->send_exit(v, caf::exit_reason::user_shutdown);
      self->send_exit(tracker, caf::exit_reason::user_shutdown);
      self->send_exit(metrics, caf::exit_reason::user_shutdown);
      return opened.err();
    }
    hub = std::move(*opened);
    say(o, "remote verifiers: listening on " + hub->endpoint() +
               " (adarl worker verify --connect ENDPOINT" +
               (r.curve ? " --server-key '" + r.curve->public_key + "')" : std::string(")")));
    scorers = {spawn_remote_verifier(sys, hub)};
  }
  std::vector<generator_actor> generators;
  for (uint32_t i = 0; i < c.actors.generators; ++i) {
    generator_setup gs;
    gs.index = i;
    gs.make_engine = [f = engines.generator, i] { return f(i); };
    gs.prompts = prompts;
    gs.tracker = tracker;
    gs.verifiers = scorers;
    gs.metrics = metrics;
    gs.supervisor = supervisor;
    generators.push_back(spawn_generator(sys, std::move(gs)));
  }
  auto evaluator = spawn_evaluator(sys, {prompts, c.eval.greedy, c.eval.samples, tracker, metrics});
  learner_setup ls;
  ls.make_engine = engines.learner;
  ls.prompts = prompts;
  ls.tracker = tracker;
  ls.generators = generators;
  ls.evaluator = evaluator;
  ls.metrics = metrics;
  ls.supervisor = supervisor;
  ls.steps = c.tracker.steps;
  ls.sample_budget = c.tracker.sample_budget;
  ls.samples_before = totals.samples;
  ls.checkpoint_every = c.learner.checkpoint_every;
  ls.eval_every = c.eval.every;
  ls.eval_every_samples = c.eval.every_samples;
  ls.exact_lag = c.tracker.lag.exact;
  ls.max_lag = c.tracker.lag.max_lag;
  ls.checkpoint_dir = c.out + "/checkpoints";
  ls.resume_from = o.resume_from;
  auto learner = spawn_learner(sys, std::move(ls));
  self->send(tracker, start_atom::value, learner, evaluator);

  run_outcome out;
  std::optional<std::string> fatal;
  uint32_t failed_generators = 0;
  bool running = true;
  while (running) {
    self->receive(
        [&](done_atom, uint64_t version) {
          out.version = version;
          running = false;
        },
        [&](stop_atom, const std::string& what) {
          fatal = what;
          running = false;
        },
        [&](const std::string& warning) {
          ++out.warnings;
          say(o, "warning: " + warning);
          if (warning.rfind("generator ", 0) == 0 &&
              warning.find("cannot load weights") == std::string::npos &&
              ++failed_generators == c.actors.generators) {
            fatal = "every generator failed; the last: " + warning;
            running = false;
          }
        },
        caf::after(std::chrono::milliseconds(100)) >> [&] {
          if (!o.stop || !o.stop->load()) return;
          say(o, "stopping: draining the learner and writing a checkpoint");
          self->request(learner, caf::infinite, stop_atom::value)
              .receive([&](uint64_t v) { out.version = v; },
                       [&](caf::error& e) { fatal = "stop: " + sys.render(e); });
          out.interrupted = true;
          running = false;
        });
  }
  self->request(metrics, std::chrono::seconds(30), flush_atom::value)
      .receive([](bool) {}, [](caf::error&) {});
  for (const auto& g : generators) self->send_exit(g, caf::exit_reason::user_shutdown);
  if (hub) {
    hub->close();  // before the verifiers and the tracker it sends to go away
    self->send_exit(scorers.front(), caf::exit_reason::user_shutdown);
    const auto s = hub->stats();
    say(o, "remote verifiers: " + std::to_string(s.pool.returned) + " batches scored by workers, " +
               std::to_string(s.pool.local) + " locally, " + std::to_string(s.pool.reissued) +
               " re-issued, " + std::to_string(s.pool.workers_lost) + " workers lost, " +
               std::to_string(s.pool.stale) + " stale results dropped, " +
               std::to_string(s.bad_results) + " unusable, " + std::to_string(s.other_session) +
               " from another run, " + std::to_string(s.refused) + " connections refused");
  }
  for (const auto& v : verifiers) self->send_exit(v, caf::exit_reason::user_shutdown);
  self->send_exit(learner, caf::exit_reason::user_shutdown);
  self->send_exit(evaluator, caf::exit_reason::user_shutdown);
  self->send_exit(tracker, caf::exit_reason::user_shutdown);
  self->send_exit(metrics, caf::exit_reason::user_shutdown);
  if (fatal) return error{*fatal};
  out.checkpoint = c.out + "/checkpoints/" + checkpoint_name(out.version);
  return out;
}

}  // namespace adarl
