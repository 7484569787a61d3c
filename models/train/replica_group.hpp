#pragma once
// The ranks of a replicated learner on torch.distributed (c10d): rank 0's TCPStore, the
// join handshake, the process group (Gloo for cpu, NCCL for cuda where LibTorch has it)
// and the command channel by which rank 0 hands each step to the others. Included by
// models/ sources only (LibTorch).

#include <torch/torch.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "base/result.hpp"
#include "engines/replica_config.hpp"
#include "engines/replica_join_watch.hpp"

namespace adarl {

/// One rank's membership. Commands travel through the store (rank 0 sets adarl/cmd/N,
/// the others poll for it), tensors through the process group. Not thread-safe: one
/// owner (the learner engine). Collectives throw c10::Error on failure or timeout
/// (collective_timeout); the engine turns that into an error with blame().
class replica_group {
 public:
  /// Joins the group: rank 0 hosts the store at `c.store`; every rank publishes K and
  /// `config_text` (the learner's config as key=value lines) and rank 0 compares them
  /// with its own, then posts a verdict; then the process group forms (its own
  /// rendezvous). Blocks up to c.join_timeout, or until `watch.stop` is set; rank 0
  /// tells `watch.on_wait` which ranks it waits for. Errors, before any training: the
  /// store cannot be hosted or reached (naming learner.store), a rank is taken twice, a
  /// rank runs another K or another config (naming the first differing key), a rank did
  /// not join in time (naming it), stopped while waiting (naming what for).
  static result<std::unique_ptr<replica_group>> join(const replica_config& c,
                                                     const std::string& config_text,
                                                     const torch::Device& device,
                                                     const replica_join_watch& watch = {});
  ~replica_group();

  uint32_t rank() const;
  uint32_t world() const;
  /// "gloo" or "nccl".
  std::string backend() const;

  /// Reduces `t` in place over all ranks with `op` ("sum", "min" or "max"); one
  /// collective. Throws on failure.
  void allreduce(torch::Tensor& t, const char* op = "sum");
  /// Copies rank 0's `t` into every rank's `t` (same shape); one collective.
  void broadcast(torch::Tensor& t);

  /// Rank 0: posts the next command for the other ranks and returns its number (1, 2,
  /// ...). The previous command's key is deleted: every command but the last (stop)
  /// involves a collective, so every rank has read it by now. Throws on store failure.
  uint64_t post(const std::string& bytes);
  /// Ranks > 0: the next command's bytes, in order; polls the store (1 to 20 ms
  /// apart). An error when rank 0's store is gone (the coordinator ended) or `stop` is
  /// set.
  result<std::string> take(const std::atomic<bool>* stop);
  /// Rank 0, after a collective of the current command failed with `what`: the error
  /// text naming the ranks that never took the command (died or hung before it), or,
  /// when all took it, the only other rank (K = 2) or every other rank.
  std::string blame(const std::string& what);
  /// Rank 0 at the end: waits up to `patience` until every rank took the last command.
  void await_taken(std::chrono::milliseconds patience);

 private:
  struct impl;
  explicit replica_group(std::unique_ptr<impl> p);
  std::unique_ptr<impl> impl_;
};

/// The differences between two learner config texts (key=value lines), as "KEY is A
/// there, B here" phrases joined by "; " ("" when equal). `there` is the other rank's.
std::string config_text_differences(const std::string& there, const std::string& here);

}  // namespace adarl
