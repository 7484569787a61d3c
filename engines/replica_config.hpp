#pragma once
// Settings of a replicated (data-parallel) learner: torch-free, so that configs hold them.

#include <cstdint>
#include <string>

namespace adarl {

/// Where one learner replica stands among `replicas` (docs/guides/cluster.md "Replicated learners").
/// Rank 0 is the learner inside the coordinator (`adarl run`): it hosts the TCPStore at
/// `store`, hands each step's batch to the other ranks and alone publishes weights and
/// writes checkpoints. Ranks 1..replicas-1 are `adarl worker learn` processes.
struct replica_config {
  uint32_t replicas = 1;             ///< K learner processes; 1 = no replication.
  uint32_t rank = 0;                 ///< This process's rank in [0, replicas).
  std::string store = "127.0.0.1:29510";  ///< HOST:PORT of rank 0's TCPStore.
  double collective_timeout = 120;   ///< Seconds a collective may wait for a rank.
  double join_timeout = 300;         ///< Seconds to wait for every rank to join.
  /// Debug: compare a hash of the parameters across ranks after every step; a
  /// difference ends the step with an error (replicas must stay bit-identical).
  bool check_every_step = false;
};

}  // namespace adarl
