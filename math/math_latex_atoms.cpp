// parse_math_latex: atoms (numbers, letters, brackets, commands, matrices).
#include <array>

#include "math/math_latex_reader.hpp"
#include "math/math_normalize.hpp"

namespace adarl::detail {
namespace {

constexpr bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
constexpr bool is_alpha(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

constexpr std::array<std::string_view, 33> kGreek = {
    "alpha", "beta",  "gamma",   "delta",  "epsilon", "varepsilon", "zeta",  "eta",
    "theta", "vartheta", "iota", "kappa",  "lambda",  "mu",         "nu",    "xi",
    "rho",   "sigma", "tau",     "upsilon", "phi",    "varphi",     "chi",   "psi",
    "omega", "Gamma", "Delta",   "Theta",  "Lambda",  "Xi",         "Sigma", "Phi",
    "Omega"};
// Function names (as commands or plain words) and what math_kind::function calls them.
constexpr std::array<std::pair<std::string_view, std::string_view>, 18> kFunctions = {{
    {"sin", "sin"},       {"cos", "cos"},       {"tan", "tan"},   {"cot", "cot"},
    {"sec", "sec"},       {"csc", "csc"},       {"arcsin", "asin"}, {"arccos", "acos"},
    {"arctan", "atan"},   {"sinh", "sinh"},     {"cosh", "cosh"}, {"tanh", "tanh"},
    {"exp", "exp"},       {"ln", "ln"},         {"log", "log"},   {"lg", "log10"},
    {"abs", "abs"},       {"sqrt", "sqrt"}}};
constexpr std::array<std::string_view, 6> kMatrices = {"pmatrix", "bmatrix",     "Bmatrix",
                                                       "matrix",  "smallmatrix", "array"};
// Commands that start an atom (so may follow another factor in an implicit product).
constexpr std::array<std::string_view, 17> kAtomCommands = {
    "frac",  "sqrt",   "binom",    "pi",     "infty",   "text", "textbf",  "textrm",
    "mbox",  "mathrm", "mathit",   "textit", "operatorname", "mathbb", "begin",
    "emptyset", "varnothing"};

template <size_t N>
bool listed(const std::array<std::string_view, N>& words, std::string_view w) {
  for (std::string_view k : words) {
    if (k == w) return true;
  }
  return false;
}

std::optional<std::string_view> function_kind(std::string_view name) {
  for (const auto& [spelling, kind] : kFunctions) {
    if (spelling == name) return kind;
  }
  return std::nullopt;
}

}  // namespace

bool latex_reader::starts_atom() const {
  size_t j = i_;
  while (j < s_.size() && s_[j] == ' ') ++j;
  if (j >= s_.size()) return false;
  const char c = s_[j];
  if (is_digit(c) || is_alpha(c) || c == '(' || c == '[' || c == '{' || c == '.') return true;
  if (c == '|') return abs_depth_ == 0;
  if (c != '\\') return false;
  if (j + 1 < s_.size() && s_[j + 1] == '{') return true;
  const std::string_view name = command_name(j);
  return listed(kAtomCommands, name) || listed(kGreek, name) || function_kind(name);
}

uint32_t latex_reader::atom() {
  enter();
  ws();
  const char c = peek();
  uint32_t out;
  if (is_digit(c) || (c == '.' && is_digit(peek(1)))) {
    out = number();
  } else if (is_alpha(c)) {
    out = letters();
  } else if (c == '(' || c == '[') {
    out = bracket();
  } else if (c == '{') {
    out = group();
  } else if (c == '|' && abs_depth_ == 0) {
    ++i_;
    ++abs_depth_;
    const uint32_t inside = sum();
    --abs_depth_;
    expect('|');
    out = add(math_kind::function, {inside}, "abs");
  } else if (c == '\\' && peek(1) == '{') {
    out = set_braces();
  } else if (c == '\\') {
    const std::string_view name = command_name(i_);
    if (name.empty()) fail();
    i_ += name.size() + 1;
    out = command(name);
  } else {
    fail();
  }
  leave();
  return out;
}

uint32_t latex_reader::number() {
  const size_t start = i_;
  uint32_t digits = 0;
  bool point = false;
  while (is_digit(peek()) || (peek() == '.' && !point && is_digit(peek(1)))) {
    point = point || peek() == '.';
    digits += peek() != '.';
    ++i_;
  }
  if (digits > lim_.max_digits) fail(math_parse_status::too_complex);
  std::string text(s_.substr(start, i_ - start));
  if (peek() == '_' && !point) {  // "1011_2": a numeral in another base, kept as written
    ++i_;
    return add(math_kind::symbol, {}, text + "_" + subscript());
  }
  ast_.has_decimal = ast_.has_decimal || point;
  return add(math_kind::number, {}, std::move(text));
}

std::string latex_reader::subscript() {
  ws();
  if (peek() == '{') return math_text_key(raw_group());
  size_t end = i_;
  while (end < s_.size() && (is_digit(s_[end]) || is_alpha(s_[end]))) ++end;
  if (end == i_) fail();
  std::string out(s_.substr(i_, end - i_));
  i_ = end;
  return out;
}

uint32_t latex_reader::letters() {
  size_t end = i_;
  while (end < s_.size() && is_alpha(s_[end])) ++end;
  const std::string_view run = s_.substr(i_, end - i_);
  if (run.size() >= 2) {
    if (const auto kind = function_kind(run)) {
      i_ = end;
      return function(std::string(*kind));
    }
    if (run == "pi" || run == "inf" || run == "infty" || run == "infinity") {
      i_ = end;
      return add(run == "pi" ? math_kind::pi : math_kind::infinity);
    }
    if (run.size() >= 3) {  // a word: the whole answer, or an error (read())
      i_ = end;
      return add(math_kind::text, {}, math_text_key(run));
    }
  }
  const char c = s_[i_++];
  if (peek() == '_') {
    ++i_;
    return add(math_kind::symbol, {}, std::string(1, c) + "_" + subscript());
  }
  if (c == 'e') return add(math_kind::euler);
  if (c == 'i') return add(math_kind::imaginary);
  return add(math_kind::symbol, {}, std::string(1, c));
}

uint32_t latex_reader::bracket() {
  const char open = s_[i_++];
  std::vector<uint32_t> items{sequence(/*top=*/false)};
  // sequence() already joined commas into a list: unpack it as the elements.
  if (ast_.at(items[0]).kind == math_kind::list) items = ast_.at(items[0]).kids;
  ws();
  const char close = peek();
  if (close != ')' && close != ']') fail();
  ++i_;
  if (items.size() == 1) {
    if ((open == '(') != (close == ')')) fail();  // "[1)" is no group
    return items[0];
  }
  if (items.size() == 2 && !(open == '(' && close == ')')) {
    return add(math_kind::interval, std::move(items), std::string{open, close});
  }
  if ((open == '(') != (close == ')')) fail();
  return add(math_kind::tuple, std::move(items));
}

uint32_t latex_reader::set_braces() {
  i_ += 2;  // "\{"
  if (eat("\\}")) return add(math_kind::set);
  uint32_t inside = sequence(/*top=*/false);
  std::vector<uint32_t> items{inside};
  if (ast_.at(inside).kind == math_kind::list) items = ast_.at(inside).kids;
  if (!eat("\\}")) fail();
  return add(math_kind::set, std::move(items));
}

uint32_t latex_reader::group() {
  ++i_;  // '{'
  const uint32_t first = sequence(/*top=*/false);
  uint32_t out = first;
  if (eat_command("choose")) {
    out = add(math_kind::binomial, {first, sequence(false)});
  } else if (ast_.at(first).kind == math_kind::list) {
    out = add(math_kind::set, ast_.at(first).kids);  // "{1, 3}": a set written without "\{"
  }
  expect('}');
  return out;
}

std::string_view latex_reader::raw_group() {
  ws();
  if (peek() != '{') fail();
  int depth = 0;
  for (size_t j = i_; j < s_.size(); ++j) {
    if (s_[j] == '{') ++depth;
    if (s_[j] == '}' && --depth == 0) {
      const std::string_view inner = s_.substr(i_ + 1, j - i_ - 1);
      i_ = j + 1;
      return inner;
    }
  }
  fail();
}

uint32_t latex_reader::command(std::string_view name) {
  if (name == "frac") {
    const uint32_t num = brace_arg();
    return add(math_kind::divide, {num, brace_arg()}, "frac");
  }
  if (name == "sqrt") return function("sqrt");
  if (name == "binom") {
    const uint32_t n = brace_arg();
    return add(math_kind::binomial, {n, brace_arg()});
  }
  if (name == "pi") return add(math_kind::pi);
  if (name == "infty") return add(math_kind::infinity);
  if (name == "emptyset" || name == "varnothing") return add(math_kind::set);
  if (name == "begin") return matrix();
  if (name == "mathbb") {
    if (math_text_key(raw_group()) != "r") fail();
    const uint32_t lo = add(math_kind::negate, {add(math_kind::infinity)});
    return add(math_kind::tuple, {lo, add(math_kind::infinity)});
  }
  if (name == "operatorname") {
    const std::string key = math_text_key(raw_group());
    if (const auto kind = function_kind(key)) return function(std::string(*kind));
    return add(math_kind::text, {}, key);
  }
  if (listed(kAtomCommands, name)) return text_command();  // \text and its kin
  if (listed(kGreek, name)) return add(math_kind::symbol, {}, std::string(name));
  if (const auto kind = function_kind(name)) return function(std::string(*kind));
  fail();
}

uint32_t latex_reader::text_command() {
  std::string_view raw = raw_group();
  while (!raw.empty() && raw.front() == ' ') raw.remove_prefix(1);
  while (!raw.empty() && raw.back() == ' ') raw.remove_suffix(1);
  if (raw.size() == 1 && is_alpha(raw[0])) {  // \mathrm{e}, \text{x}: one letter is math
    if (raw == "e") return add(math_kind::euler);
    if (raw == "i") return add(math_kind::imaginary);
    return add(math_kind::symbol, {}, std::string(raw));
  }
  const std::string key = math_text_key(raw);
  if (key.empty()) fail();
  return add(math_kind::text, {}, key);
}

uint32_t latex_reader::function(std::string name) {
  if (name == "sqrt") {
    std::optional<uint32_t> index;
    if (eat('[')) {
      index = sum();
      expect(']');
    }
    const uint32_t radicand = brace_arg();
    return add(math_kind::root, {radicand, index ? *index : add(math_kind::number, {}, "2")});
  }
  std::optional<uint32_t> exponent, base;
  for (int k = 0; k < 2; ++k) {
    if (!exponent && eat('^'))
      exponent = script_arg();
    else if (name == "log" && !base && eat('_'))
      base = script_arg();
  }
  bool inverse = false;
  if (exponent) {  // \sin^{-1} x is arcsin x, \sin^2 x is (sin x)^2
    const math_node& e = ast_.at(*exponent);
    inverse = e.kind == math_kind::negate && ast_.at(e.kids[0]).kind == math_kind::number &&
              ast_.at(e.kids[0]).text == "1";
    if (inverse && name != "sin" && name != "cos" && name != "tan") fail();
    if (inverse) name = "a" + name;
  }
  const bool angle = name == "sin" || name == "cos" || name == "tan" || name == "cot" ||
                     name == "sec" || name == "csc";
  trig_depth_ += angle;
  std::vector<uint32_t> kids{function_argument()};
  trig_depth_ -= angle;
  if (name == "log" && base)
    kids.push_back(*base);
  else if (name == "log")
    name = "ln";  // \log without a base: natural, as in analysis
  uint32_t out = add(math_kind::function, std::move(kids), std::move(name));
  if (exponent && !inverse) out = add(math_kind::power, {out, *exponent});
  return out;
}

// "\sin(x)", "\sin{x}", or the implicit product that follows: "\sin 2x", "\log 8",
// stopping before another function ("\sin x \cos x").
uint32_t latex_reader::function_argument() {
  ws();
  if (peek() == '(' || peek() == '{') return atom();
  std::vector<uint32_t> factors{power()};
  for (;;) {
    ws();
    if (separator_at() || !starts_atom() || is_digit(peek()) || peek() == '(') break;
    if (peek() == '\\' && function_kind(command_name(i_))) break;
    if (is_alpha(peek())) {
      size_t end = i_;
      while (end < s_.size() && is_alpha(s_[end])) ++end;
      if (function_kind(s_.substr(i_, end - i_))) break;
    }
    factors.push_back(power());
    if (factors.size() > lim_.max_elements) fail(math_parse_status::too_complex);
  }
  if (factors.size() == 1) return factors[0];
  return add(math_kind::multiply, std::move(factors));
}

uint32_t latex_reader::matrix() {
  const std::string_view env = raw_group();
  if (!listed(kMatrices, env)) fail();  // vmatrix is a determinant: not a matrix value
  if (env == "array") raw_group();      // the column spec
  std::vector<uint32_t> cells;
  uint32_t cols = 0;
  uint32_t in_row = 0;
  for (;;) {
    cells.push_back(sum());
    ++in_row;
    if (cells.size() > lim_.max_elements) fail(math_parse_status::too_complex);
    if (eat('&')) continue;
    const bool row_end = eat("\\\\");
    ws();
    const bool done = s_.substr(i_).starts_with("\\end");
    if (!row_end && !done) fail();
    if (cols == 0) cols = in_row;
    if (in_row != cols) fail();
    in_row = 0;
    if (done) break;
  }
  i_ += 4;  // "\end"
  if (raw_group() != env) fail();
  const uint32_t out = add(math_kind::matrix, std::move(cells));
  ast_.nodes[out].cols = cols;
  return out;
}

// An argument of \frac, \sqrt or \binom: a brace group, or one digit, letter or command
// ("\frac12", "\frac\pi2").
uint32_t latex_reader::brace_arg() {
  ws();
  const char c = peek();
  if (c == '{') {
    ++i_;
    enter();
    const uint32_t inside = sum();
    leave();
    expect('}');
    return inside;
  }
  if (is_digit(c)) {
    ++i_;
    return add(math_kind::number, {}, std::string(1, c));
  }
  if (is_alpha(c)) {
    ++i_;
    if (c == 'e') return add(math_kind::euler);
    if (c == 'i') return add(math_kind::imaginary);
    return add(math_kind::symbol, {}, std::string(1, c));
  }
  if (c == '\\' || c == '(') return atom();
  fail();
}

// An exponent: a brace group, a signed one, a whole number ("2^10"), one letter or a
// command.
uint32_t latex_reader::script_arg() {
  ws();
  const char c = peek();
  if (c == '{') return brace_arg();
  if (c == '-') {
    ++i_;
    return add(math_kind::negate, {script_arg()});
  }
  if (c == '+') {
    ++i_;
    return script_arg();
  }
  if (is_digit(c)) {
    size_t end = i_;
    while (end < s_.size() && is_digit(s_[end])) ++end;
    if (end - i_ > lim_.max_digits) fail(math_parse_status::too_complex);
    const std::string digits(s_.substr(i_, end - i_));
    i_ = end;
    return add(math_kind::number, {}, digits);
  }
  return brace_arg();
}

}  // namespace adarl::detail
