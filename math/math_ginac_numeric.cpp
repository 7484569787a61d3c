// The numeric side of math_scalar_engine (math/math_ginac_numeric.hpp).
#include <ginac/ginac.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>
#include <string>

#include "math/math_ginac_numeric.hpp"

namespace adarl::detail {
namespace {

using GiNaC::ex;
using GiNaC::ex_to;
using GiNaC::is_a;
using GiNaC::numeric;

constexpr double kUnbounded = 1e18;

// An upper bound on the terms normal() may produce from `e`, or kUnbounded.
double expansion_terms(const ex& e, int& nodes) {
  if (++nodes > 2000) return kUnbounded;
  if (is_a<numeric>(e)) return exact_bits(ex_to<numeric>(e)) > 128 ? kUnbounded : 1;
  double out = 1;
  if (is_a<GiNaC::add>(e) || is_a<GiNaC::mul>(e)) {
    const bool sum = is_a<GiNaC::add>(e);
    out = sum ? 0 : 1;
    for (size_t k = 0; k < e.nops(); ++k) {
      const double t = expansion_terms(e.op(k), nodes);
      out = std::min(kUnbounded, sum ? out + t : out * t);
    }
  } else if (is_a<GiNaC::power>(e)) {
    const double base = expansion_terms(e.op(0), nodes);
    const double exponent = expansion_terms(e.op(1), nodes);
    const ex& x = e.op(1);
    if (is_a<numeric>(x) && ex_to<numeric>(x).is_integer()) {
      const double n = std::abs(ex_to<numeric>(x).to_double());
      out = base > 1 && n > 24 ? kUnbounded : std::min(kUnbounded, std::pow(base, n));
    } else {
      out = std::max(base, exponent);
    }
  } else {
    for (size_t k = 0; k < e.nops(); ++k) out = std::max(out, expansion_terms(e.op(k), nodes));
  }
  return out;
}

constexpr std::array<std::pair<long, long>, numeric_points> kBase = {
    {{5381, 10000}, {17723, 10000}, {-13137, 10000}}};
constexpr std::array<std::pair<long, long>, numeric_points> kStep = {
    {{2917, 10000}, {4391, 10000}, {6173, 10000}}};

numeric as_float(const numeric& n) {
  return ex_to<numeric>(GiNaC::evalf(ex(n)));
}

[[noreturn]] void no_value(const char* why) {
  throw std::domain_error(why);
}

// CLN reduces the argument of Gamma, the trigonometric functions and exp (so of powers
// too) to an integer multiple (of 1, pi, log 2): for a float of 10^(10^9) that integer
// alone takes gigabytes. Arguments that large only come from hostile towers ("((x!)!)!",
// "\sin e^{e^{e^{e^9}}}", "2^{2^{10^{12} x}}"): they have no value here.
void bounded(const numeric& x, double limit) {
  if (GiNaC::abs(x) > numeric(limit)) no_value("an argument too large to evaluate");
}
constexpr double kMaxAngle = 1e6;     // radians, for sin, cos, tan
constexpr double kMaxExponent = 1e6;  // for exp, sinh, cosh, tanh
constexpr double kMaxGamma = 1e4;     // the largest n! the limits allow is 1000!

numeric gamma_of(const numeric& x) {
  bounded(x, kMaxGamma);
  if (x.is_integer() && !x.is_positive()) no_value("a pole of Gamma");
  return GiNaC::tgamma(x);
}

// f(x) for one of the functions math_scalar_engine builds.
numeric call_function(const std::string& f, const numeric& x, bool& gamma_used) {
  if (f == "sin" || f == "cos" || f == "tan") bounded(x, kMaxAngle);
  if (f == "exp" || f == "sinh" || f == "cosh" || f == "tanh") bounded(x, kMaxExponent);
  if (f == "sin") return GiNaC::sin(x);
  if (f == "cos") return GiNaC::cos(x);
  if (f == "tan") return GiNaC::tan(x);
  if (f == "asin") return GiNaC::asin(x);
  if (f == "acos") return GiNaC::acos(x);
  if (f == "atan") {
    if ((x - GiNaC::I).is_zero() || (x + GiNaC::I).is_zero()) no_value("a pole of atan");
    return GiNaC::atan(x);
  }
  if (f == "sinh") return GiNaC::sinh(x);
  if (f == "cosh") return GiNaC::cosh(x);
  if (f == "tanh") return GiNaC::tanh(x);
  if (f == "exp") return GiNaC::exp(x);
  if (f == "abs") return GiNaC::abs(x);
  if (f == "log") {
    if (x.is_zero()) no_value("log 0");
    return GiNaC::log(x);
  }
  if (f == "factorial") {
    gamma_used = true;
    return gamma_of(x + 1);
  }
  no_value("an unknown function");
}

// b^x, which CLN computes as exp(x log b) unless x is a small integer.
numeric power_of(const numeric& b, const numeric& x) {
  if (b.is_zero()) {
    if (!(x.is_real() && x.is_positive())) no_value("0^0 or a pole");
    return 0;
  }
  bounded(x * GiNaC::log(b), kMaxExponent);
  return GiNaC::pow(b, x);
}

}  // namespace

uint64_t exact_bits(const numeric& n) {
  if (!n.is_crational()) return 0;
  const auto part = [](const numeric& r) {
    return static_cast<uint64_t>(r.numer().int_length()) + r.denom().int_length();
  };
  return part(n.real()) + part(n.imag());
}

bool cheap_to_normalise(const ex& e) {
  int nodes = 0;
  return expansion_terms(e, nodes) <= 2000;
}

GiNaC::exmap point_values(const std::vector<GiNaC::symbol>& vars, std::size_t k) {
  GiNaC::exmap at;
  for (size_t j = 0; j < vars.size(); ++j) {
    const numeric v = numeric(kBase[k].first, kBase[k].second) +
                      numeric(kStep[k].first, kStep[k].second) * numeric(static_cast<long>(j));
    at[vars[j]] = as_float(v);
  }
  return at;
}

numeric evaluate_at(const ex& e, const GiNaC::exmap& at, bool& gamma_used) {
  if (is_a<numeric>(e)) return as_float(ex_to<numeric>(e));
  if (is_a<GiNaC::symbol>(e)) {
    const auto it = at.find(e);
    if (it == at.end()) no_value("a variable without a value");
    return ex_to<numeric>(it->second);
  }
  if (is_a<GiNaC::constant>(e)) return ex_to<numeric>(GiNaC::evalf(e));
  if (is_a<GiNaC::add>(e) || is_a<GiNaC::mul>(e)) {
    const bool sum = is_a<GiNaC::add>(e);
    numeric out = sum ? 0 : 1;
    for (size_t k = 0; k < e.nops(); ++k) {
      const numeric v = evaluate_at(e.op(k), at, gamma_used);
      out = sum ? out + v : out * v;
    }
    return out;
  }
  if (is_a<GiNaC::power>(e)) return power_of(evaluate_at(e.op(0), at, gamma_used),
                                              evaluate_at(e.op(1), at, gamma_used));
  if (is_a<GiNaC::function>(e)) {
    const std::string f = ex_to<GiNaC::function>(e).get_name();
    if (f == "binomial" && e.nops() == 2) {  // Gamma(n+1) / (Gamma(k+1) Gamma(n-k+1))
      const numeric n = evaluate_at(e.op(0), at, gamma_used);
      const numeric k = evaluate_at(e.op(1), at, gamma_used);
      gamma_used = true;
      return gamma_of(n + 1) / (gamma_of(k + 1) * gamma_of(n - k + 1));
    }
    if (e.nops() != 1) no_value("an unknown function");
    return call_function(f, evaluate_at(e.op(0), at, gamma_used), gamma_used);
  }
  no_value("an expression of unknown form");
}

}  // namespace adarl::detail
