#pragma once
// Statistics of one reward group (positives, mean, std, advantages) shared by the strategies.

#include <cstdint>
#include <span>
#include <vector>

namespace adarl {

/// Small statistics on reward groups shared by the strategies. Pure; O(size).

/// Number of rewards strictly above `threshold`.
uint32_t count_positives(std::span<const float> rewards, float threshold);

/// Arithmetic mean; 0 for an empty span.
double mean_of(std::span<const float> rewards);

/// Unbiased (n - 1) standard deviation; 0 for fewer than two values.
double unbiased_std(std::span<const float> rewards);

/// Unbiased std of a 0/1 pool with k ones out of n: sqrt(k (n-k) / (n (n-1))).
/// By convention a pool of n <= 1 has std 1. (docs/algorithm.md "Reinforce-Ada-Seq" also gives it mean 0;
/// indicator_mean keeps k / n for n = 1. Seq never meets it: pools hold M >= 2.)
double indicator_std(uint32_t k, uint32_t n);
/// k / n, with mean 0 for an empty pool.
double indicator_mean(uint32_t k, uint32_t n);

/// r_i - baseline for each reward.
std::vector<float> centered(std::span<const float> rewards, double baseline);

/// (r_i - baseline) / scale for each reward. Precondition: scale > 0.
std::vector<float> scaled(std::span<const float> rewards, double baseline, double scale);

}  // namespace adarl
