#pragma once
// The order training prompts are drawn in: seeded permutations epoch after epoch.

#include <cstdint>
#include <vector>

namespace adarl {

/// The order in which training prompts are drawn: epoch after epoch, each epoch a
/// permutation of 0..count-1 keyed by (seed, epoch), so the order is a pure function of
/// the seed and survives a restart from the cursor alone. Not thread-safe; memory 4 bytes
/// per prompt; next() is O(1) amortised (O(count) once per epoch).
class prompt_order {
 public:
  /// Precondition: count > 0 and count < 2^32.
  prompt_order(uint64_t count, uint64_t seed);

  /// The next prompt index.
  uint64_t next();
  /// Draws handed out so far (epoch = cursor / count).
  uint64_t cursor() const { return cursor_; }
  /// Continues from a saved cursor.
  void seek(uint64_t cursor);
  uint64_t count() const { return count_; }

 private:
  void shuffle(uint64_t epoch);

  uint64_t count_ = 0;
  uint64_t seed_ = 0;
  uint64_t cursor_ = 0;
  uint64_t epoch_ = UINT64_MAX;  ///< Epoch whose permutation `order_` holds.
  std::vector<uint32_t> order_;
};

}  // namespace adarl
