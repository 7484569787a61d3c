#include "algorithms/reason_watch.hpp"

namespace adarl {

reason_watch::reason_watch(reason_watch_config c) : config_(std::move(c)) {
  for (const auto& r : config_.reasons) counts_.push_back({r, 0, 0});
  alarmed_.assign(counts_.size(), false);
}

bool reason_watch::above(const reason_share& r) const {
  return r.samples >= config_.min_samples && r.count > 0 && r.share() > config_.share;
}

std::vector<reason_share> reason_watch::add(
    const std::vector<std::pair<std::string, uint32_t>>& zeros, uint64_t samples) {
  samples_ += samples;
  std::vector<reason_share> fired;
  for (size_t i = 0; i < counts_.size(); ++i) {
    auto& c = counts_[i];
    for (const auto& [reason, n] : zeros)
      if (reason == c.reason) c.count += n;
    c.samples = samples_;
    const bool now = above(c);
    if (now && !alarmed_[i]) fired.push_back(c);
    alarmed_[i] = now;
  }
  return fired;
}

std::vector<reason_share> reason_watch::over() const {
  std::vector<reason_share> out;
  for (const auto& c : counts_)
    if (above(c)) out.push_back(c);
  return out;
}

}  // namespace adarl
