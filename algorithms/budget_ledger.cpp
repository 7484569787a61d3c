#include "algorithms/budget_ledger.hpp"

namespace adarl {

void budget_ledger::charge(uint64_t step, uint64_t samples, uint64_t tokens) {
  auto& s = open_[step];
  s.samples += samples;
  s.tokens += tokens;
  total_.samples += samples;
  total_.tokens += tokens;
}

budget_totals budget_ledger::step_totals(uint64_t step) const {
  auto it = open_.find(step);
  return it == open_.end() ? budget_totals{} : it->second;
}

budget_totals budget_ledger::close_step(uint64_t step) {
  auto it = open_.find(step);
  if (it == open_.end()) return {};
  auto t = it->second;
  open_.erase(it);
  return t;
}

budget_point budget_ledger::commit_step(uint64_t step) {
  budget_point p;
  p.step = close_step(step);
  committed_.samples += p.step.samples;
  committed_.tokens += p.step.tokens;
  p.through = committed_;
  return p;
}

}  // namespace adarl
