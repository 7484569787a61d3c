#include "actors/tracker.hpp"

#include <caf/all.hpp>

#include <algorithm>

#include <chrono>
#include <deque>
#include <fstream>
#include <map>
#include <set>
#include <string_view>
#include <unordered_map>

#include <nlohmann/json.hpp>
#include <spdlog/logger.h>

#include "actors/failure.hpp"
#include "base/atomic_file.hpp"
#include "base/clock.hpp"
#include "base/random_keys.hpp"

namespace adarl {

namespace {

/// A generator with credit left.
struct credit_line {
  generator_actor handle;
  uint32_t credit = 0;
  bool gone = false;  ///< It ended (a remote worker lost): no more work for it.
};

/// A step's accepted samples waiting for their group, [prompt slot][sample index] (the
/// core accepts each (step, slot, index) once, so a cell is written once), and the
/// reason codes of its zero rewards with their counts (a handful of distinct codes:
/// a linear search beats a map).
struct step_store {
  std::vector<std::vector<completion>> rows;
  std::vector<std::pair<std::string, uint32_t>> zero_reasons;

  void count_zero(const std::string& reason) {
    const std::string_view code = reason.empty() ? std::string_view{"zero"} : reason;
    for (auto& [r, n] : zero_reasons)
      if (r == code) {
        ++n;
        return;
      }
    zero_reasons.emplace_back(code, 1);
  }
};

struct tracker_state_t {
  tracker_setup setup;
  std::unique_ptr<tracker_core> core;
  learner_actor learner;
  evaluator_actor evaluator;
  std::vector<credit_line> generators;
  std::unordered_map<caf::actor_addr, size_t> generator_index;  ///< Into `generators`.
  std::deque<size_t> ready;                        ///< Generators with credit (indices).
  std::deque<work_order> eval_queue;
  uint64_t learner_version = 0;
  /// Per step in flight, until its report is sent.
  std::map<uint64_t, step_store> store;
  std::set<uint64_t> unreported;  ///< Steps generated, reports waiting for earlier steps.
  tracker_output out;
  std::vector<work_item> items;
  uint64_t results = 0;  ///< Scored completions received (training and evaluation).
  reason_watch alarms;   ///< Zero rewards of a broken set-up, over the run's steps.
  logger_ptr log;
  static inline const char* name = "tracker";
};

using self_ptr = tracker_actor::stateful_pointer<tracker_state_t>;

step_report make_report(const tracker_state_t& st, uint64_t step) {
  step_report r;
  r.step = step;
  if (const step_summary* s = st.core->summary(step)) {
    fill_from(step_report_sources, r, *s);  // messages/messages.hpp
    // Slot order, not completion order: the record reads the same in every run.
    auto visits = s->visits;
    std::stable_sort(visits.begin(), visits.end(),
                     [](const auto& a, const auto& b) { return a.slot < b.slot; });
    for (const auto& v : visits) {
      r.visit_prompts.push_back(v.prompt);
      r.visit_predicted.push_back(v.predicted);
      r.visit_samples.push_back(v.samples);
      r.visit_positives.push_back(v.positives);
      r.visit_exits.push_back(static_cast<uint32_t>(v.exit));
    }
  }
  if (const budget_point* b = st.core->spent(step)) {
    r.cumulative_samples = b->through.samples;
    r.cumulative_tokens = b->through.tokens;
  }
  if (const step_counters* c = st.core->counters(step)) {
    r.results = c->results;
    r.result_tokens = c->tokens;
    r.duplicates = c->duplicates;
    r.reissued = c->reissued;
    r.lag_mean = r.samples ? double(c->lag_sum) / double(r.samples) : 0.0;
    r.lag_max = c->lag_max;
    r.generation_seconds = double(c->done_ns - c->opened_ns) * 1e-9;
  }
  if (auto it = st.store.find(step); it != st.store.end())
    for (const auto& [reason, n] : it->second.zero_reasons) {
      r.zero_reasons.push_back(reason);
      r.zero_counts.push_back(n);
    }
  return r;
}

/// Says on the terminal (a warning) when a reason that means a broken set-up passes
/// its share of the rewards: the run goes on, but not in silence.
void warn_of_broken_setup(tracker_state_t& st, const step_report& r) {
  std::vector<std::pair<std::string, uint32_t>> zeros;
  for (size_t k = 0; k < r.zero_reasons.size() && k < r.zero_counts.size(); ++k)
    zeros.emplace_back(r.zero_reasons[k], r.zero_counts[k]);
  for (const auto& a : st.alarms.add(zeros, r.samples))
    st.log->warn("{} of the {} rewards so far ({:.1f}%) are 0 with reason {}, above "
                 "metrics.alarm_share ({:.1f}%): the verifier cannot use these items' "
                 "references or tests (adarl tasks check FILE names them)",
                 a.count, a.samples, 100.0 * a.share(), a.reason,
                 100.0 * st.setup.alarm.share);
}

void deliver(self_ptr self);

/// Hands out work to generators with credit until either runs out.
void dispatch(self_ptr self) {
  auto& st = self->state;
  if (!st.learner) return;  // not connected yet: nothing may finish before it is
  const uint64_t now = now_ns();
  while (!st.ready.empty()) {
    credit_line& g = st.generators[st.ready.front()];
    if (g.gone || g.credit == 0) {
      st.ready.pop_front();
      continue;
    }
    // Evaluation orders first, then the strategies' requests; the batch is allocated
    // only once there is work for it.
    const size_t from_eval = std::min<size_t>(g.credit, st.eval_queue.size());
    st.items.clear();
    if (from_eval < g.credit)
      st.core->next_work(g.credit - uint32_t(from_eval), st.learner_version, now, st.items);
    // A step whose prompts were all skipped finished as it opened: report it now.
    st.core->take_started(st.out);
    if (!st.out.finished.empty() || !st.out.steps_done.empty()) deliver(self);
    if (from_eval + st.items.size() == 0) return;  // no work now: credit stays for later
    std::vector<work_order> batch;
    batch.reserve(from_eval + st.items.size());
    batch.insert(batch.end(), st.eval_queue.begin(), st.eval_queue.begin() + from_eval);
    st.eval_queue.erase(st.eval_queue.begin(), st.eval_queue.begin() + from_eval);
    for (const auto& w : st.items)
      batch.push_back({w.step, w.slot, w.index, w.prompt_id, w.stream, 0, false,
                       st.core->min_version(w.step)});
    g.credit -= uint32_t(batch.size());
    if (g.credit == 0) st.ready.pop_front();
    self->send(g.handle, work_atom::value, std::move(batch));
  }
}

/// Moves the kept samples of finished groups to the learner, then step reports.
void deliver(self_ptr self) {
  auto& st = self->state;
  for (auto& sg : st.out.finished) {
    const finished_group& g = sg.group;
    auto& pool = st.store[sg.step].rows;
    train_group tg;
    tg.step = sg.step;
    tg.slot = g.slot;
    tg.prompt_id = g.prompt_id;
    tg.trainable = g.trainable();
    if (g.slot >= pool.size()) pool.resize(g.slot + 1);
    auto& row = pool[g.slot];
    for (size_t i = 0; i < g.kept.size(); ++i) {
      if (g.kept[i] >= row.size()) continue;  // cannot happen: kept samples were accepted
      tg.advantages.push_back(g.advantages[i] * g.weight);
      tg.samples.push_back(std::move(row[g.kept[i]]));
    }
    std::vector<completion>().swap(row);  // the group is done: free its samples
    self->send(st.learner, group_atom::value, std::move(tg));
  }
  // Reports leave in step order, once each step is generated with all earlier ones:
  // then the budget through it is known (tracker_core::spent).
  for (uint64_t step : st.out.steps_done) {
    st.log->debug("step {} generated: {} results so far", step, st.results);
    st.unreported.insert(step);
  }
  st.out.clear();
  while (!st.unreported.empty() &&
         int64_t(*st.unreported.begin()) <= st.core->generated_through()) {
    const uint64_t step = *st.unreported.begin();
    st.unreported.erase(st.unreported.begin());
    auto report = make_report(st, step);
    warn_of_broken_setup(st, report);
    self->send(st.learner, ready_atom::value, std::move(report));
    st.store.erase(step);
  }
}

/// A generator that ended or was lost gets no more work.
void retire_generator(self_ptr self, const caf::actor_addr& a) {
  auto& s = self->state;
  auto it = s.generator_index.find(a);
  if (it == s.generator_index.end()) return;
  auto& g = s.generators[it->second];
  g.gone = true;
  g.credit = 0;  // dispatch skips it and drops it from `ready`
}

/// Hands out again at once what a lost generator held, evaluation orders first.
void reissue(self_ptr self, const std::vector<work_order>& orders) {
  auto& s = self->state;
  for (auto it = orders.rbegin(); it != orders.rend(); ++it)
    if (it->eval_round != 0) s.eval_queue.push_front(*it);
  for (const auto& o : orders)
    if (o.eval_round == 0) s.core->reissue_now(o.step, o.slot, o.index);
  dispatch(self);
}

/// Records that generator g can take n more orders (work goes out at the next dispatch).
void add_credit(self_ptr self, uint32_t n, const generator_actor& g) {
  if (n == 0 || !g) return;
  auto& s = self->state;
  auto it = s.generator_index.find(g.address());  // find first: no node per message
  if (it == s.generator_index.end()) {
    it = s.generator_index.emplace(g.address(), s.generators.size()).first;
    s.generators.push_back({g, 0});
    self->monitor(g);  // a generator that ends takes no more work (see the down handler)
  }
  const size_t i = it->second;
  if (s.generators[i].gone) return;
  if (s.generators[i].credit == 0) s.ready.push_back(i);
  s.generators[i].credit += n;
}

void on_scored(self_ptr self, std::vector<completion>& batch) {
  auto& st = self->state;
  std::vector<completion> eval;
  const uint64_t now = now_ns();
  st.results += batch.size();
  for (auto& c : batch) {
    if (c.order.eval_round != 0) {
      eval.push_back(std::move(c));
      continue;
    }
    const work_result r{c.order.step, c.order.slot, c.order.index, c.reward,
                        uint32_t(c.tokens.size()), c.version};
    if (st.core->on_result(r, now, st.out) != result_fate::accepted) continue;
    // The group may have finished with this very sample: store before delivering.
    auto& step = st.store[r.step];
    if (c.reward <= 0.f) step.count_zero(c.reason);
    auto& pool = step.rows;
    if (r.slot >= pool.size()) pool.resize(r.slot + 1);
    auto& row = pool[r.slot];
    if (r.index >= row.size()) row.resize(r.index + 1);
    row[r.index] = std::move(c);
    deliver(self);
  }
  if (!eval.empty() && st.evaluator) self->send(st.evaluator, scored_atom::value, std::move(eval));
  dispatch(self);
}

/// The policy's features of every prompt, for the learned estimator (refused with an
/// error in the log when they do not fit the prompts).
void take_features(self_ptr self, const prompt_features_ptr& f) {
  auto& s = self->state;
  if (!f) return;
  if (auto ok = s.core->set_prompt_features(*f); !ok)
    s.log->error("prompt features refused: {}", ok.err().message);
  else if (*ok)
    s.log->info("prompt features: {} prompts x {}", f->size(), f->empty() ? 0 : (*f)[0].size());
  dispatch(self);
}

/// Queues the orders of one held-out evaluation of `version` (a greedy completion and
/// eval_samples sampled ones per held-out prompt); returns how many.
uint32_t queue_evaluation(self_ptr self, uint32_t round, uint64_t version) {
  auto& s = self->state;
  const auto& t = *s.setup.prompts;
  uint32_t n = 0;
  for (uint32_t h = 0; h < t.held_out(); ++h) {
    const uint64_t id = t.train + h;
    if (s.setup.eval_greedy) {
      s.eval_queue.push_back(eval_order(s.setup.core.seed, round, version, h, id, 0, true));
      ++n;
    }
    for (uint32_t k = 1; k <= s.setup.eval_samples; ++k, ++n)
      s.eval_queue.push_back(eval_order(s.setup.core.seed, round, version, h, id, k, false));
  }
  dispatch(self);
  return n;
}

tracker_actor::behavior_type tracker_fun(self_ptr self, tracker_setup setup) {
  report_exceptions(self, "tracker");
  auto& st = self->state;
  st.core = std::make_unique<tracker_core>(setup.core, setup.prompts->train);
  if (setup.restore) st.core->restore(*setup.restore);  // validated by the loader
  st.setup = std::move(setup);
  st.log = component_log(st.setup.log, "tracker");
  st.alarms = reason_watch(st.setup.alarm);
  const uint64_t tick = st.setup.tick_ns ? st.setup.tick_ns : st.setup.core.lease_ns / 4;
  self->delayed_send(self, std::chrono::nanoseconds(tick), tick_atom::value);
  self->set_down_handler([=](caf::down_msg& dm) { retire_generator(self, dm.source); });
  return {
      [=](features_atom, prompt_features_ptr f) { take_features(self, f); },
      [=](credit_atom, uint32_t n, generator_actor g) {
        add_credit(self, n, g);
        dispatch(self);
      },
      [=](scored_atom, std::vector<completion>& batch) { on_scored(self, batch); },
      [=](scored_atom, std::vector<completion>& batch, uint32_t n, generator_actor g) {
        add_credit(self, n, g);  // dispatched by on_scored
        on_scored(self, batch);
      },
      [=](reissue_atom, std::vector<work_order>& orders) { reissue(self, orders); },
      [=](reissue_atom, std::vector<work_order>& orders, generator_actor g) {
        retire_generator(self, g.address());
        reissue(self, orders);
      },
      [=](version_atom, uint64_t v) {
        auto& s = self->state;
        s.learner_version = std::max(s.learner_version, v);
        s.core->retire_through(v);
        dispatch(self);
      },
      [=](eval_atom, uint32_t round, uint64_t version) -> uint32_t {
        return queue_evaluation(self, round, version);
      },
      [=](tick_atom) {
        self->state.core->expire(now_ns());
        dispatch(self);
        self->delayed_send(self, std::chrono::nanoseconds(tick), tick_atom::value);
      },
      [=](save_atom, const std::string& path, int64_t through) -> caf::result<bool> {
        auto ok = save_tracker_state(self->state.core->save(through), path);
        if (!ok) return caf::make_error(caf::sec::runtime_error, ok.err().message);
        return true;
      },
      [=](status_atom) -> tracker_status {
        auto& s = self->state;
        return {s.results,          s.learner_version,
                s.core->generated_through(), s.core->in_flight(),
                s.eval_queue.size(), s.core->waiting(s.learner_version)};
      },
      [=](start_atom, learner_actor l, evaluator_actor e) {
        self->state.learner = std::move(l);
        self->state.evaluator = std::move(e);
        dispatch(self);
      },
  };
}

}  // namespace

result<bool> save_tracker_state(const tracker_state& s, const std::string& path) {
  nlohmann::json j;
  j["next_step"] = s.next_step;
  j["prompt_cursor"] = s.prompt_cursor;
  auto rows = nlohmann::json::array();
  for (const auto& r : s.pass_rates) rows.push_back({r.prompt, r.counts.n_tot, r.counts.n_pos});
  j["pass_rates"] = std::move(rows);
  if (!s.predictor.weights.empty())  // the learned estimator (doubles round-trip exactly)
    j["predictor"] = {{"weights", s.predictor.weights}, {"m", s.predictor.m},
                      {"v", s.predictor.v}, {"updates", s.predictor.updates}};
  if (!s.features.empty()) j["features"] = s.features;
  auto budget = nlohmann::json::array();  // [step, samples, tokens, through samples, tokens]
  for (const auto& [step, p] : s.budget)
    budget.push_back({step, p.step.samples, p.step.tokens, p.through.samples, p.through.tokens});
  j["budget"] = std::move(budget);
  return write_file_atomic(path, j.dump());
}

result<tracker_state> load_tracker_state(const std::string& path) {
  std::ifstream f(path);
  if (!f) return error{path + ": cannot open the tracker state"};
  tracker_state s;
  try {
    const auto j = nlohmann::json::parse(f);
    s.next_step = j.at("next_step").get<uint64_t>();
    s.prompt_cursor = j.at("prompt_cursor").get<uint64_t>();
    for (const auto& r : j.at("pass_rates"))
      s.pass_rates.push_back({r.at(0).get<uint64_t>(), {r.at(1).get<float>(), r.at(2).get<float>()}});
    if (j.contains("predictor")) {
      const auto& p = j.at("predictor");
      s.predictor = {p.at("weights").get<std::vector<double>>(), p.at("m").get<std::vector<double>>(),
                     p.at("v").get<std::vector<double>>(), p.at("updates").get<uint64_t>()};
      if (s.predictor.m.size() != s.predictor.weights.size() ||
          s.predictor.v.size() != s.predictor.weights.size())
        return error{path + ": corrupt tracker state (predictor vectors of unequal sizes)"};
    }
    if (j.contains("features")) s.features = j.at("features").get<std::vector<std::vector<float>>>();
    if (j.contains("budget"))  // absent from checkpoints written before the ledger was kept
      for (const auto& b : j.at("budget"))
        s.budget.emplace_back(b.at(0).get<uint64_t>(),
                              budget_point{{b.at(1).get<uint64_t>(), b.at(2).get<uint64_t>()},
                                           {b.at(3).get<uint64_t>(), b.at(4).get<uint64_t>()}});
  } catch (const std::exception& e) {
    return error{path + ": corrupt tracker state (" + e.what() + ")"};
  }
  if (auto ok = check_budget(s); !ok) return error{path + ": corrupt tracker state (" + ok.err().message + ")"};
  // The table's own checks (negative or inconsistent counts, duplicates).
  pass_rate_table probe;
  if (auto ok = probe.restore(s.pass_rates); !ok) return error{path + ": " + ok.err().message};
  return s;
}


work_order eval_order(uint64_t seed, uint32_t round, uint64_t version, uint32_t held_index,
                      uint64_t prompt_id, uint32_t index, bool greedy) {
  // A constant folded into the seed keeps evaluation streams apart from training's.
  const uint64_t stream = mix_keys(seed ^ 0x5eed'e7a1'0000'0000ull, version, prompt_id, index);
  return {version, held_index, index, prompt_id, stream, round, greedy, version};
}

tracker_actor spawn_tracker(caf::actor_system& sys, tracker_setup setup) {
  return sys.spawn(tracker_fun, std::move(setup));
}

}  // namespace adarl
