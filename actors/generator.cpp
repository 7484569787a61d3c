#include "actors/generator.hpp"

#include <caf/all.hpp>

#include <chrono>
#include <algorithm>
#include <deque>
#include <map>
#include <optional>
#include <unordered_map>

#include <spdlog/logger.h>

#include "actors/failure.hpp"
#include "base/clock.hpp"

namespace adarl {

namespace {

using clock_type = steady_clock;

struct generator_state {
  generator_setup setup;
  std::unique_ptr<generation_engine> engine;
  std::deque<work_order> queue;                       ///< Received, not yet admitted.
  std::unordered_map<uint64_t, work_order> active;    ///< By ticket.
  std::vector<generation_result> finished;
  uint64_t next_ticket = 0;
  /// The newest policy versions received (at most keep_versions): an evaluation order is
  /// drawn with exactly the version it names, which may be older than the newest.
  std::map<uint64_t, weights_ptr> weights;
  static constexpr size_t keep_versions = 3;
  uint32_t pinned = 0;  ///< Active evaluation rows: the weights may not change under them.
  bool loaded = false;  ///< Weights of the run were loaded at least once.
  size_t next_verifier = 0;
  bool decode_scheduled = false;
  double busy = 0;                                    ///< Since the last load report.
  uint64_t tokens = 0;
  clock_type::time_point report_start = clock_type::now();
  logger_ptr log;
  static inline const char* name = "generator";
};

using self_ptr = generator_actor::stateful_pointer<generator_state>;

void load_weights(self_ptr self, const weights_ptr& w) {
  auto& st = self->state;
  st.loaded = true;  // (a failure is told: retrying the same bytes would not help)
  st.log->debug("loading weights of version {}", w->version);
  if (auto ok = st.engine->load(w); !ok)
    caf::anon_send(st.setup.supervisor, "generator " + std::to_string(st.setup.index) +
                                            ": cannot load weights: " + ok.err().message);
}

/// Fills free engine slots from the queue with the orders the current weights may draw:
/// a training order needs at least its min_version, an evaluation order exactly the
/// version it names. Then picks the weights to hold next: the newest as soon as no
/// evaluation row is in flight (training rows in flight continue with them), or, when
/// the first waiting order is an evaluation of an older version still kept, that
/// version once the rows in flight have drained (admission stops meanwhile).
void admit(self_ptr self) {
  auto& st = self->state;
  const auto t0 = clock_type::now();
  for (int pass = 0; pass < 2; ++pass) {
    const uint64_t version = st.engine->version();
    std::optional<uint64_t> older;  // an evaluation of an older version waits first
    // An engine that starts without weights of the run (a remote worker's) admits
    // nothing before the first version is loaded.
    const bool may_admit = st.loaded || !st.setup.wait_for_weights;
    for (auto it = st.queue.begin(); may_admit && it != st.queue.end() &&
                                     st.engine->active() < st.engine->capacity();) {
      const bool eval = it->eval_round != 0;
      const uint64_t want = it->min_version;
      if (eval && want < version && st.weights.count(want)) {
        older = want;
        break;
      }
      // An evaluation whose version is gone (evicted) is drawn with the current weights.
      if (want > version || (eval && want != version && st.weights.count(want))) {
        ++it;
        continue;
      }
      const work_order o = *it;
      it = st.queue.erase(it);
      generation_job job;
      job.ticket = st.next_ticket++;
      job.prompt_id = o.prompt_id;
      if (st.setup.prompt_tokens) {
        if (auto tokens = st.setup.prompt_tokens(o.prompt_id)) job.prompt = *tokens;
      } else if (st.setup.prompts && o.prompt_id < st.setup.prompts->rows.size()) {
        job.prompt = st.setup.prompts->rows[o.prompt_id].tokens;
      }
      job.stream = o.stream;
      job.greedy = o.greedy;
      st.active.emplace(job.ticket, o);
      st.pinned += eval ? 1 : 0;
      st.engine->admit(std::move(job));
    }
    weights_ptr next;
    if (older && st.engine->active() == 0)
      next = st.weights[*older];
    else if (!older && st.pinned == 0 && !st.weights.empty() &&
             (st.weights.rbegin()->first != version || !st.loaded))
      next = st.weights.rbegin()->second;  // the first weights load even at the same number
    if (!next) break;
    load_weights(self, next);  // then admit what the new weights may draw
  }
  st.busy += seconds_since(t0);
  if (st.engine->active() > 0 && !st.decode_scheduled) {
    st.decode_scheduled = true;
    self->send(self, decode_atom::value);
  }
}

/// Keeps a version (the newest keep_versions) and admits what it may draw; the engine
/// loads it when no evaluation row pins the current weights.
void keep_weights(self_ptr self, weights_ptr w) {
  auto& st = self->state;
  auto& ws = st.weights;
  ws[w->version] = std::move(w);
  // An evaluation is labelled with its version: a version that a queued evaluation
  // order names is kept beyond keep_versions until that order is admitted, so that it
  // is never drawn with other weights. The newest version is always kept.
  const auto wanted = [&st](uint64_t v) {
    return std::any_of(st.queue.begin(), st.queue.end(), [v](const work_order& o) {
      return o.eval_round != 0 && o.min_version == v;
    });
  };
  for (auto it = ws.begin(); ws.size() > generator_state::keep_versions && it != std::prev(ws.end());)
    it = wanted(it->first) ? std::next(it) : ws.erase(it);
  admit(self);
}

void report_load(self_ptr self) {
  auto& st = self->state;
  const double wall = seconds_since(st.report_start);
  if (wall < st.setup.load_report_seconds) return;
  self->send(st.setup.metrics, load_atom::value,
             generator_load{st.setup.index, st.busy, wall, st.tokens});
  st.busy = 0;
  st.tokens = 0;
  st.report_start = clock_type::now();
}

void decode(self_ptr self) {
  auto& st = self->state;
  st.decode_scheduled = false;
  st.finished.clear();
  const auto t0 = clock_type::now();
  st.engine->step(st.finished);
  st.busy += seconds_since(t0);
  if (!st.finished.empty()) {
    std::vector<completion> batch;
    batch.reserve(st.finished.size());
    for (auto& r : st.finished) {
      auto it = st.active.find(r.ticket);
      if (it == st.active.end()) continue;
      completion c;
      c.order = it->second;
      if (c.order.eval_round != 0) --st.pinned;
      st.active.erase(it);
      st.tokens += r.tokens.size();
      c.tokens = std::move(r.tokens);
      c.logprobs = std::move(r.logprobs);
      c.ended = r.ended;
      c.version = r.version;
      batch.push_back(std::move(c));
    }
    const auto n = uint32_t(batch.size());
    const auto& v = st.setup.verifiers;
    // The freed rows' credit travels with the results (one message to the tracker).
    self->send(v[st.next_verifier++ % v.size()], verify_atom::value, std::move(batch), n,
               generator_actor{self});
  }
  admit(self);
  report_load(self);
}

generator_actor::behavior_type generator_fun(self_ptr self, generator_setup setup) {
  report_exceptions(self, "generator");
  auto& st = self->state;
  auto engine = setup.make_engine();
  st.setup = std::move(setup);
  if (!engine) {
    caf::anon_send(st.setup.supervisor, "generator " + std::to_string(st.setup.index) + ": " +
                                        engine.err().message);
    self->quit();
    return {[](work_atom, std::vector<work_order>&) {}, [](weights_atom, weights_ptr) {},
            [](weights_atom, weight_bytes_ptr) {}, [](decode_atom) {}};
  }
  st.engine = std::move(*engine);
  const uint32_t cap = st.engine->capacity();
  const uint32_t credit = cap + (st.setup.prefetch ? st.setup.prefetch : cap);
  st.log = component_log(st.setup.log, "generator " + std::to_string(st.setup.index));
  st.log->info("engine ready: {} rows, {} credits", cap, credit);
  self->send(st.setup.tracker, credit_atom::value, credit, generator_actor{self});
  return {
      [=](work_atom, std::vector<work_order>& orders) {
        auto& q = self->state.queue;
        q.insert(q.end(), orders.begin(), orders.end());
        admit(self);
      },
      [=](weights_atom, weights_ptr w) { keep_weights(self, std::move(w)); },
      [=](weights_atom, weight_bytes_ptr b) {
        auto w = self->state.engine->weights_from_bytes(b->bytes, b->version);
        if (w)
          keep_weights(self, std::move(*w));
        else
          caf::anon_send(self->state.setup.supervisor,
                         "generator " + std::to_string(self->state.setup.index) +
                             ": cannot load weights: " + w.err().message);
      },
      [=](decode_atom) { decode(self); },
  };
}

}  // namespace

generator_actor spawn_generator(caf::actor_system& sys, generator_setup setup) {
  return sys.spawn<caf::detached>(generator_fun, std::move(setup));
}

}  // namespace adarl
