#include "actors/learner.hpp"

#include <caf/all.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>

#include "actors/clock.hpp"

namespace adarl {

std::string checkpoint_name(uint64_t version) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "step-%06llu", static_cast<unsigned long long>(version));
  return buf;
}

namespace {

using clock_type = steady_clock;

struct learner_state {
  learner_setup setup;
  std::unique_ptr<learner_engine> engine;
  std::map<uint64_t, std::vector<train_group>> groups;
  std::map<uint64_t, step_report> reports;
  int64_t ready_through = -1;  ///< Every step up to this one has reported.
  uint64_t version() const { return engine->version(); }
  clock_type::time_point start = clock_type::now();
  clock_type::time_point last_step = clock_type::now();
  bool finishing = false;
  uint64_t samples = 0;  ///< Cumulative samples of the trained steps.
  bool budget_spent() const { return setup.sample_budget && samples >= setup.sample_budget; }
  static inline const char* name = "learner";
};

using self_ptr = learner_actor::stateful_pointer<learner_state>;

void fail(self_ptr self, const std::string& what) {
  caf::anon_send(self->state.setup.supervisor, "learner: " + what);
}

void publish(self_ptr self) {
  auto& st = self->state;
  weights_ptr w = st.engine->snapshot();
  for (const auto& g : st.setup.generators) self->send(g, weights_atom::value, w);
  self->send(st.setup.tracker, version_atom::value, st.version());
}

/// Saves model and optimizer, then the tracker's state into the same directory, then
/// points OUT/checkpoints/latest at it; `then` runs once all of it is written.
void checkpoint(self_ptr self, std::function<void(bool)> then) {
  auto& st = self->state;
  const uint64_t v = st.version();
  const std::string dir = st.setup.checkpoint_dir + "/" + checkpoint_name(v);
  std::error_code ec;
  std::filesystem::create_directories(st.setup.checkpoint_dir, ec);
  if (auto ok = st.engine->save(dir); !ok) {
    fail(self, "checkpoint " + dir + ": " + ok.err().message);
    return then(false);
  }
  self->request(st.setup.tracker, caf::infinite, save_atom::value, dir + "/tracker.json")
      .then(
          [=](bool ok) {
            if (ok) {
              const std::string latest = self->state.setup.checkpoint_dir + "/latest";
              std::ofstream(latest + ".tmp") << checkpoint_name(v) << "\n";
              std::filesystem::rename(latest + ".tmp", latest);
            } else {
              fail(self, "checkpoint " + dir + ": the tracker could not write its state");
            }
            then(ok);
          },
          [=](caf::error&) { then(false); });
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
    checkpoint(self, [=](bool) {
      caf::anon_send(self->state.setup.supervisor, done_atom::value, self->state.version());
    });
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
      s.completion = std::move(c.tokens);
      s.behaviour_logprobs = std::move(c.logprobs);
      s.advantage = g.advantages[i];
      s.reward = c.reward;
      s.version = c.version;
      batch.push_back(std::move(s));
    }
  }
  return batch;
}

/// Trains every step whose data is complete, in order.
void train_ready(self_ptr self) {
  auto& st = self->state;
  while (!st.finishing && st.version() < st.setup.steps) {
    const uint64_t step = st.version();
    auto rep = st.reports.find(step);
    if (rep == st.reports.end()) return;
    // Deterministic mode (lag_gate::may_publish): step v + max_lag must be generated
    // with version v, so version v + 1 waits until that generation is complete.
    const uint64_t needed = std::min(step + st.setup.max_lag, st.setup.steps - 1);
    if (st.setup.exact_lag && st.ready_through < int64_t(needed)) return;
    step_record rec;
    rec.sampling = std::move(rep->second);
    const uint64_t samples_before = st.samples;
    st.samples += rec.sampling.samples;
    st.reports.erase(rep);
    rec.wait_seconds = seconds_since(st.last_step);
    auto t0 = clock_type::now();
    auto batch = batch_of(st, st.groups[step]);
    st.groups.erase(step);
    auto stats = st.engine->train(batch);
    if (!stats) {
      fail(self, "step " + std::to_string(step) + ": " + stats.err().message);
      stats = train_stats{};
    }
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
    rec.wall_seconds = seconds_since(st.last_step);
    rec.elapsed_seconds = seconds_since(st.start);
    st.last_step = clock_type::now();
    self->send(st.setup.metrics, record_atom::value, std::move(rec));
    const uint64_t v = st.version();
    if (v >= st.setup.steps || st.budget_spent()) return finish_run(self);
    const uint64_t per = st.setup.eval_every_samples;
    const bool sample_mark = per && samples_before / per != st.samples / per;
    if ((st.setup.eval_every && v % st.setup.eval_every == 0) || sample_mark)
      evaluate(self, [] {});
    if (st.setup.checkpoint_every && v % st.setup.checkpoint_every == 0)
      checkpoint(self, [](bool) {});
  }
}

learner_actor::behavior_type learner_fun(self_ptr self, learner_setup setup) {
  auto& st = self->state;
  auto engine = setup.make_engine();
  st.setup = std::move(setup);
  st.samples = st.setup.samples_before;
  auto idle = learner_actor::behavior_type{
      [](group_atom, train_group&) {}, [](ready_atom, step_report&) {},
      [](stop_atom) -> uint64_t { return 0; }};
  if (!engine) {
    caf::anon_send(st.setup.supervisor, stop_atom::value, "learner: " + engine.err().message);
    return idle;
  }
  st.engine = std::move(*engine);
  if (!st.setup.resume_from.empty())
    if (auto ok = st.engine->restore(st.setup.resume_from); !ok) {
      caf::anon_send(st.setup.supervisor, stop_atom::value,
                     "learner: resume from " + st.setup.resume_from + ": " + ok.err().message);
      st.engine.reset();
      return idle;
    }
  publish(self);
  evaluate(self, [] {});
  if (st.version() >= st.setup.steps || st.budget_spent()) finish_run(self);
  return {
      [=](group_atom, train_group& g) {
        self->state.groups[g.step].push_back(std::move(g));
      },
      [=](ready_atom, step_report& r) {
        auto& s = self->state;
        s.reports[r.step] = std::move(r);
        while (s.reports.count(uint64_t(s.ready_through + 1)) ||
               uint64_t(s.ready_through + 1) < s.version())
          ++s.ready_through;
        train_ready(self);
      },
      [=](stop_atom) -> caf::typed_response_promise<uint64_t> {
        auto rp = self->make_response_promise<uint64_t>();
        self->state.finishing = true;  // no more training
        checkpoint(self, [=](bool) mutable { rp.deliver(self->state.version()); });
        return rp;
      },
  };
}

}  // namespace

learner_actor spawn_learner(caf::actor_system& sys, learner_setup setup) {
  return sys.spawn<caf::detached>(learner_fun, std::move(setup));
}

}  // namespace adarl
