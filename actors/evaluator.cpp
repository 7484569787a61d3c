#include "actors/evaluator.hpp"

#include <caf/all.hpp>

#include <chrono>
#include <map>

#include "actors/failure.hpp"

namespace adarl {

eval_tally::eval_tally(const prompt_table& prompts, uint64_t version, bool greedy,
                       uint32_t samples)
    : prompts_(&prompts), version_(version), greedy_(greedy), samples_(samples) {
  const uint32_t h = prompts.held_out();
  expected_ = h * ((greedy ? 1 : 0) + samples);
  greedy_reward_.assign(h, -1.f);
  sampled_sum_.assign(h, 0.f);
  seen_.assign(h, std::vector<bool>(samples + 1, false));
}

void eval_tally::add(const completion& c) {
  const uint32_t h = c.order.slot, k = c.order.index;
  if (h >= seen_.size() || k > samples_ || seen_[h][k]) return;
  if (k == 0 && !greedy_) return;
  seen_[h][k] = true;
  ++received_;
  if (k == 0)
    greedy_reward_[h] = c.reward;
  else
    sampled_sum_[h] += c.reward;
}

eval_report eval_tally::report() const {
  eval_report r;
  r.version = version_;
  r.prompts = static_cast<uint32_t>(greedy_reward_.size());
  r.level_prompts.assign(6, 0);
  std::vector<double> level_sum(6, 0.0);
  double g = 0, s = 0;
  for (uint32_t h = 0; h < r.prompts; ++h) {
    const float gr = std::max(greedy_reward_[h], 0.f);
    r.prompt_greedy.push_back(gr);
    const float sr = samples_ ? sampled_sum_[h] / float(samples_) : 0.f;
    r.prompt_sampled.push_back(sr);
    g += gr;
    s += sr;
    const uint32_t level = std::min<uint32_t>(prompts_->rows[prompts_->train + h].item.difficulty, 5);
    ++r.level_prompts[level];
    level_sum[level] += greedy_ ? gr : sr;
  }
  if (r.prompts) {
    r.greedy_accuracy = greedy_ ? g / r.prompts : -1.0;
    r.sampled_accuracy = samples_ ? s / r.prompts : -1.0;
  }
  for (size_t l = 0; l < 6; ++l)
    r.level_greedy.push_back(r.level_prompts[l] ? level_sum[l] / r.level_prompts[l] : 0.0);
  return r;
}

namespace {

struct pending_eval {
  eval_tally tally;
  caf::typed_response_promise<eval_report> promise;
  std::chrono::steady_clock::time_point start;
};

struct evaluator_state {
  uint32_t next_round = 0;
  std::map<uint32_t, pending_eval> rounds;
  static inline const char* name = "evaluator";
};

using self_ptr = evaluator_actor::stateful_pointer<evaluator_state>;

void finish(self_ptr self, const evaluator_setup& setup, uint32_t round) {
  auto it = self->state.rounds.find(round);
  if (it == self->state.rounds.end() || !it->second.tally.complete()) return;
  eval_report r = it->second.tally.report();
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                            it->second.start).count();
  self->send(setup.metrics, eval_atom::value, r);
  it->second.promise.deliver(std::move(r));
  self->state.rounds.erase(it);
}

evaluator_actor::behavior_type evaluator_fun(self_ptr self, evaluator_setup setup) {
  report_exceptions(self, "evaluator");
  return {
      [=](eval_atom, uint64_t version) -> caf::typed_response_promise<eval_report> {
        auto& st = self->state;
        const uint32_t round = ++st.next_round;
        auto rp = self->make_response_promise<eval_report>();
        st.rounds.emplace(round, pending_eval{eval_tally(*setup.prompts, version, setup.greedy,
                                                         setup.samples),
                                              rp, std::chrono::steady_clock::now()});
        self->request(setup.tracker, caf::infinite, eval_atom::value, round, version)
            .then([](uint32_t) {});
        finish(self, setup, round);  // nothing to wait for without held-out prompts
        return rp;
      },
      [=](scored_atom, const std::vector<completion>& batch) {
        std::vector<uint32_t> touched;
        for (const auto& c : batch) {
          auto it = self->state.rounds.find(c.order.eval_round);
          if (it == self->state.rounds.end()) continue;
          it->second.tally.add(c);
          touched.push_back(c.order.eval_round);
        }
        for (uint32_t round : touched) finish(self, setup, round);
      },
  };
}

}  // namespace

evaluator_actor spawn_evaluator(caf::actor_system& sys, evaluator_setup setup) {
  return sys.spawn(evaluator_fun, std::move(setup));
}

}  // namespace adarl
