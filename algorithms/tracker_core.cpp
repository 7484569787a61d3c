#include "algorithms/tracker_core.hpp"

#include <algorithm>
#include <utility>

#include "base/random_keys.hpp"

namespace adarl {

namespace {
// Keeps the visit keys apart from the sample streams of the same (seed, step, prompt).
constexpr uint64_t visit_salt = 0x7151'7000'0000'0000ull;

uint64_t key_of(prompt_slot slot, uint32_t index) {
  return (uint64_t(slot) << 32) | index;
}
}  // namespace

tracker_core::tracker_core(tracker_config config, uint64_t prompts)
    : config_(std::move(config)),
      gate_{config_.lag},
      order_(prompts, config_.seed),
      table_(config_.pass_rate),
      predictor_(config_.predictor) {}

tracker_core::open_step* tracker_core::find(uint64_t step) {
  if (steps_.empty() || step < steps_.front().step) return nullptr;
  const uint64_t i = step - steps_.front().step;
  return i < steps_.size() ? &steps_[i] : nullptr;
}

const tracker_core::open_step* tracker_core::find(uint64_t step) const {
  return const_cast<tracker_core*>(this)->find(step);
}

tracker_core::lease* tracker_core::lease_of(open_step& s, prompt_slot slot, uint32_t index) {
  if (slot >= s.leases.size() || index >= s.leases[slot].size()) return nullptr;
  lease& l = s.leases[slot][index];
  return l.state == lease_state::none ? nullptr : &l;
}

std::vector<prompt_entry> tracker_core::draw_prompts(uint32_t n, uint64_t step) {
  std::vector<prompt_entry> out(n);
  for (auto& e : out) {
    e.id = order_.next();
    e.visit_key = mix_keys(config_.seed ^ visit_salt, step, e.id, order_.cursor());
    e.prior = predictor_.ready() ? predictor_.prior(e.id, table_.find(e.id))
                                 : table_.posterior_of(e.id);
  }
  return out;
}

void tracker_core::note_drawn(open_step& s, const prompt_entry& p) const {
  s.prompt_ids.push_back(p.id);
  s.prior_means.push_back(p.prior.mean());
  s.ema_means.push_back(table_.posterior_of(p.id).mean());
  s.first_seen.push_back(table_.find(p.id) == nullptr ? 1 : 0);
}

bool tracker_core::open_next(uint64_t learner_version, uint64_t now_ns) {
  if (config_.steps > 0 && next_step_ >= config_.steps) return false;
  if (awaiting_features()) return false;
  if (gate_.check(next_step_, learner_version, 0) != gate_verdict::admit) return false;
  open_step& s = steps_.emplace_back();
  s.step = next_step_++;
  s.cursor_at_open = order_.cursor();
  s.strategy = make_strategy(config_.strategy);
  s.counters.opened_ns = now_ns;
  auto prompts = draw_prompts(config_.prompts_per_step, s.step);
  for (const auto& p : prompts) note_drawn(s, p);
  scratch_.clear();
  s.strategy->start(prompts, scratch_);
  // A strategy that skips prompts (the informed Seq) finishes groups at start, and may
  // finish the whole step there when it skips every prompt: kept for take_started().
  apply(s, scratch_, /*from_start=*/true, now_ns, started_);
  return true;
}

void tracker_core::apply(open_step& s, decisions& d, bool from_start, uint64_t now_ns,
                         tracker_output& out) {
  // DAPO asks for more prompts; the answer may ask again (bounded by the strategy).
  while (d.prompts_wanted > 0) {
    auto extra = draw_prompts(d.prompts_wanted, s.step);
    for (const auto& p : extra) note_drawn(s, p);
    d.prompts_wanted = 0;
    s.strategy->add_prompts(extra, d);
  }
  for (const auto& r : d.requests) {
    if (config_.sync_rounds && !from_start)
      s.held.push_back(r);
    else
      s.pending.push_back(r);
  }
  for (auto& g : d.finished) {
    s.updates.push_back({g.slot, g.prompt_id, g.samples_used, g.positives});
    s.summary.add(g);
    s.summary.add_pass_rate(table_.estimate_after(g.prompt_id, g.samples_used, g.positives),
                            g.samples_used);
    const bool prior_known = g.slot < s.prior_means.size();
    if (prior_known)
      s.summary.add_prior_fit(s.prior_means[g.slot], g.samples_used, g.positives,
                              s.first_seen[g.slot] != 0, s.ema_means[g.slot]);
    s.summary.add_visit(g, prior_known ? s.prior_means[g.slot] : -1.0);
    out.finished.push_back({s.step, std::move(g)});
  }
  if (d.step_done && !s.done) {
    s.done = true;
    s.counters.done_ns = now_ns;
    out.steps_done.push_back(s.step);
    // generated_through: every step up to it is done; each step commits in order.
    for (auto& o : steps_) {
      if (int64_t(o.step) <= generated_through_) continue;
      if (!o.done) break;
      commit(o);
      generated_through_ = int64_t(o.step);
    }
  }
}

void tracker_core::commit(open_step& s) {
  spent_[s.step] = ledger_.commit_step(s.step);
  // Slot order, not completion order: a prompt drawn twice in one step (an epoch
  // boundary, DAPO's extra draws) folds in the same order in every run.
  std::stable_sort(s.updates.begin(), s.updates.end(),
                   [](const finished_stats& a, const finished_stats& b) { return a.slot < b.slot; });
  s.undo.reserve(s.updates.size());
  if (predictor_.ready()) s.predictor_before = predictor_.save();
  for (const auto& u : s.updates) {
    const beta_ema_counts* before = table_.find(u.prompt);
    s.undo.emplace_back(u.prompt, before ? std::optional(*before) : std::nullopt);
    table_.update(u.prompt, u.samples, u.positives);
    if (predictor_.ready()) predictor_.fit(u.prompt, u.samples, u.positives);
  }
  std::vector<finished_stats>().swap(s.updates);
}

void tracker_core::release_barrier(open_step& s) {
  if (s.held.empty() || !s.pending.empty() || s.outstanding > 0) return;
  s.pending.insert(s.pending.end(), s.held.begin(), s.held.end());
  s.held.clear();
}

void tracker_core::issue(open_step& s, prompt_slot slot, uint32_t index, uint64_t now_ns,
                         std::vector<work_item>& out) {
  const uint64_t deadline = now_ns + config_.lease_ns;
  const uint64_t key = key_of(slot, index);
  if (slot >= s.leases.size()) s.leases.resize(slot + 1);
  auto& row = s.leases[slot];
  if (index >= row.size()) row.resize(index + 1);
  if (row[index].state == lease_state::none) ++s.outstanding;
  row[index] = lease{deadline, lease_state::out};
  s.expiries.emplace_back(deadline, key);
  const uint64_t prompt = s.prompt_ids[slot];
  out.push_back({s.step, slot, index, prompt, mix_keys(config_.seed, s.step, prompt, index)});
}

void tracker_core::next_work(uint32_t max, uint64_t learner_version, uint64_t now_ns,
                             std::vector<work_item>& out) {
  uint32_t given = 0;
  // Re-issues first: they hold up a step that is otherwise complete.
  while (given < max && !reissue_.empty()) {
    const expiry e = reissue_.front();
    reissue_.pop_front();
    open_step* s = find(e.step);
    if (!s) continue;
    lease* l = lease_of(*s, prompt_slot(e.key >> 32), uint32_t(e.key));
    if (!l || l->state != lease_state::queued) continue;  // answered meanwhile
    ++s->counters.reissued;
    issue(*s, prompt_slot(e.key >> 32), uint32_t(e.key), now_ns, out);
    ++given;
  }
  for (size_t i = 0; given < max; ++i) {
    if (i == steps_.size() && !open_next(learner_version, now_ns)) break;
    open_step& s = steps_[i];
    while (given < max && !s.pending.empty()) {
      if (gate_.check(s.step, learner_version, s.admitted) != gate_verdict::admit) break;
      sample_request& r = s.pending.front();
      issue(s, r.slot, r.first_index, now_ns, out);
      ++s.admitted;
      ++given;
      ++r.first_index;
      if (--r.count == 0) s.pending.pop_front();
    }
  }
}

void tracker_core::take_started(tracker_output& out) {
  out.finished.insert(out.finished.end(), std::make_move_iterator(started_.finished.begin()),
                      std::make_move_iterator(started_.finished.end()));
  out.steps_done.insert(out.steps_done.end(), started_.steps_done.begin(),
                        started_.steps_done.end());
  started_.clear();
}

result_fate tracker_core::on_result(const work_result& r, uint64_t now_ns,
                                    tracker_output& out) {
  take_started(out);
  open_step* s = find(r.step);
  if (!s) return result_fate::stale;
  ++s->counters.results;
  s->counters.tokens += r.tokens;
  lease* l = lease_of(*s, r.slot, r.index);
  if (!l) {
    ++s->counters.duplicates;
    return result_fate::duplicate;
  }
  l->state = lease_state::none;
  --s->outstanding;
  scratch_.clear();
  const auto status =
      s->strategy->on_result({r.slot, r.index, r.reward, r.tokens}, scratch_);
  if (status != result_status::accepted) {
    if (status == result_status::duplicate) ++s->counters.duplicates;
    release_barrier(*s);
    return status == result_status::duplicate ? result_fate::duplicate
                                              : result_fate::rejected;
  }
  ledger_.charge(r.step, 1, r.tokens);
  const uint64_t lag = lag_gate::lag_of(r.step, r.version);
  s->counters.lag_sum += lag;
  s->counters.lag_max = std::max(s->counters.lag_max, lag);
  apply(*s, scratch_, /*from_start=*/false, now_ns, out);
  if (config_.sync_rounds) release_barrier(*s);
  return result_fate::accepted;
}

uint32_t tracker_core::expire(uint64_t now_ns) {
  uint32_t n = 0;
  // Leases have equal length, so each step's deadlines are ascending.
  for (auto& s : steps_) {
    while (!s.expiries.empty() && s.expiries.front().first <= now_ns) {
      const auto [deadline, key] = s.expiries.front();
      s.expiries.pop_front();
      lease* l = lease_of(s, prompt_slot(key >> 32), uint32_t(key));
      // A lease re-issued later has a later deadline: only the newest one counts.
      if (!l || l->deadline != deadline || l->state == lease_state::queued) continue;
      l->state = lease_state::queued;
      reissue_.push_back({deadline, s.step, key});
      ++n;
    }
  }
  return n;
}

bool tracker_core::reissue_now(uint64_t step, prompt_slot slot, uint32_t index) {
  open_step* s = find(step);
  if (!s) return false;
  lease* l = lease_of(*s, slot, index);
  if (!l || l->state != lease_state::out) return false;
  l->state = lease_state::queued;
  reissue_.push_back({l->deadline, step, key_of(slot, index)});
  return true;
}

void tracker_core::retire_through(uint64_t version) {
  while (!steps_.empty() && steps_.front().step < version && steps_.front().done)
    steps_.pop_front();
  // The last trained step's point stays: a checkpoint at `version` starts from it.
  while (!spent_.empty() && spent_.begin()->first + 1 < version) spent_.erase(spent_.begin());
}

const budget_point* tracker_core::spent(uint64_t step) const {
  const auto it = spent_.find(step);
  return it == spent_.end() ? nullptr : &it->second;
}

uint64_t tracker_core::min_version(uint64_t step) const {
  if (config_.lag.exact) return gate_.pinned(step);
  return step > config_.lag.max_lag ? step - config_.lag.max_lag : 0;
}

bool tracker_core::generation_finished() const {
  return config_.steps > 0 && generated_through_ + 1 >= int64_t(config_.steps);
}

uint64_t tracker_core::in_flight() const {
  uint64_t n = 0;
  for (const auto& s : steps_) n += s.outstanding;
  return n;
}

std::string tracker_core::waiting(uint64_t learner_version) const {
  if (generation_finished()) return "";
  const auto n = [](uint64_t x) { return std::to_string(x); };
  for (const auto& s : steps_) {
    if (s.done) continue;
    std::string out = "step " + n(s.step) + " is generating: " + n(s.outstanding) +
                      " orders in flight, " + n(s.pending.size()) + " requests not handed out";
    if (!s.held.empty()) out += ", " + n(s.held.size()) + " held for the round barrier";
    if (!reissue_.empty()) out += ", " + n(reissue_.size()) + " expired orders to re-issue";
    if (!s.pending.empty() &&
        gate_.check(s.step, learner_version, s.admitted) != gate_verdict::admit)
      out += " (the lag gate holds them: learner at version " + n(learner_version) + ")";
    return out;
  }
  const uint64_t next = next_step_;
  const uint64_t k = config_.lag.max_lag;
  switch (gate_.check(next, learner_version, 0)) {
    case gate_verdict::stale:
      if (config_.lag.exact)
        return "step " + n(next) + " cannot open: the lag gate pins it to version " +
               n(gate_.pinned(next)) + " and the learner is at version " +
               n(learner_version);
      return "step " + n(next) + " cannot open: the learner (version " + n(learner_version) +
             ") has trained it already";
    case gate_verdict::wait_for_learner:
      return "step " + n(next) + " waits for the learner to reach version " +
             n(config_.lag.exact ? gate_.pinned(next) : (next > k ? next - k : 0)) +
             " (it is at version " + n(learner_version) + ")";
    default:
      return "step " + n(next) + " may open";
  }
}

const step_counters* tracker_core::counters(uint64_t step) const {
  const open_step* s = find(step);
  return s ? &s->counters : nullptr;
}

const step_summary* tracker_core::summary(uint64_t step) const {
  const open_step* s = find(step);
  return s ? &s->summary : nullptr;
}

tracker_state tracker_core::save(int64_t through) const {
  through = std::min(through, generated_through_);
  tracker_state st;
  st.next_step = uint64_t(through + 1);
  // Steps after `through` are generated again after a restart, from the prompt order
  // where it stood when the first of them opened (DAPO's extra draws for earlier steps
  // made after that moment are drawn again: a prompt or two repeats, none is skipped).
  const open_step* first_again = find(st.next_step);
  st.prompt_cursor = first_again ? first_again->cursor_at_open : order_.cursor();
  pass_rate_table table = table_;
  for (auto s = steps_.rbegin(); s != steps_.rend(); ++s) {
    if (int64_t(s->step) <= through) break;
    for (auto u = s->undo.rbegin(); u != s->undo.rend(); ++u)
      table.set(u->first, u->second ? &*u->second : nullptr);
  }
  st.pass_rates = table.save();
  st.features = features_;
  for (const auto& [step, point] : spent_)
    if (int64_t(step) <= through) st.budget.emplace_back(step, point);
  if (predictor_.ready()) {
    st.predictor = predictor_.save();
    // The first later step that committed holds the state before its own fits.
    for (const auto& s : steps_)
      if (int64_t(s.step) > through && s.predictor_before) {
        st.predictor = *s.predictor_before;
        break;
      }
  } else {
    st.predictor = pending_predictor_;
  }
  return st;
}

result<bool> tracker_core::set_prompt_features(const std::vector<std::vector<float>>& rows) {
  if (predictor_.ready()) return false;  // the features a run started with stay
  pass_rate_predictor p = predictor_;
  if (auto ok = p.set_features(rows); !ok) return ok;
  if (!pending_predictor_.weights.empty())
    if (auto ok = p.restore(pending_predictor_); !ok) return ok;
  predictor_ = std::move(p);
  pending_predictor_ = {};
  features_ = rows;
  return true;
}

result<bool> check_budget(const tracker_state& st) {
  for (size_t i = 0; i < st.budget.size(); ++i) {
    const auto& [step, p] = st.budget[i];
    if ((i > 0 && step <= st.budget[i - 1].first) || step >= st.next_step ||
        p.step.samples > p.through.samples || p.step.tokens > p.through.tokens)
      return error{"budget point " + std::to_string(i) + " (step " + std::to_string(step) +
                   ") is out of order or inconsistent"};
  }
  if (!st.budget.empty() && st.budget.back().first + 1 != st.next_step)
    return error{"the budget ends at step " + std::to_string(st.budget.back().first) +
                 ", the state continues at step " + std::to_string(st.next_step)};
  return true;
}

result<bool> tracker_core::restore(const tracker_state& st) {
  if (auto ok = check_budget(st); !ok) return ok;
  auto ok = table_.restore(st.pass_rates);
  if (!ok) return ok;
  ledger_ = budget_ledger();
  spent_.clear();
  for (const auto& [step, p] : st.budget) spent_[step] = p;
  if (!st.budget.empty()) ledger_.restore(st.budget.back().second.through);
  steps_.clear();
  reissue_.clear();
  next_step_ = st.next_step;
  generated_through_ = int64_t(st.next_step) - 1;
  order_.seek(st.prompt_cursor);
  pending_predictor_ = st.predictor;
  if (!st.features.empty()) {
    predictor_ = pass_rate_predictor(config_.predictor);  // the saved features replace any
    features_.clear();
    if (auto f = set_prompt_features(st.features); !f) return f;
  }
  return true;
}

}  // namespace adarl
