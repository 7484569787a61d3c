#pragma once
// Skipped visits and their replacements, shared by the strategies that skip prompts the
// tracker's memory says will show no learning signal (the informed Seq, ada-budget).

#include <cstddef>
#include <cstdint>

#include "algorithms/step_types.hpp"

namespace adarl {

/// True for the share `explore` of visits that are drawn even when they would be
/// skipped, so that their estimates stay honest. Keyed by the visit (prompt_entry's
/// visit_key): the same choice in every run. Pure; O(1).
bool explored_visit(uint64_t visit_key, double explore);

/// The replacement prompts of one step's skipped visits: each skip asks for one more
/// prompt (decisions::prompts_wanted) while at most ceil(factor * prompts) have been
/// asked for in the step; add_prompts hands them over. Not thread-safe; O(1) per call.
class replacement_draws {
 public:
  /// Starts a step of `prompts` prompts; `on` false never asks for a replacement.
  void start(double factor, size_t prompts, bool on);
  /// A visit was skipped: asks for a replacement while one is allowed.
  void skipped(decisions& out);

  /// What add_prompts may take: `given` of the `asked` outstanding replacements.
  struct take {
    size_t given = 0;
    uint32_t asked = 0;
  };
  /// Takes up to `offered` prompts against the outstanding asks (0 when none are
  /// outstanding: a late call changes nothing). Add the taken prompts, then call done().
  take begin(size_t offered);
  /// After the taken prompts were added: when fewer came than were asked for, the
  /// prompt source is exhausted for the step and asks still open are withdrawn.
  void done(const take& t, decisions& out);

  /// Replacements asked for and not yet given.
  uint32_t wanted() const { return wanted_; }

 private:
  uint32_t wanted_ = 0;
  uint32_t left_ = 0;
};

}  // namespace adarl
