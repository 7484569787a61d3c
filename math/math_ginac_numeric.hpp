#pragma once
// Internal to math/math_ginac_*.cpp: the numeric side of math_scalar_engine. GiNaC's
// types are only declared here (the one header that names them); the two .cpp files
// include <ginac/ginac.h> themselves.

#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

namespace GiNaC {
class ex;
class numeric;
class symbol;
struct ex_is_less;
}  // namespace GiNaC

namespace adarl::detail {

/// Bits of an exact number: numerators and denominators of its real and imaginary
/// parts; 0 for a floating-point one. O(1).
uint64_t exact_bits(const GiNaC::numeric& n);

/// True when normal() may be called on `e`: at most 2000 nodes, no number over 128 bits,
/// and at most 2000 terms once products of sums and integer powers of sums are expanded
/// (an upper bound computed without expanding). O(size of e).
bool cheap_to_normalise(const GiNaC::ex& e);

/// The floating-point values (at GiNaC::Digits) the variables take at the k-th point
/// of a numeric comparison (k < 3): the j-th variable of `vars` is base + j * step, the
/// last point negative. Same values for both sides of a comparison.
std::map<GiNaC::ex, GiNaC::ex, GiNaC::ex_is_less> point_values(
    const std::vector<GiNaC::symbol>& vars, std::size_t k);

/// How many points point_values has.
inline constexpr std::size_t numeric_points = 3;

/// The value of `e` in floating point at GiNaC::Digits, each variable replaced by its
/// value in `at`: a walk over the tree with GiNaC's numeric functions, which never calls
/// GiNaC's eval() (eval throws on a pole after allocating, and GiNaC then leaks what it
/// was evaluating). Throws std::exception where `e` has no value there (a pole, log 0,
/// 0^0, a variable not in `at`, an unknown function). factorial and binomial go through
/// the Gamma function, which GiNaC computes to about 25 digits and only for Digits up to
/// about 30: `gamma_used` is then set. O(size of e). GiNaC may also throw GiNaC::dunno
/// (not a std::exception) where it cannot evaluate: callers catch everything.
GiNaC::numeric evaluate_at(const GiNaC::ex& e,
                           const std::map<GiNaC::ex, GiNaC::ex, GiNaC::ex_is_less>& at,
                           bool& gamma_used);

}  // namespace adarl::detail
