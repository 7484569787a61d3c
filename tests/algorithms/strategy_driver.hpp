#pragma once

// Test support for the strategy suites: prompt batches and a driver that plays a
// step_strategy against a table of rewards, the way the tracker would: it issues every
// request, delivers the results in FIFO or random order (optionally with duplicates and
// junk injected), answers prompts_wanted, and records what the strategy did.

#include <algorithm>
#include <cstdint>
#include <functional>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include "algorithms/step_strategy.hpp"

namespace adarl::test {

/// `count` prompts with ids first_id, first_id + 1, ... and the same prior.
inline std::vector<prompt_entry> make_prompts(size_t count, uint64_t first_id = 100,
                                              beta_posterior prior = {}) {
  std::vector<prompt_entry> out(count);
  for (size_t i = 0; i < count; ++i) out[i] = {first_id + i, prior};
  return out;
}

/// Reward of sample `index` of prompt `slot` (a pure function of both).
using reward_fn = std::function<float(prompt_slot, uint32_t)>;

/// What the driver saw. `*_violations` count broken protocol rules (expected 0).
struct run_record {
  std::vector<finished_group> finished;  ///< In emission order.
  std::vector<sample_request> requests;  ///< In emission order.
  std::vector<uint32_t> requested;       ///< Per slot: indices requested so far.
  uint32_t step_done_events = 0;
  uint32_t step_done_while_not_done = 0;  ///< step_done emitted while done() was false.
  uint32_t done_before_step_done = 0;     ///< done() true before any step_done event.
  uint64_t accepted = 0;
  uint64_t duplicates = 0;
  uint64_t not_requested = 0;
  uint64_t unknown_slots = 0;
  uint64_t status_violations = 0;  ///< A status other than the one the rules imply.
  uint64_t index_violations = 0;   ///< A request not continuing its slot's indices.
  uint32_t max_in_flight = 0;      ///< Most undelivered requests of one prompt.
  uint32_t prompts_added = 0;      ///< Prompts given through add_prompts.
  uint32_t prompts_wanted = 0;     ///< Sum of prompts_wanted over all decisions.
  bool done_at_end = false;        ///< done() once no result is pending.
  bool runaway = false;            ///< Stopped at max_results: the step never ends.
};

/// How the driver delivers results.
struct driver_options {
  std::mt19937* rng = nullptr;  ///< Null: FIFO delivery; otherwise a random pending one.
  double duplicate_rate = 0;    ///< Chance, per delivery, of first re-sending a
                                ///< delivered result (with a different reward).
  double junk_rate = 0;         ///< Chance of first sending an unknown slot and an
                                ///< unrequested index.
  uint32_t prompt_supply = UINT32_MAX;  ///< Prompts add_prompts can give in total.
  uint64_t extra_prompt_id = 10000;     ///< Id of the first prompt add_prompts gives.
  uint64_t max_results = 100'000;       ///< Stop (and flag runaway) after this many.
  /// Called after every event, once its decisions are applied.
  std::function<void(const run_record&)> after_event;
};

/// Plays `s` from start to the last pending result. Rewards come from `reward`;
/// each sample has `index + 1` tokens, so that token counts are checkable.
inline run_record drive(step_strategy& s, std::span<const prompt_entry> prompts,
                        const reward_fn& reward, driver_options opt = {}) {
  run_record rec;
  std::vector<std::pair<prompt_slot, uint32_t>> pending;
  std::set<std::pair<prompt_slot, uint32_t>> delivered;
  std::vector<uint32_t> in_flight;
  uint64_t next_id = opt.extra_prompt_id;

  auto chance = [&](double p) {
    return opt.rng && p > 0 && std::uniform_real_distribution<double>(0, 1)(*opt.rng) < p;
  };
  auto slot_count = [&] { return static_cast<uint32_t>(rec.requested.size()); };

  std::function<void(decisions&)> apply = [&](decisions& d) {
    for (const auto& r : d.requests) {
      rec.requests.push_back(r);
      if (r.slot >= rec.requested.size()) {
        rec.requested.resize(r.slot + 1, 0);
        in_flight.resize(r.slot + 1, 0);
      }
      if (r.first_index != rec.requested[r.slot] || r.count == 0) ++rec.index_violations;
      for (uint32_t i = 0; i < r.count; ++i)
        pending.emplace_back(r.slot, r.first_index + i);
      rec.requested[r.slot] = std::max(rec.requested[r.slot], r.first_index + r.count);
      in_flight[r.slot] += r.count;
      rec.max_in_flight = std::max(rec.max_in_flight, in_flight[r.slot]);
    }
    for (auto& g : d.finished) rec.finished.push_back(std::move(g));
    if (d.step_done) {
      ++rec.step_done_events;
      if (!s.done()) ++rec.step_done_while_not_done;
    } else if (s.done() && rec.step_done_events == 0) {
      ++rec.done_before_step_done;
    }
    rec.prompts_wanted += d.prompts_wanted;
    if (d.prompts_wanted > 0) {
      const uint32_t give = std::min(d.prompts_wanted, opt.prompt_supply);
      opt.prompt_supply -= give;
      const auto extra = make_prompts(give, next_id);
      next_id += give;
      rec.prompts_added += give;
      decisions more;
      s.add_prompts(extra, more);
      apply(more);
    }
    if (opt.after_event) opt.after_event(rec);
  };

  auto send = [&](const sample_result& r, result_status expected) {
    decisions d;
    const auto got = s.on_result(r, d);
    if (got != expected) ++rec.status_violations;
    switch (got) {
      case result_status::accepted:
        ++rec.accepted;
        break;
      case result_status::duplicate:
        ++rec.duplicates;
        break;
      case result_status::not_requested:
        ++rec.not_requested;
        break;
      case result_status::unknown_slot:
        ++rec.unknown_slots;
        break;
    }
    apply(d);
  };

  decisions d;
  s.start(prompts, d);
  if (rec.requested.size() < prompts.size()) {
    rec.requested.resize(prompts.size(), 0);
    in_flight.resize(prompts.size(), 0);
  }
  apply(d);

  uint64_t sent = 0;
  while (!pending.empty()) {
    if (++sent > opt.max_results) {
      rec.runaway = true;
      break;
    }
    if (!delivered.empty() && chance(opt.duplicate_rate)) {
      auto it = delivered.begin();
      std::advance(
          it, std::uniform_int_distribution<size_t>(0, delivered.size() - 1)(*opt.rng));
      send({it->first, it->second, 1.f - reward(it->first, it->second), 7},
           result_status::duplicate);
    }
    if (chance(opt.junk_rate)) {
      send({slot_count() + 3, 0, 1.f, 1}, result_status::unknown_slot);
      const auto slot =
          std::uniform_int_distribution<prompt_slot>(0, slot_count() - 1)(*opt.rng);
      send({slot, rec.requested[slot] + 2, 1.f, 1}, result_status::not_requested);
    }
    size_t pick = 0;
    if (opt.rng)
      pick = std::uniform_int_distribution<size_t>(0, pending.size() - 1)(*opt.rng);
    const auto [slot, index] = pending[pick];
    if (opt.rng) {
      pending[pick] = pending.back();
      pending.pop_back();
    } else {
      pending.erase(pending.begin());
    }
    delivered.emplace(slot, index);
    --in_flight[slot];
    send({slot, index, reward(slot, index), index + 1}, result_status::accepted);
  }
  rec.done_at_end = s.done();
  return rec;
}

/// The finished groups sorted by slot.
inline std::vector<finished_group> by_slot(std::vector<finished_group> groups) {
  std::sort(groups.begin(), groups.end(),
            [](const auto& a, const auto& b) { return a.slot < b.slot; });
  return groups;
}

}  // namespace adarl::test
