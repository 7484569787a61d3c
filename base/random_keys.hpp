#pragma once
// Counter-based random numbers keyed by (seed, step, prompt, index, ...), the source of
// every random stream of a run.

#include <cstdint>

namespace adarl {

/// Counter-based random numbers: a value is a pure function of its keys, so a sample's
/// draws depend on (seed, step, prompt, sample index, position), never on thread timing
/// or call order (docs/design.md "Determinism"). Pure and thread-safe; O(1).

/// The splitmix64 mixing function (a bijection on 64-bit integers).
uint64_t splitmix64(uint64_t x);

/// A 64-bit key folded from several: each key is mixed into the hash of the previous
/// ones, so (1, 2) and (2, 1) give unrelated values.
uint64_t mix_keys(uint64_t a, uint64_t b);
uint64_t mix_keys(uint64_t a, uint64_t b, uint64_t c, uint64_t d);

/// A uniform number in [0, 1) derived from the keys alone.
double keyed_uniform(uint64_t seed, uint64_t step, uint64_t prompt, uint64_t index);

}  // namespace adarl
