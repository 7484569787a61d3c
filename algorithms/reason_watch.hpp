#pragma once
// Zero rewards whose reason says the set-up is broken (a reference the verifier cannot
// read, tests in the wrong format, a missing verifier), watched over a run: once such a
// reason passes a share of the rewards, the run says so at once instead of training on
// zeros in silence.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace adarl {

/// What counts as alarming, and from when.
struct reason_watch_config {
  double share = 0.05;          ///< Alarm when a watched reason exceeds this share, in [0, 1].
  uint64_t min_samples = 32;    ///< No verdict on fewer scored samples than this.
  /// The reasons that mean a broken set-up rather than a wrong answer.
  std::vector<std::string> reasons{"bad_reference", "bad_tests",       "unknown_verifier",
                                   "verifier_error", "python_unavailable"};
};

/// One watched reason and its share of the scored samples so far.
struct reason_share {
  std::string reason;
  uint64_t count = 0;
  uint64_t samples = 0;
  double share() const { return samples ? double(count) / double(samples) : 0.0; }
};

/// Cumulative counts of the watched reasons over a run's steps. Not thread-safe (one
/// owner); O(watched reasons) per add.
class reason_watch {
 public:
  explicit reason_watch(reason_watch_config c = {});

  /// Adds one step: its scored samples and its zero rewards by reason. Returns the
  /// reasons whose share passed the threshold with this step (each reason alarms once
  /// per run; it alarms again only after falling back below it).
  std::vector<reason_share> add(const std::vector<std::pair<std::string, uint32_t>>& zeros,
                                uint64_t samples);

  /// Every watched reason above the threshold now (for a closing summary).
  std::vector<reason_share> over() const;

 private:
  bool above(const reason_share& r) const;

  reason_watch_config config_;
  uint64_t samples_ = 0;
  std::vector<reason_share> counts_;  ///< One per config_.reasons, in its order.
  std::vector<bool> alarmed_;         ///< Invariant: same size as counts_.
};

}  // namespace adarl
