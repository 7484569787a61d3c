// math_scalar_engine: the translation of math_ast nodes to GiNaC expressions, with the
// limits applied before GiNaC computes anything, and their comparison. The one file of
// adarl that includes GiNaC.
#include <ginac/ginac.h>

#include <time.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "math/math_ginac_numeric.hpp"
#include "math/math_scalar_engine.hpp"

namespace adarl {
namespace {

using GiNaC::ex;
using GiNaC::ex_to;
using GiNaC::is_a;
using GiNaC::numeric;
using clock_type = std::chrono::steady_clock;

/// Thrown inside this file only; every public function catches it.
struct stop {
  math_status status;
};

std::mutex& ginac_mutex() {
  static std::mutex m;
  return m;
}

// Takes the GiNaC mutex; the wait does not count against the deadline.
std::unique_lock<std::mutex> acquire(math_compare_settings& settings) {
  const auto before = clock_type::now();
  std::unique_lock<std::mutex> lock(ginac_mutex());
  if (settings.deadline != clock_type::time_point::max())
    settings.deadline += clock_type::now() - before;
  return lock;
}

}  // namespace

std::chrono::nanoseconds math_thread_cpu_time() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return std::chrono::seconds(ts.tv_sec) + std::chrono::nanoseconds(ts.tv_nsec);
}

struct math_scalar_engine::impl {
  std::array<const math_ast*, 2> asts;
  math_compare_settings cfg;
  std::map<std::string, GiNaC::symbol> symbols;  // shared by both sides
  std::map<std::tuple<int, uint32_t, uint32_t>, ex> built;

  void tick() {
    if (clock_type::now() <= cfg.deadline) return;
    const auto used = math_thread_cpu_time() - cfg.cpu_start;
    if (used >= cfg.budget) throw stop{math_status::timeout};
    cfg.deadline = clock_type::now() + (cfg.budget - used);  // the thread was not running
  }
  const GiNaC::symbol& symbol(const std::string& name) {
    return symbols.try_emplace(name, name).first->second;
  }
  bool approximate() const { return asts[0]->has_decimal || asts[1]->has_decimal; }
  ex value(math_ref r);
  math_status compare(const ex& x, const ex& y);
  math_status numerically(const ex& x, const ex& y);
  math_status at_point(const ex& x, const ex& y, const std::vector<GiNaC::symbol>& vars,
                       size_t point);
};

namespace {

/// Builds the GiNaC value of one side's subtree, refusing what would exceed the limits
/// before GiNaC computes it. Throws stop.
struct builder {
  math_scalar_engine::impl& engine;
  const math_ast& ast;
  math_status bad;               // this side's "no value" status
  std::vector<uint32_t> signs;   // the "\pm" nodes, in variant bit order
  uint32_t variant;

  [[noreturn]] void fail() const { throw stop{bad}; }
  // A reference past the limits is a bad reference; an answer past them is too complex.
  [[noreturn]] void too_complex() const {
    throw stop{bad == math_status::bad_reference ? bad : math_status::too_complex};
  }
  const math_limits& limits() const { return engine.cfg.limits; }

  ex checked(ex r) const {
    if (is_a<numeric>(r) && detail::exact_bits(ex_to<numeric>(r)) > limits().max_number_bits)
      too_complex();
    return r;
  }

  ex number(const std::string& text) const {
    const size_t dot = text.find('.');
    std::string digits = text;
    if (dot != std::string::npos) digits.erase(dot, 1);
    digits.erase(0, std::min(digits.find_first_not_of('0'), digits.size() - 1));
    ex v = numeric(digits.c_str());
    if (dot != std::string::npos)
      v = v / GiNaC::pow(ex(10), static_cast<int>(text.size() - dot - 1));
    return checked(v);
  }

  // GiNaC throws from inside eval() for 0^0, 0^-1, poles of tan and atan, and leaks the
  // object it was evaluating: those cases are refused here, before GiNaC sees them.
  ex power(const ex& base, const ex& exponent) const {
    if (base.is_zero() && is_a<numeric>(exponent) &&
        !(ex_to<numeric>(exponent).is_real() && ex_to<numeric>(exponent).is_positive()))
      fail();  // 0^0, 0^-1, 0^i
    if (is_a<numeric>(exponent) && ex_to<numeric>(exponent).is_rational()) {
      const numeric& q = ex_to<numeric>(exponent);
      const numeric limit(limits().max_exponent);
      if (q.denom() > limit) too_complex();
      if (is_a<numeric>(base)) {  // the result's size, estimated before computing it
        const auto base_bits = static_cast<long>(detail::exact_bits(ex_to<numeric>(base)));
        const numeric estimate = numeric(base_bits) * GiNaC::abs(q.numer());
        if (estimate > numeric(2l * limits().max_number_bits)) too_complex();
      } else if (GiNaC::abs(q.numer()) > limit) {
        too_complex();
      }
    }
    return checked(GiNaC::pow(base, exponent));
  }

  ex root(const ex& radicand, const ex& index) const {
    if (!is_a<numeric>(index)) return checked(GiNaC::pow(radicand, 1 / index));
    const numeric& n = ex_to<numeric>(index);
    if (!n.is_pos_integer()) fail();
    if (n > numeric(limits().max_exponent)) too_complex();
    const bool real_negative = is_a<numeric>(radicand) && ex_to<numeric>(radicand).is_real() &&
                               ex_to<numeric>(radicand).is_negative();
    if (real_negative && n.is_odd())  // \sqrt[3]{-8} = -2, not a complex root
      return checked(-GiNaC::pow(-radicand, ex(1) / ex(n)));
    return checked(GiNaC::pow(radicand, ex(1) / ex(n)));
  }

  ex reciprocal(const ex& e) const {
    if (e.is_zero()) fail();
    return 1 / e;
  }

  ex function(const math_node& n) {
    const ex a = go(n.kids[0]);
    const std::string& f = n.text;
    if (f == "sin") return GiNaC::sin(a);
    if (f == "cos") return GiNaC::cos(a);
    if (f == "tan") return GiNaC::sin(a) * reciprocal(GiNaC::cos(a));
    if (f == "cot") return GiNaC::cos(a) * reciprocal(GiNaC::sin(a));
    if (f == "sec") return reciprocal(GiNaC::cos(a));
    if (f == "csc") return reciprocal(GiNaC::sin(a));
    if (f == "asin") return GiNaC::asin(a);
    if (f == "acos") return GiNaC::acos(a);
    if (f == "atan") {
      if ((a - GiNaC::I).is_zero() || (a + GiNaC::I).is_zero()) fail();  // its poles
      return GiNaC::atan(a);
    }
    if (f == "sinh") return GiNaC::sinh(a);
    if (f == "cosh") return GiNaC::cosh(a);
    if (f == "tanh") return GiNaC::sinh(a) * reciprocal(GiNaC::cosh(a));
    if (f == "exp") return GiNaC::exp(a);
    if (f == "abs") return GiNaC::abs(a);
    if (a.is_zero()) fail();
    if (f == "ln") return GiNaC::log(a);
    if (f == "log10") return GiNaC::log(a) / GiNaC::log(ex(10));
    if (f == "log") return GiNaC::log(a) * reciprocal(GiNaC::log(go(n.kids[1])));
    fail();
  }

  ex factorial(const ex& a) const {
    if (!is_a<numeric>(a)) return GiNaC::factorial(a);
    const numeric& q = ex_to<numeric>(a);
    if (!q.is_nonneg_integer()) fail();
    if (q > numeric(limits().max_factorial)) too_complex();
    return checked(GiNaC::factorial(q));
  }

  ex binomial(const ex& n, const ex& k) const {
    if (!is_a<numeric>(n) || !is_a<numeric>(k)) return GiNaC::binomial(n, k);
    const numeric& a = ex_to<numeric>(n);
    const numeric& b = ex_to<numeric>(k);
    if (!a.is_integer() || !b.is_integer()) fail();
    if (GiNaC::abs(a) > numeric(limits().max_factorial)) too_complex();
    return checked(GiNaC::binomial(a, b));
  }

  ex plus_minus(uint32_t at, const math_node& n) {
    const auto bit = std::find(signs.begin(), signs.end(), at) - signs.begin();
    const bool minus = (variant >> bit) & 1u;
    const ex t = minus ? -go(n.kids.back()) : go(n.kids.back());
    return n.kids.size() == 1 ? t : checked(go(n.kids[0]) + t);
  }

  ex go(uint32_t at) {
    engine.tick();
    const math_node& n = ast.at(at);
    switch (n.kind) {
      case math_kind::number: return number(n.text);
      case math_kind::symbol: return engine.symbol(n.text);
      case math_kind::pi: return GiNaC::Pi;
      case math_kind::euler: return GiNaC::exp(ex(1));
      case math_kind::imaginary: return GiNaC::I;
      case math_kind::infinity: return engine.symbol("\\infty");  // no parsed name has '\'
      case math_kind::negate: return -go(n.kids[0]);
      case math_kind::divide: {
        const ex a = go(n.kids[0]);
        return checked(a * reciprocal(go(n.kids[1])));
      }
      case math_kind::power: {
        const ex a = go(n.kids[0]);
        return power(a, go(n.kids[1]));
      }
      case math_kind::root: {
        const ex a = go(n.kids[0]);
        return root(a, go(n.kids[1]));
      }
      case math_kind::function: return function(n);
      case math_kind::factorial: return factorial(go(n.kids[0]));
      case math_kind::binomial: {
        const ex a = go(n.kids[0]);
        return binomial(a, go(n.kids[1]));
      }
      case math_kind::plus_minus: return plus_minus(at, n);
      case math_kind::add:
      case math_kind::multiply: {
        ex out = n.kind == math_kind::add ? ex(0) : ex(1);
        for (const uint32_t kid : n.kids)
          out = checked(n.kind == math_kind::add ? out + go(kid) : out * go(kid));
        return out;
      }
      default: fail();  // a tuple, set, relation ... where a number belongs
    }
  }
};

}  // namespace

ex math_scalar_engine::impl::value(math_ref r) {
  const auto key = std::make_tuple(static_cast<int>(r.side), r.node, r.variant);
  if (const auto it = built.find(key); it != built.end()) return it->second;
  const math_ast& ast = *asts[static_cast<int>(r.side)];
  builder b{*this, ast,
            r.side == math_side::reference ? math_status::bad_reference
                                           : math_status::bad_answer,
            plus_minus_nodes(ast, r.node), r.variant};
  if (b.signs.size() > cfg.limits.max_plus_minus) b.too_complex();
  ex v;
  try {
    v = b.go(r.node);
  } catch (const stop&) {
    throw;
  } catch (...) {  // GiNaC: a pole, log(0), 0^-1 (std::exceptions), GiNaC::dunno, ...
    throw stop{b.bad};
  }
  built.emplace(key, v);
  return v;
}

math_status math_scalar_engine::impl::compare(const ex& x, const ex& y) {
  tick();
  const ex d = x - y;
  if (is_a<numeric>(d)) return d.is_zero() ? math_status::equal : math_status::different;
  if (detail::cheap_to_normalise(d)) {
    try {
      const ex n = GiNaC::normal(d);
      if (n.is_zero()) return math_status::equal;
      if (is_a<numeric>(n) || n.info(GiNaC::info_flags::rational_function))
        return math_status::different;  // rational: exact, never within a tolerance
    } catch (...) {  // algebra undecided: numbers decide
    }
  }
  tick();
  return numerically(x, y);
}

math_status math_scalar_engine::impl::numerically(const ex& x, const ex& y) {
  std::vector<GiNaC::symbol> vars;
  for (const auto& [name, s] : symbols) {
    if (x.has(s) || y.has(s)) vars.push_back(s);
  }
  const size_t points = vars.empty() ? 1 : detail::numeric_points;
  size_t agreed = 0;
  for (size_t p = 0; p < points; ++p) {
    tick();
    const math_status at = at_point(x, y, vars, p);
    if (at == math_status::different) return at;
    agreed += at == math_status::equal;
  }
  return agreed >= (vars.empty() ? 1 : 2) ? math_status::equal : math_status::different;
}

// equal, different, or bad_answer when a side has no number there (a pole, log 0).
// Evaluated at 30 and at 60 digits: an identity's difference shrinks with the precision,
// a real difference does not. With the Gamma function (25 digits, 30 at most) there is
// one evaluation, and agreement to 20 digits counts as identical.
math_status math_scalar_engine::impl::at_point(const ex& x, const ex& y,
                                               const std::vector<GiNaC::symbol>& vars,
                                               size_t point) {
  std::array<numeric, 2> diff;
  numeric scale;
  bool gamma_used = false;
  for (int k = 0; k < 2 && !(k == 1 && gamma_used); ++k) {
    GiNaC::Digits = k == 0 ? 30 : 60;
    try {
      const GiNaC::exmap at = detail::point_values(vars, point);
      const numeric a = detail::evaluate_at(x, at, gamma_used);
      const numeric b = detail::evaluate_at(y, at, gamma_used);
      diff[k] = GiNaC::abs(a - b);
      scale = std::max(GiNaC::abs(a), GiNaC::abs(b));
    } catch (...) {  // std::exception, or GiNaC::dunno (tgamma of a complex number)
      return math_status::bad_answer;
    }
  }
  const bool identical = gamma_used ? diff[0] <= scale * numeric(1e-20)
                                    : diff[1].is_zero() || diff[1] <= diff[0] * numeric(1e-20) ||
                                          diff[1] <= scale * numeric(1e-50);
  const numeric& last = gamma_used ? diff[0] : diff[1];
  if (identical) return math_status::equal;
  if (approximate() && last <= scale * numeric(cfg.relative_tolerance))
    return math_status::equal;
  return math_status::different;
}

math_scalar_engine::math_scalar_engine(const math_ast& reference, const math_ast& answer,
                                       math_compare_settings settings)
    : lock_(acquire(settings)),
      impl_(new impl{{&reference, &answer}, settings, {}, {}}) {}

math_scalar_engine::~math_scalar_engine() = default;

math_status math_scalar_engine::equal(math_ref a, math_ref b) {
  try {
    const ex x = impl_->value(a);
    return impl_->compare(x, impl_->value(b));
  } catch (const stop& s) {
    return s.status;
  } catch (...) {  // an undecided comparison is no proof of equality
    return math_status::different;
  }
}

math_status math_scalar_engine::same_equation(math_ref a_lhs, math_ref a_rhs, math_ref b_lhs,
                                              math_ref b_rhs) {
  try {
    const ex da = impl_->value(a_lhs) - impl_->value(a_rhs);
    const ex db = impl_->value(b_lhs) - impl_->value(b_rhs);
    if (da.is_zero() || db.is_zero())
      return da.is_zero() && db.is_zero() ? math_status::equal : math_status::different;
    if (detail::cheap_to_normalise(da) && detail::cheap_to_normalise(db)) {
      try {
        const ex q = GiNaC::normal(da / db);
        if (is_a<numeric>(q)) return math_status::equal;  // nonzero: da is not 0
      } catch (...) {
      }
    }
    const math_status same = impl_->compare(da, db);
    return same == math_status::different ? impl_->compare(da, -db) : same;
  } catch (const stop& s) {
    return s.status;
  } catch (...) {
    return math_status::different;
  }
}

math_status math_scalar_engine::check(math_ref a) {
  try {
    impl_->value(a);
    return math_status::equal;
  } catch (const stop& s) {
    return s.status;
  } catch (...) {
    return a.side == math_side::reference ? math_status::bad_reference
                                          : math_status::bad_answer;
  }
}

}  // namespace adarl
