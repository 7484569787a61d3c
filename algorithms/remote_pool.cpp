#include "algorithms/remote_pool.hpp"

#include <algorithm>
#include <limits>

namespace adarl {

remote_pool::remote_pool(remote_pool_config config) : config_(config) {}

void remote_pool::requeue(uint64_t batch, double now, remote_actions& out) {
  ++stats_.reissued;
  if (sends_[batch] >= config_.attempts) {
    sends_.erase(batch);
    out.local.push_back(batch);
    ++stats_.local;
    return;
  }
  queue_.push_front({batch, now});  // a fresh wait before local fallback
}

void remote_pool::take_back(worker& w, double now, remote_actions& out) {
  for (auto it = w.holding.rbegin(); it != w.holding.rend(); ++it) {  // keeps id order
    out_.erase(*it);
    requeue(*it, now, out);
  }
  w.holding.clear();
}

void remote_pool::dispatch(double now, remote_actions& out) {
  while (!queue_.empty()) {
    // The worker with the most free credit; on a tie the one sent to longest ago.
    worker* best = nullptr;
    const std::string* best_name = nullptr;
    for (auto& [name, w] : workers_) {
      const auto free = int64_t(w.credit) - int64_t(w.holding.size());
      if (free <= 0) continue;
      const auto best_free = best ? int64_t(best->credit) - int64_t(best->holding.size()) : 0;
      if (!best || free > best_free || (free == best_free && w.last_sent < best->last_sent)) {
        best = &w;
        best_name = &name;
      }
    }
    if (!best) return;
    const uint64_t b = queue_.front().batch;
    queue_.pop_front();
    best->holding.insert(b);
    best->last_sent = now;
    out_[b] = {*best_name, now};
    ++sends_[b];
    out.send.emplace_back(b, *best_name);
    ++stats_.sent;
  }
}

remote_actions remote_pool::hello(const std::string& name, uint32_t credit, double now) {
  remote_actions out;
  auto [it, fresh] = workers_.try_emplace(name);
  if (!fresh) take_back(it->second, now, out);
  it->second.credit = std::max<uint32_t>(1, credit);
  it->second.last_heard = now;
  it->second.last_sent = now;
  dispatch(now, out);
  return out;
}

void remote_pool::heard(const std::string& name, double now) {
  if (auto it = workers_.find(name); it != workers_.end()) it->second.last_heard = now;
}

bool remote_pool::returned(const std::string& name, uint64_t batch, double now,
                           remote_actions& out) {
  auto it = workers_.find(name);
  if (it != workers_.end()) it->second.last_heard = now;
  auto held = out_.find(batch);
  const bool used = it != workers_.end() && held != out_.end() && held->second.worker == name;
  if (used) {
    out_.erase(held);
    sends_.erase(batch);
    it->second.holding.erase(batch);
    ++stats_.returned;
  } else {
    ++stats_.stale;
  }
  dispatch(now, out);
  return used;
}

remote_actions remote_pool::bye(const std::string& name, double now) {
  remote_actions out;
  if (auto it = workers_.find(name); it != workers_.end()) {
    take_back(it->second, now, out);
    workers_.erase(it);
  }
  dispatch(now, out);
  return out;
}

uint64_t remote_pool::submit(double now, remote_actions& out) {
  const uint64_t b = next_batch_++;
  ++stats_.submitted;
  queue_.push_back({b, now});
  dispatch(now, out);
  return b;
}

remote_actions remote_pool::poll(double now) {
  remote_actions out;
  for (auto it = workers_.begin(); it != workers_.end();) {
    if (now - it->second.last_heard >= config_.timeout) {
      out.lost.push_back(it->first);
      ++stats_.workers_lost;
      take_back(it->second, now, out);
      it = workers_.erase(it);
    } else {
      ++it;
    }
  }
  for (auto it = out_.begin(); it != out_.end();) {
    if (now - it->second.since < config_.lease) {
      ++it;
      continue;
    }
    if (auto w = workers_.find(it->second.worker); w != workers_.end())
      w->second.holding.erase(it->first);
    const uint64_t b = it->first;
    it = out_.erase(it);
    requeue(b, now, out);
  }
  dispatch(now, out);
  for (auto it = queue_.begin(); it != queue_.end();) {
    if (now - it->since >= config_.local_after) {
      sends_.erase(it->batch);
      out.local.push_back(it->batch);
      ++stats_.local;
      it = queue_.erase(it);
    } else {
      ++it;
    }
  }
  for (auto& [name, w] : workers_)
    if (now - w.last_sent >= config_.heartbeat) {
      out.heartbeat.push_back(name);
      w.last_sent = now;
    }
  return out;
}

double remote_pool::next_due(double now) const {
  double due = std::numeric_limits<double>::infinity();
  for (const auto& [name, w] : workers_) {
    due = std::min(due, w.last_heard + config_.timeout - now);
    due = std::min(due, w.last_sent + config_.heartbeat - now);
  }
  for (const auto& q : queue_) due = std::min(due, q.since + config_.local_after - now);
  for (const auto& [b, l] : out_) due = std::min(due, l.since + config_.lease - now);
  return std::max(0.0, due);
}

}  // namespace adarl
