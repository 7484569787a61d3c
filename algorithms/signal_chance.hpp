#pragma once
// The chance that a prompt's pool will show a learning signal (both a right and a wrong
// answer) if more samples are drawn, under a Beta belief on its pass rate: the rule
// by which the informed Seq caps rounds and skips visits (docs/algorithm.md "The informed Seq").

#include <cstdint>

#include "algorithms/pass_rate.hpp"

namespace adarl {

/// P(after `more` samples the pool holds >= need_pos positives and >= need_neg
/// negatives), the pool holding `pos` and `neg` now and the pass rate p ~ Beta(a, b)
/// (the draws are then beta-binomial). 1 when the pool already qualifies; 0 when
/// `more` samples cannot make it qualify. Pure; O(more).
double signal_chance(const beta_posterior& belief, uint32_t pos, uint32_t neg, uint32_t more,
                     uint32_t need_pos, uint32_t need_neg);

/// signal_chance(belief, 0, 0, n, 1, 1) in O(1): the chance that n fresh samples hold
/// both a positive and a negative, 1 - P(all n right) - P(all n wrong) under
/// p ~ Beta(a, b). 0 for n < 2. Pure.
double mixed_chance(const beta_posterior& belief, uint32_t n);

}  // namespace adarl
