#include "algorithms/plan_groups.hpp"

#include <algorithm>

namespace adarl {
namespace {

bool before(const plan_groups::member& a, const plan_groups::member& b) {
  return a.weight < b.weight || (a.weight == b.weight && a.id > b.id);
}

}  // namespace

void plan_groups::clear(uint32_t max_plan) {
  for (uint32_t p : plans_) groups_[p].clear();
  groups_.resize(size_t{max_plan} + 1);
  where_.assign(size_t{max_plan} + 1, -1);
  plans_.clear();
}

void plan_groups::note_size(uint32_t plan) {
  const bool listed = where_[plan] >= 0;
  if (!groups_[plan].empty() && !listed) {
    where_[plan] = static_cast<int32_t>(plans_.size());
    plans_.push_back(plan);
  } else if (groups_[plan].empty() && listed) {
    const uint32_t last = plans_.back();
    plans_[where_[plan]] = last;
    where_[last] = where_[plan];
    plans_.pop_back();
    where_[plan] = -1;
  }
}

void plan_groups::insert(uint32_t plan, member m) {
  auto& g = groups_[plan];
  g.insert(std::lower_bound(g.begin(), g.end(), m, before), m);
  note_size(plan);
}

void plan_groups::erase(uint32_t plan, member m) {
  auto& g = groups_[plan];
  g.erase(std::lower_bound(g.begin(), g.end(), m, before));
  note_size(plan);
}

void plan_groups::insert_all(std::span<const uint32_t> plans,
                             std::span<const member> members) {
  for (size_t i = 0; i < members.size(); ++i) groups_[plans[i]].push_back(members[i]);
  for (size_t p = 0; p < groups_.size(); ++p) {
    std::sort(groups_[p].begin(), groups_[p].end(), before);
    note_size(static_cast<uint32_t>(p));
  }
}

const plan_groups::member* plan_groups::lower_bound(std::span<const member> g, double w) {
  return g.data() + (std::partition_point(g.begin(), g.end(),
                                          [w](const member& m) { return m.weight < w; }) -
                     g.begin());
}

const plan_groups::member* plan_groups::upper_bound(std::span<const member> g, double w) {
  return g.data() +
         (std::partition_point(g.begin(), g.end(),
                               [w](const member& m) { return m.weight <= w; }) -
          g.begin());
}

}  // namespace adarl
