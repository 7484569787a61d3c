#pragma once
// A binary heap over ids 0..n-1 whose keys change in place (incremental_allocation).

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace adarl {

/// A binary heap over the ids 0..n-1, each with a double key that can change in place:
/// the top is the id whose key comes first under `Before` (std::less: the smallest).
/// Every id is always in the heap; give an id an infinite key to keep it at the bottom.
/// Equal keys come out in no particular order. Not thread-safe.
template <class Before>
class indexed_heap {
 public:
  /// Puts ids 0..keys.size()-1 in the heap with these keys. O(n).
  void assign(std::span<const double> keys) {
    key_.assign(keys.begin(), keys.end());
    heap_.resize(key_.size());
    pos_.resize(key_.size());
    for (uint32_t i = 0; i < heap_.size(); ++i) heap_[i] = pos_[i] = i;
    for (size_t i = heap_.size() / 2; i-- > 0;) sift_down(i);
  }

  /// Changes the key of `id`. O(log n).
  void update(uint32_t id, double key) {
    key_[id] = key;
    sift_up(pos_[id]);
    sift_down(pos_[id]);
  }

  /// The first id and its key. Precondition: not empty. O(1).
  uint32_t top() const { return heap_.front(); }
  double top_key() const { return key_[heap_.front()]; }
  bool empty() const { return heap_.empty(); }

 private:
  void place(size_t at, uint32_t id) {
    heap_[at] = id;
    pos_[id] = static_cast<uint32_t>(at);
  }
  void sift_up(size_t at) {
    const uint32_t id = heap_[at];
    while (at > 0 && before_(key_[id], key_[heap_[(at - 1) / 2]])) {
      place(at, heap_[(at - 1) / 2]);
      at = (at - 1) / 2;
    }
    place(at, id);
  }
  void sift_down(size_t at) {
    const uint32_t id = heap_[at];
    for (;;) {
      size_t child = 2 * at + 1;
      if (child >= heap_.size()) break;
      if (child + 1 < heap_.size() && before_(key_[heap_[child + 1]], key_[heap_[child]]))
        ++child;
      if (!before_(key_[heap_[child]], key_[id])) break;
      place(at, heap_[child]);
      at = child;
    }
    place(at, id);
  }

  std::vector<uint32_t> heap_;  ///< Invariant: no key comes before its parent's.
  std::vector<uint32_t> pos_;   ///< Invariant: heap_[pos_[id]] == id.
  std::vector<double> key_;     ///< By id.
  [[no_unique_address]] Before before_;
};

}  // namespace adarl
