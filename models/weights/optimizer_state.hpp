#pragma once
// What a checkpoint needs of an optimizer: its state written to a file and read back, and
// its step. models/weights/ writes and reads checkpoints through this; models/train/'s
// policy_optimizer implements it, so weights/ does not include train/.

#include <cstdint>
#include <string>

#include "base/result.hpp"

namespace adarl {

/// An optimizer's state as a checkpoint sees it. Errors name the file.
class optimizer_state {
 public:
  virtual ~optimizer_state() = default;
  /// Writes the state to `path` (optimizer.safetensors), atomically.
  virtual result<bool> save_state(const std::string& path) = 0;
  /// Loads save_state()'s file; on error the optimizer is unchanged.
  virtual result<bool> load_state(const std::string& path) = 0;
  /// Loads the optimizer.pt of checkpoints before 0.2 (a torch::save archive).
  virtual result<bool> load_legacy_state(const std::string& path) = 0;
  /// Sets the optimizer steps taken (the schedule's position) after a load.
  virtual void set_steps(int64_t steps) = 0;
};

}  // namespace adarl
