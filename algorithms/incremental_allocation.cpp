#include "algorithms/incremental_allocation.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace adarl {
namespace {

constexpr double inf = std::numeric_limits<double>::infinity();
constexpr double eps = std::numeric_limits<double>::epsilon();
constexpr uint32_t none = UINT32_MAX;

}  // namespace

void incremental_allocation::reset(std::span<const double> weights,
                                   std::span<const allocation_bounds> bounds,
                                   uint64_t total, std::span<const uint32_t> plan) {
  items_.assign(weights.size(), {});
  plan_.assign(plan.begin(), plan.end());
  total_ = total;
  hi_cap_ = 0;
  double w_sum = 0;
  for (size_t i = 0; i < items_.size(); ++i) {
    items_[i].w = weights[i];
    items_[i].lo = bounds[i].lo;
    items_[i].hi = bounds[i].hi;
    hi_cap_ = std::max(hi_cap_, bounds[i].hi);
    w_sum += weights[i];
  }
  set_limits();
  // Keep the last scale when there is one: after a fall-back it is close to the root.
  if (!(c_ > 0 && c_ < inf)) c_ = w_sum > 0 ? static_cast<double>(total) / w_sum : 1.0;
  rebuild();
}

void incremental_allocation::set_limits() {
  const double n = static_cast<double>(items_.size()), t = static_cast<double>(total_);
  const double tol = allocation_sum_tolerance * std::max(1.0, t);
  // allocate_budget sums n terms in order: its S(c) is within `rounding` of the exact
  // one.
  const double rounding = 2 * (n + 2) * eps * (t + tol);
  slack_ = tol + rounding;
  // Its bracket (stopped at 1e-15 of c) can only close before the tolerance test
  // passes when S moves less than 2 tol over 1e-15 of c, at most n hi_cap 1e-15.
  provable_ = slack_ < 0.25 && tol > 1.01e-15 * n * hi_cap_ + rounding;
}

void incremental_allocation::rebuild() {
  const auto n = static_cast<uint32_t>(items_.size());
  clipped_ = 0;
  w_free_ = 0;
  n_free_ = 0;
  off_bound_.clear();
  free_.clear(hi_cap_);
  std::vector<double> up(n), down(n);
  std::vector<uint32_t> plans;
  std::vector<plan_groups::member> members;
  for (uint32_t i = 0; i < n; ++i) {
    auto& it = items_[i];
    it.reg = classify(it);
    it.off_bound = false;
    count(it, +1);
    up[i] = up_key(it);
    down[i] = down_key(it);
    if (it.reg == regime::free) {
      plans.push_back(plan_[i]);
      members.push_back({it.w, i});
    }
    mark(i);
  }
  w_err_ = (n_free_ + 1) * eps * w_free_;
  up_.assign(up);
  down_.assign(down);
  free_.insert_all(plans, members);
}

void incremental_allocation::set_weight(uint32_t i, double weight) {
  leave(i);
  items_[i].w = weight;
  enter(i, classify(items_[i]));
}

void incremental_allocation::set_bounds(uint32_t i, allocation_bounds bounds) {
  if (bounds.hi > hi_cap_) {  // never in Est, whose hi is n_max or the plan
    items_[i].lo = bounds.lo;
    items_[i].hi = hi_cap_ = bounds.hi;
    set_limits();
    rebuild();
    return;
  }
  leave(i);
  items_[i].lo = bounds.lo;
  items_[i].hi = bounds.hi;
  enter(i, classify(items_[i]));
}

bool incremental_allocation::update() {
  changed_.clear();
  if (!provable_ || items_.empty()) return false;
  if (w_err_ > 1e-12 * w_free_) {  // re-add the free weights now and then
    double w = 0;
    for (const auto& it : items_)
      if (it.reg == regime::free) w += it.w;
    w_free_ = w;
    w_err_ = (n_free_ + 1) * eps * w;
  }
  candidate top, bottom;
  return solve() && rebalance(top, bottom) && proven(top, bottom);
}

// ------------------------------------------------------------------ regimes and sums

incremental_allocation::regime incremental_allocation::classify(const item& it) const {
  if (it.lo >= it.hi) return regime::fixed;
  const double x = c_ * it.w;  // as allocate_budget clips it
  if (x <= it.lo) return regime::at_lo;
  if (x >= it.hi) return regime::at_hi;
  return regime::free;
}

double incremental_allocation::up_key(const item& it) const {
  if (it.reg == regime::at_lo) return it.w > 0 ? it.lo / it.w : inf;
  return it.reg == regime::free ? it.hi / it.w : inf;
}

double incremental_allocation::down_key(const item& it) const {
  if (it.reg == regime::free) return it.lo / it.w;
  return it.reg == regime::at_hi ? it.hi / it.w : -inf;
}

uint32_t incremental_allocation::bound(const item& it) const {
  return it.reg == regime::at_hi ? it.hi : it.lo;
}

void incremental_allocation::count(const item& it, int sign) {
  if (it.reg == regime::detached) return;
  if (it.reg != regime::free) {
    clipped_ += sign * static_cast<int64_t>(bound(it));
    return;
  }
  if (sign > 0) {
    ++n_free_;
    w_free_ += it.w;
  } else if (--n_free_ == 0) {
    w_free_ = w_err_ = 0;  // an empty sum is exact
    return;
  } else {
    w_free_ -= it.w;
  }
  w_err_ += eps * (std::fabs(w_free_) + it.w);
}

void incremental_allocation::enter(uint32_t i, regime r) {
  auto& it = items_[i];
  it.reg = r;
  count(it, +1);
  up_.update(i, up_key(it));
  down_.update(i, down_key(it));
  if (r == regime::free) free_.insert(plan_[i], {it.w, i});
  mark(i);
}

void incremental_allocation::leave(uint32_t i) {
  auto& it = items_[i];
  count(it, -1);
  if (it.reg == regime::free) free_.erase(plan_[i], {it.w, i});
  it.reg = regime::detached;
  mark(i);
}

void incremental_allocation::mark(uint32_t i) {
  auto& it = items_[i];
  const bool off =
      (it.reg == regime::at_lo || it.reg == regime::at_hi) && plan_[i] != bound(it);
  if (off == it.off_bound) return;
  it.off_bound = off;
  if (off)
    off_bound_.push_back(i);
  else
    off_bound_.erase(std::find(off_bound_.begin(), off_bound_.end(), i));
}

void incremental_allocation::cross(uint32_t i, bool up) {
  const regime from = items_[i].reg;
  const regime to = up ? (from == regime::at_lo ? regime::free : regime::at_hi)
                       : (from == regime::at_hi ? regime::free : regime::at_lo);
  leave(i);
  enter(i, to);
}

void incremental_allocation::shift(uint32_t i, int delta) {
  const auto& it = items_[i];
  if (it.reg == regime::free) free_.erase(plan_[i], {it.w, i});
  plan_[i] += delta;
  if (it.reg == regime::free) free_.insert(plan_[i], {it.w, i});
  mark(i);
  changed_.push_back(i);
}

// ------------------------------------------------------------------ the scale

// Moves c towards the root of S, one breakpoint at a time, in one direction: each
// crossing moves a prompt one regime along it, so there are at most 2 P of them.
bool incremental_allocation::solve() {
  const double t = static_cast<double>(total_);
  const double s = static_cast<double>(clipped_) + c_ * w_free_;
  if (s == t) return true;
  const bool up = s < t;
  const size_t limit = 2 * items_.size() + 1;
  for (size_t k = 0;; ++k) {
    const double room = t - static_cast<double>(clipped_);
    if (n_free_ == 0 && room == 0) break;  // S is total on a whole interval around c_
    const double target = n_free_ > 0 ? room / w_free_ : (up ? inf : -inf);
    const double next = up ? up_.top_key() : down_.top_key();
    if (up ? !(next < target) : !(next > target)) {
      c_ = target;
      break;
    }
    if (k == limit) return false;
    c_ = next;
    cross(up ? up_.top() : down_.top(), up);
  }
  return c_ > 0 && c_ < inf;
}

// ------------------------------------------------------------------ the rounding

// Moves one sample from the largest residual to the smallest while they are a window of
// 1 or more apart (exactly 1: while the rounded-down end has the lower id). Each move
// lowers sum (x - N)^2 or, at exactly 1, hands the sample to a lower id.
bool incremental_allocation::rebalance(candidate& a, candidate& b) {
  const size_t limit = 4 * items_.size() + 16;
  for (size_t k = 0; k < limit; ++k) {
    a = highest(nullptr);
    b = lowest(nullptr);
    if (a.id == none) return true;  // every prompt sits on its bound
    const double gap = a.residual - b.residual;
    if (gap < 1 || (gap == 1 && a.id > b.id)) return true;
    if (!(a.residual > 0 && b.residual < 0)) return false;
    shift(a.id, +1);
    shift(b.id, -1);
  }
  return false;
}

incremental_allocation::candidate incremental_allocation::highest(
    const double* skip_weight) const {
  candidate best{-inf, none};
  auto consider = [&best](double r, uint32_t id) {
    if (r > best.residual || (r == best.residual && id < best.id)) best = {r, id};
  };
  for (const uint32_t p : free_.plans()) {
    const auto g = free_.group(p);
    const auto* end = g.data() + g.size();
    if (skip_weight != nullptr && g.back().weight == *skip_weight)
      end = plan_groups::lower_bound(g, *skip_weight);
    if (end != g.data()) consider(c_ * end[-1].weight - p, end[-1].id);
  }
  if (skip_weight == nullptr)
    for (const uint32_t i : off_bound_)
      consider(static_cast<double>(bound(items_[i])) - plan_[i], i);
  return best;
}

incremental_allocation::candidate incremental_allocation::lowest(
    const double* skip_weight) const {
  candidate best{inf, none};
  auto consider = [&best](double r, uint32_t id) {
    if (r < best.residual || (r == best.residual && id > best.id)) best = {r, id};
  };
  for (const uint32_t p : free_.plans()) {
    const auto g = free_.group(p);
    const auto* first = g.data();
    if (skip_weight != nullptr && first->weight == *skip_weight)
      first = plan_groups::upper_bound(g, *skip_weight);
    if (first != g.data() + g.size()) consider(c_ * first->weight - p, first->id);
  }
  if (skip_weight == nullptr)
    for (const uint32_t i : off_bound_)
      consider(static_cast<double>(bound(items_[i])) - plan_[i], i);
  return best;
}

// ------------------------------------------------------------------ the proof

// allocate_budget stops at a scale c' with |S~(c') - total| <= tol, S~ its rounded sum,
// so |S(c') - total| <= slack_. Every clip(c w, lo, hi) is nondecreasing in c, so from
// c_ to c' the x move by at most |S(c') - S(c_)| in all, and each by its share w / W
// when c' is in c_'s linear piece of S. Residual margins of twice that prove that
// allocate_budget rounds c' to plan_.
bool incremental_allocation::proven(const candidate& a, const candidate& b) const {
  if (!off_bound_.empty()) return false;
  // Every prompt is on its side of c_ up to a breakpoint's rounding (1e-12 of c_); one
  // that is not is off its bound by at most `side`.
  if (!(up_.top_key() >= c_ * (1 - 1e-12) && down_.top_key() <= c_ * (1 + 1e-12)))
    return false;
  const double n = static_cast<double>(items_.size()), t = static_cast<double>(total_);
  const double side = 2e-12 * hi_cap_;
  // A bound on |S(c') - S(c_)|: allocate_budget's slack_ and our own.
  const double moved = slack_ + c_ * w_err_ + 4 * eps * (t + 1) + n * side;
  double drift = moved;
  const double w_lo = w_free_ - w_err_;
  if (n_free_ > 0 && w_lo > 0) {
    // A free weight is below hi_cap_ / c_.
    const double reach = moved / w_lo * (1 + 1e-9);
    if (up_.top_key() > (c_ + reach) * (1 + 1e-12) &&
        down_.top_key() < (c_ - reach) * (1 - 1e-12))
      drift = std::min(drift, moved * (hi_cap_ / c_) / w_lo * (1 + 1e-9));
  }
  // The rounding of c w and of x - N, and a prompt on the wrong side of a breakpoint.
  drift += side + 4 * eps * (hi_cap_ + 1);
  return window_holds(a, b, 2 * drift);
}

// The residuals (0 for the clipped prompts), from a = highest() to b = lowest(), fit in
// a window shorter than 1 by `margin`; or the window is exactly 1 between two equal
// weights (bit-identical x at every scale) whose rounded-up end has the lower ids, and
// every other prompt keeps `margin` from both ends.
bool incremental_allocation::window_holds(const candidate& a, const candidate& b,
                                          double margin) const {
  if (a.id == none) return true;  // nothing free: every residual is 0
  const double top = std::max(a.residual, 0.0), bottom = std::min(b.residual, 0.0);
  if (top - bottom < 1 - margin) return true;
  const double w = items_[a.id].w;
  if (items_[b.id].w != w || plan_[b.id] != plan_[a.id] + 1 || b.id > a.id) return false;
  if (!(a.residual > margin && a.residual < 1 - margin)) return false;
  return highest(&w).residual < a.residual - margin &&
         lowest(&w).residual > b.residual + margin;
}

}  // namespace adarl
