#include "tasks/math_suite.hpp"

#include <cstdint>
#include <cstdlib>
#include <numeric>
#include <optional>
#include <string>
#include <string_view>

namespace adarl {
namespace {

/// What one difficulty level generates.
struct level_spec {
  uint32_t min_operands = 2;
  uint32_t max_operands = 2;
  int64_t max_literal = 20;  ///< Operands of + and - are drawn from 0..max_literal.
  int64_t max_factor = 9;    ///< Factors and divisors are drawn from 2..max_factor.
  std::string_view ops = "+-";
  bool parentheses = false;   ///< true: at least one grouping; false: none allowed.
  uint32_t negative_pct = 0;  ///< Chance in percent that a literal is negative.
  uint32_t inexact_pct = 0;   ///< Chance in percent that a division may be inexact.
  bool non_negative = false;  ///< The final value must be >= 0.
  int64_t max_abs = 100;      ///< Bound on |numerator| of every subexpression.
};

constexpr level_spec kLevels[5] = {
    {2, 2, 99, 2, "+-", false, 0, 0, true, 200},
    {2, 3, 99, 9, "+-*", false, 0, 0, false, 10'000},
    {3, 3, 99, 12, "+-*/", false, 0, 0, false, 10'000},
    {3, 4, 199, 15, "+-*/", true, 15, 0, false, 100'000},
    {4, 5, 999, 25, "+-*/", true, 20, 25, false, 1'000'000},
};
// Bound on denominators (only level 5 makes fractions), keeping int64 arithmetic exact.
constexpr int64_t kMaxDenominator = 10'000;
// Attempts per item before falling back to the simplest expression.
constexpr int kMaxAttempts = 10'000;

/// An exact rational; invariant: den > 0 and gcd(|num|, den) == 1.
struct fraction {
  int64_t num = 0;
  int64_t den = 1;
};

fraction reduced(int64_t num, int64_t den) {
  if (den < 0) num = -num, den = -den;
  const int64_t g = std::gcd(num, den);
  return {num / g, den / g};
}

/// A generated (sub)expression: its text, value, and precedence (1 for + -, 2 for * /,
/// 3 for a literal).
struct expr {
  std::string text;
  fraction value;
  int precedence = 3;
  bool grouped = false;  ///< Some grouping parentheses appear in text.
};

// Uniform in [lo, hi]; plain modulo (tiny bias) so the sequence is the same with every
// standard library.
int64_t uniform(std::mt19937_64& rng, int64_t lo, int64_t hi) {
  return lo + static_cast<int64_t>(rng() % static_cast<uint64_t>(hi - lo + 1));
}
bool chance(std::mt19937_64& rng, uint32_t pct) {
  return rng() % 100 < pct;
}

expr literal(std::mt19937_64& rng, const level_spec& spec, int64_t magnitude) {
  if (magnitude != 0 && chance(rng, spec.negative_pct)) {
    return {"(-" + std::to_string(magnitude) + ")", {-magnitude, 1}, 3, false};
  }
  return {std::to_string(magnitude), {magnitude, 1}, 3, false};
}

std::optional<fraction> apply(char op, fraction a, fraction b) {
  switch (op) {
    case '+':
      return reduced(a.num * b.den + b.num * a.den, a.den * b.den);
    case '-':
      return reduced(a.num * b.den - b.num * a.den, a.den * b.den);
    case '*':
      return reduced(a.num * b.num, a.den * b.den);
    default:
      if (b.num == 0) return std::nullopt;
      return reduced(a.num * b.den, a.den * b.num);
  }
}

// Joins two operands, adding the parentheses precedence requires; nullopt when the
// value leaves the level's bounds.
std::optional<expr> combine(const level_spec& spec, expr left, char op, expr right) {
  const auto value = apply(op, left.value, right.value);
  if (!value || std::llabs(value->num) > spec.max_abs || value->den > kMaxDenominator) {
    return std::nullopt;
  }
  const int precedence = op == '+' || op == '-' ? 1 : 2;
  // Equal precedence on the right is safe for + and * in exact arithmetic.
  const bool wrap_left = left.precedence < precedence;
  const bool wrap_right = right.precedence < precedence ||
                          (right.precedence == precedence && (op == '-' || op == '/'));
  expr out;
  out.text = (wrap_left ? "(" + left.text + ")" : left.text) + " " + op + " " +
             (wrap_right ? "(" + right.text + ")" : right.text);
  out.value = *value;
  out.precedence = precedence;
  out.grouped = left.grouped || right.grouped || wrap_left || wrap_right;
  return out;
}

std::optional<expr> build(std::mt19937_64& rng, const level_spec& spec,
                          uint32_t operands);

// `sub` divided by a literal: a divisor of its value when one is in range, else (when
// the level allows) any divisor, else nullopt.
std::optional<expr> divide_by_literal(std::mt19937_64& rng, const level_spec& spec,
                                      expr sub) {
  int64_t divisors[32];
  int found = 0;
  for (int64_t d = 2; d <= spec.max_factor && found < 32; ++d) {
    if (sub.value.den == 1 && sub.value.num % d == 0) divisors[found++] = d;
  }
  int64_t d = 0;
  if (found > 0)
    d = divisors[uniform(rng, 0, found - 1)];
  else if (chance(rng, spec.inexact_pct))
    d = uniform(rng, 2, spec.max_factor);
  else
    return std::nullopt;
  return combine(spec, std::move(sub), '/', literal(rng, spec, d));
}

std::optional<expr> build(std::mt19937_64& rng, const level_spec& spec,
                          uint32_t operands) {
  if (operands == 1) return literal(rng, spec, uniform(rng, 0, spec.max_literal));
  const char op = spec.ops[uniform(rng, 0, static_cast<int64_t>(spec.ops.size()) - 1)];
  if (op == '/' && operands == 2) {
    // Two literals: pick divisor and quotient so the division is exact.
    const int64_t d = uniform(rng, 2, spec.max_factor);
    const int64_t q = uniform(rng, 1, spec.max_literal / d);
    return combine(spec, literal(rng, spec, q * d), '/', literal(rng, spec, d));
  }
  if (op == '*' || op == '/') {
    auto sub = build(rng, spec, operands - 1);
    if (!sub) return std::nullopt;
    if (op == '/') return divide_by_literal(rng, spec, std::move(*sub));
    expr factor = literal(rng, spec, uniform(rng, 2, spec.max_factor));
    if (chance(rng, 50)) return combine(spec, std::move(factor), '*', std::move(*sub));
    return combine(spec, std::move(*sub), '*', std::move(factor));
  }
  const auto left_count = static_cast<uint32_t>(uniform(rng, 1, operands - 1));
  auto left = build(rng, spec, left_count);
  if (!left) return std::nullopt;
  auto right = build(rng, spec, operands - left_count);
  if (!right) return std::nullopt;
  return combine(spec, std::move(*left), op, std::move(*right));
}

bool acceptable(const level_spec& spec, const expr& e) {
  if (e.grouped != spec.parentheses) return false;
  return !spec.non_negative || e.value.num >= 0;
}

std::string answer_text(fraction v) {
  if (v.den == 1) return std::to_string(v.num);
  return std::to_string(v.num) + "/" + std::to_string(v.den);
}

task_item make_math_item(std::mt19937_64& rng, uint32_t level) {
  const level_spec& spec = kLevels[level - 1];
  expr e{"1 + 1", {2, 1}, 1, false};
  for (int attempt = 0; attempt < kMaxAttempts; ++attempt) {
    const auto operands =
        static_cast<uint32_t>(uniform(rng, spec.min_operands, spec.max_operands));
    auto candidate = build(rng, spec, operands);
    if (candidate && acceptable(spec, *candidate)) {
      e = std::move(*candidate);
      break;
    }
  }
  task_item item;
  item.prompt = "Compute: " + e.text + ". Give the final answer.";
  item.answer = answer_text(e.value);
  item.verifier = "math";
  return item;
}

}  // namespace

std::vector<task_item> generate_math(const suite_request& req) {
  return generate_items("math", req, make_math_item);
}

}  // namespace adarl
