#include "algorithms/tracker_core.hpp"

#include <algorithm>
#include <utility>

#include "algorithms/random_keys.hpp"

namespace adarl {

namespace {
uint64_t key_of(prompt_slot slot, uint32_t index) {
  return (uint64_t(slot) << 32) | index;
}
}  // namespace

tracker_core::tracker_core(tracker_config config, uint64_t prompts)
    : config_(std::move(config)),
      gate_{config_.lag},
      order_(prompts, config_.seed),
      table_(config_.pass_rate) {}

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

std::vector<prompt_entry> tracker_core::draw_prompts(uint32_t n) {
  std::vector<prompt_entry> out(n);
  for (auto& e : out) {
    e.id = order_.next();
    e.prior = table_.posterior_of(e.id);
  }
  return out;
}

bool tracker_core::open_next(uint64_t learner_version, uint64_t now_ns) {
  if (config_.steps > 0 && next_step_ >= config_.steps) return false;
  if (gate_.check(next_step_, learner_version, 0) != gate_verdict::admit) return false;
  open_step& s = steps_.emplace_back();
  s.step = next_step_++;
  s.strategy = make_strategy(config_.strategy);
  s.counters.opened_ns = now_ns;
  auto prompts = draw_prompts(config_.prompts_per_step);
  for (const auto& p : prompts) s.prompt_ids.push_back(p.id);
  scratch_.clear();
  s.strategy->start(prompts, scratch_);
  tracker_output ignored;  // A strategy finishes nothing at start.
  apply(s, scratch_, /*from_start=*/true, now_ns, ignored);
  return true;
}

void tracker_core::apply(open_step& s, decisions& d, bool from_start, uint64_t now_ns,
                         tracker_output& out) {
  // DAPO asks for more prompts; the answer may ask again (bounded by the strategy).
  while (d.prompts_wanted > 0) {
    auto extra = draw_prompts(d.prompts_wanted);
    for (const auto& p : extra) s.prompt_ids.push_back(p.id);
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
    table_.update(g.prompt_id, g.samples_used, g.positives);
    s.summary.add(g);
    s.summary.add_pass_rate(table_.estimate(g.prompt_id), g.samples_used);
    out.finished.push_back({s.step, std::move(g)});
  }
  if (d.step_done && !s.done) {
    s.done = true;
    s.counters.done_ns = now_ns;
    out.steps_done.push_back(s.step);
    // generated_through: every step up to it is done.
    for (const auto& o : steps_) {
      if (int64_t(o.step) <= generated_through_) continue;
      if (!o.done) break;
      generated_through_ = int64_t(o.step);
    }
  }
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

result_fate tracker_core::on_result(const work_result& r, uint64_t now_ns,
                                    tracker_output& out) {
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

void tracker_core::retire_through(uint64_t version) {
  while (!steps_.empty() && steps_.front().step < version && steps_.front().done)
    steps_.pop_front();
}

bool tracker_core::generation_finished() const {
  return config_.steps > 0 && generated_through_ + 1 >= int64_t(config_.steps);
}

uint64_t tracker_core::in_flight() const {
  uint64_t n = 0;
  for (const auto& s : steps_) n += s.outstanding;
  return n;
}

const step_counters* tracker_core::counters(uint64_t step) const {
  const open_step* s = find(step);
  return s ? &s->counters : nullptr;
}

const step_summary* tracker_core::summary(uint64_t step) const {
  const open_step* s = find(step);
  return s ? &s->summary : nullptr;
}

tracker_state tracker_core::save() const {
  tracker_state st;
  // Steps still open are generated again after a restart: continue from the first one,
  // with the prompt order where it stood when that step opened.
  st.next_step = steps_.empty() ? next_step_ : steps_.front().step;
  st.prompt_cursor = order_.cursor();
  for (const auto& s : steps_) st.prompt_cursor -= s.prompt_ids.size();
  st.pass_rates = table_.save();
  return st;
}

result<bool> tracker_core::restore(const tracker_state& st) {
  auto ok = table_.restore(st.pass_rates);
  if (!ok) return ok;
  steps_.clear();
  reissue_.clear();
  next_step_ = st.next_step;
  generated_through_ = int64_t(st.next_step) - 1;
  order_.seek(st.prompt_cursor);
  return true;
}

}  // namespace adarl
