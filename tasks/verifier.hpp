#pragma once
// The verifier interface and its verdicts (a reward, and a reason for every zero).

#include <string>
#include <string_view>

#include "tasks/task_item.hpp"

namespace adarl {

/// The score of one completion. reward is 1 or 0 for the built-in verifiers; a zero
/// reward carries a short reason code that metrics count ("no_answer", "wrong_value",
/// "unparsable", "timeout", "crashed", "output_limit", "memory_limit", "step_limit",
/// "mismatch", ...). reason is empty when reward > 0.
struct verdict {
  float reward = 0.f;
  std::string reason;
};

/// Scores completions of one kind of task. Implementations are stateless after
/// construction and thread-safe (verify is const and may run concurrently, e.g. from TBB
/// inside one batch call). verify never throws and never crashes the caller: any failure
/// of the checked program or input is a zero reward with a reason.
class verifier {
 public:
  virtual ~verifier() = default;
  /// Registry name, e.g. "math", "general", "expr", "python".
  virtual std::string_view name() const = 0;
  /// Scores `completion` (the policy's generated text) against `item`.
  virtual verdict verify(const task_item& item, std::string_view completion) const = 0;
  /// "" when `item` carries what verify needs to reward anything (a reference answer
  /// it can read, hidden tests in its format), else why not, in a short sentence. A
  /// run refuses items with unusable references rather than score them 0 forever
  /// (tasks/reference_check.hpp). The default accepts every item. Thread-safe, never throws.
  virtual std::string check_reference(const task_item& item) const {
    (void)item;
    return {};
  }
};

}  // namespace adarl
