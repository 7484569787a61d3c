#include "tasks/code_suite.hpp"

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "tasks/expr_lang.hpp"
#include "tasks/suite_common.hpp"

namespace adarl {

namespace {

/// Outputs beyond this magnitude are redrawn, to keep prompts short.
constexpr int64_t max_output = 10000;

/// A uniform integer in [lo, hi], by modulo: the same on every standard library
/// (std::uniform_int_distribution is implementation-defined).
int64_t pick(std::mt19937_64& rng, int64_t lo, int64_t hi) {
  return lo + static_cast<int64_t>(rng() % static_cast<uint64_t>(hi - lo + 1));
}

/// A non-zero integer in [lo, hi].
int64_t pick_nonzero(std::mt19937_64& rng, int64_t lo, int64_t hi) {
  int64_t v = 0;
  while (v == 0) v = pick(rng, lo, hi);
  return v;
}

std::string num(int64_t v) {
  return std::to_string(v);
}

/// "+c" or "-c" to append to a term; "" for zero.
std::string plus(int64_t c) {
  if (c == 0) return "";
  return c > 0 ? "+" + num(c) : "-" + num(-c);
}

/// a*x written without a unit factor: "x", "3*x".
std::string times_x(int64_t a) {
  return a == 1 ? "x" : num(a) + "*x";
}

std::string level1(std::mt19937_64& rng) {
  switch (pick(rng, 0, 2)) {
    case 0:
      return "x+" + num(pick(rng, 1, 30));
    case 1:
      return "x-" + num(pick(rng, 1, 30));
    default:
      return num(pick(rng, 2, 15)) + "*x";
  }
}

std::string level2(std::mt19937_64& rng) {
  if (pick(rng, 0, 2) < 2)
    return times_x(pick(rng, 2, 9)) + plus(pick_nonzero(rng, -20, 20));
  return num(pick(rng, 1, 20)) + "-" + times_x(pick(rng, 1, 5));
}

std::string level3(std::mt19937_64& rng) {
  switch (pick(rng, 0, 3)) {
    case 0:
      return "x*x" + plus(pick(rng, -10, 10));
    case 1: {
      const int64_t a = pick(rng, 2, 3), b = pick(rng, -5, 5), c = pick(rng, -9, 9);
      std::string p = num(a) + "*x*x";
      if (b != 0) p += (b > 0 ? "+" : "-") + times_x(b > 0 ? b : -b);
      return p + plus(c);
    }
    case 2:
      return "x*(x" + plus(pick_nonzero(rng, -9, 9)) + ")";
    default: {
      const std::string f = "(x+" + num(pick(rng, 1, 5)) + ")";
      return f + "*" + f;
    }
  }
}

// Levels 4 and 5 take the first shown input, so that a threshold falls inside the
// shown range with at least two shown inputs on either side (three for affine pieces).

std::string level4(std::mt19937_64& rng, int64_t start) {
  switch (pick(rng, 0, 4)) {
    case 0:
      return "x%" + num(pick(rng, 2, 6));
    case 1:
      return "x/" + num(pick(rng, 2, 4));
    case 2: {
      const int64_t k = pick(rng, start + 2, start + 6), a = pick(rng, 0, 9);
      const int64_t b = (a + pick(rng, 1, 9)) % 10;  // b != a
      return "if x<" + num(k) + " then " + num(a) + " else " + num(b);
    }
    case 3: {
      const int64_t a = pick(rng, 0, 9), b = (a + pick(rng, 1, 9)) % 10;
      return "if x%2==0 then " + num(a) + " else " + num(b);
    }
    default:
      return "(x+" + num(pick(rng, 1, 5)) + ")%" + num(pick(rng, 3, 6));
  }
}

std::string level5(std::mt19937_64& rng, int64_t start) {
  switch (pick(rng, 0, 5)) {
    case 0:
      return "if x%2==0 then x/2 else " + times_x(pick(rng, 2, 4)) +
             plus(pick(rng, 1, 3));
    case 1:
      return "if x<" + num(pick(rng, start + 3, start + 5)) + " then " +
             times_x(pick(rng, 1, 4)) + plus(pick(rng, 0, 5)) + " else " +
             num(pick(rng, 0, 9));
    case 2:
      return "x*x%" + num(pick(rng, 3, 7));
    case 3:
      return "(" + times_x(pick(rng, 2, 5)) + plus(pick(rng, 0, 5)) + ")%" +
             num(pick(rng, 3, 7));
    case 4:
      return "x%" + num(pick(rng, 2, 5)) + "*" + num(pick(rng, 2, 5)) +
             plus(pick(rng, 1, 9));
    default: {
      const std::string k = num(pick(rng, start + 2, start + 5));
      return "if x>" + k + " then x-" + k + " else " + k + "-x";
    }
  }
}

std::string reference_program(std::mt19937_64& rng, uint32_t level, int64_t start) {
  switch (level) {
    case 1:
      return level1(rng);
    case 2:
      return level2(rng);
    case 3:
      return level3(rng);
    case 4:
      return level4(rng, start);
    default:
      return level5(rng, start);
  }
}

/// Shown inputs: `count` consecutive ones from a random start; hidden extra inputs
/// beyond them (negative ones only where no `%`, `/` or threshold is involved).
void draw_inputs(std::mt19937_64& rng, uint32_t level, std::vector<int64_t>& shown,
                 std::vector<int64_t>& hidden) {
  const int64_t count = level <= 2 ? 3 : level == 3 ? 4 : 8;
  const int64_t start = pick(rng, 0, level <= 2 ? 9 : level == 3 ? 5 : 2);
  for (int64_t i = 0; i < count; ++i) shown.push_back(start + i);
  const int64_t next = start + count;
  if (level <= 3) {
    hidden = {-3, -1, next, next + 4, 10, 17};
  } else {
    hidden = {next, next + 1, next + 2, next + 3, next + 4, next + 5, 16, 23, 31};
  }
  std::erase_if(hidden, [&](int64_t x) {
    return std::find(shown.begin(), shown.end(), x) != shown.end();
  });
  std::sort(hidden.begin(), hidden.end());
  hidden.erase(std::unique(hidden.begin(), hidden.end()), hidden.end());
}

task_item make_code_item(std::mt19937_64& rng, uint32_t level) {
  while (true) {
    std::vector<int64_t> shown, hidden;
    draw_inputs(rng, level, shown, hidden);
    const std::string program = reference_program(rng, level, shown.front());
    const auto parsed = expr_program::parse(program);
    if (!parsed) continue;  // unreachable for the templates above
    std::string prompt = "Write an expression in x that maps ";
    std::string cases = "{\"cases\": [";
    bool ok = true;
    size_t n = 0;
    for (const auto* xs : {&shown, &hidden}) {
      for (int64_t x : *xs) {
        const auto y = parsed->eval(x);
        if (!y || *y > max_output || *y < -max_output) ok = false;
        if (!ok) break;
        if (xs == &shown) prompt += (n ? ", " : "") + num(x) + "->" + num(*y);
        cases += (n ? ", [" : "[") + num(x) + ", " + num(*y) + "]";
        ++n;
      }
    }
    if (!ok) continue;
    task_item item;
    item.prompt = prompt + ".";
    item.answer = program;
    item.tests = cases + "]}";
    item.verifier = "expr";
    return item;
  }
}

}  // namespace

std::vector<task_item> generate_code(const suite_request& req) {
  return generate_items("code", req, make_code_item);
}

}  // namespace adarl
