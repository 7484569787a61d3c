#pragma once
// How a replicated learner divides a step's batch among its ranks, and the batch as
// bytes (rank 0 hands it to the others through the TCPStore). Torch-free.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.hpp"
#include "engines/engine.hpp"

namespace adarl {

/// Splits samples among `ranks` by their token counts `tokens[i]`, balanced by tokens:
/// greedy largest-first (ties: lower index first) onto the rank with the fewest tokens
/// so far (ties: lower rank). Returns each rank's sample indices in ascending order;
/// every index appears exactly once. Deterministic: every rank computes the same split.
/// The heaviest rank holds at most the mean plus the largest sample's tokens.
/// Precondition: ranks >= 1. O(n log n + n ranks).
std::vector<std::vector<size_t>> split_by_tokens(const std::vector<uint64_t>& tokens,
                                                 uint32_t ranks);

/// The batch as bytes: "ADTB1", count, then per sample its fields (little-endian, the
/// floats bit for bit). O(tokens).
std::string encode_train_batch(const std::vector<train_sample>& batch);

/// Reads encode_train_batch()'s bytes; truncated or malformed input is an error, never
/// a crash.
result<std::vector<train_sample>> decode_train_batch(std::string_view bytes);

}  // namespace adarl
