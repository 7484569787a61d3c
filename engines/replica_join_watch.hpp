#pragma once
// What a joining learner rank is told from outside (models/train/replica_group.hpp): the stop
// flag its waits poll, whom rank 0 tells which ranks it waits for, and whom a rank > 0
// tells of each step it trained. Torch-free.

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace adarl {

struct policy_weights;  // engines/engine.hpp

/// What rank 0 waits for while the other ranks join (replica_join_watch::on_wait).
struct replica_wait {
  std::vector<uint32_t> missing;  ///< Ranks not joined yet, ascending.
  std::string store;              ///< HOST:PORT of the store they join (learner.store).
  double waited = 0;              ///< Seconds waited so far.
  double timeout = 0;             ///< learner.join_timeout.
};

/// Told what rank 0 waits for; called on the joining thread.
using replica_wait_fn = std::function<void(const replica_wait&)>;

/// The outside of a join: the stop flag it polls and whom it tells what it waits for.
struct replica_join_watch {
  /// Polled every few milliseconds while waiting (between connection attempts of about
  /// 2 s for a rank > 0 whose rank 0 is not up yet); once set, the join ends with an
  /// error saying what it waited for. Null: never stopped.
  const std::atomic<bool>* stop = nullptr;
  replica_wait_fn on_wait;     ///< Rank 0: when it starts waiting, then every remind_seconds.
  double remind_seconds = 30;  ///< Between two on_wait calls.
};

/// Told of each step a replica rank > 0 trained, with its weights (tests compare ranks).
using replica_step_observer = std::function<void(const std::shared_ptr<const policy_weights>&)>;

}  // namespace adarl
