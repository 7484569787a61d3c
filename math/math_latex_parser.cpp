// parse_math_latex: the cursor and the grammar levels above atoms (math/math_latex_atoms.cpp).
#include <array>

#include "math/math_latex_reader.hpp"

namespace adarl {
namespace detail {
namespace {

constexpr bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
constexpr bool is_alpha(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

// Two-letter words that are units after a number (longer words are units anyway).
constexpr std::array<std::string_view, 19> kShortUnits = {
    "cm", "mm", "km", "kg", "mg", "ml", "mL", "ft", "yd", "mi",
    "in", "hr", "oz", "lb", "sq", "ms", "cc", "mi", "pt"};
// Words that are not units: functions, constants and separators.
constexpr std::array<std::string_view, 22> kNotUnits = {
    "sin",  "cos",  "tan",  "cot",    "sec",    "csc",    "log",    "ln",
    "exp",  "sqrt", "pi",   "inf",    "infty",  "infinity", "or",   "and",
    "sinh", "cosh", "tanh", "arcsin", "arccos", "arctan"};

template <size_t N>
bool listed(const std::array<std::string_view, N>& words, std::string_view w) {
  for (std::string_view k : words) {
    if (k == w) return true;
  }
  return false;
}

// Text commands whose group may hold a unit.
bool is_text_command(std::string_view name) {
  return name == "text" || name == "mathrm" || name == "mbox" || name == "textrm" ||
         name == "textbf" || name == "textit" || name == "mathit";
}

}  // namespace

void latex_reader::fail(math_parse_status why) const {
  throw reader_stop{why};
}

void latex_reader::ws() {
  while (i_ < s_.size() && s_[i_] == ' ') ++i_;
}

bool latex_reader::eat(char c) {
  ws();
  if (peek() != c) return false;
  ++i_;
  return true;
}

bool latex_reader::eat(std::string_view word) {
  ws();
  if (!s_.substr(i_).starts_with(word)) return false;
  i_ += word.size();
  return true;
}

std::string_view latex_reader::command_name(size_t at) const {
  size_t end = at + 1;
  while (end < s_.size() && is_alpha(s_[end])) ++end;
  return s_.substr(at + 1, end - at - 1);
}

bool latex_reader::eat_command(std::string_view name) {
  ws();
  if (peek() != '\\' || command_name(i_) != name) return false;
  i_ += name.size() + 1;
  return true;
}

void latex_reader::expect(char c) {
  if (!eat(c)) fail();
}

std::optional<std::pair<size_t, bool>> latex_reader::separator_at() const {
  size_t j = i_;
  while (j < s_.size() && s_[j] == ' ') ++j;
  const std::string_view rest = s_.substr(j);
  for (std::string_view word : {std::string_view("or"), std::string_view("and")}) {
    const bool alone = rest.starts_with(word) &&
                       (rest.size() == word.size() || !is_alpha(rest[word.size()]));
    if (alone) return std::pair{j + word.size() - i_, word == "or"};
  }
  if (rest.starts_with("\\lor") || rest.starts_with("\\vee"))
    return std::pair{j + 4 - i_, true};
  if (rest.empty() || rest[0] != '\\' || !is_text_command(command_name(j))) return {};
  size_t k = j + 1 + command_name(j).size();
  if (k >= s_.size() || s_[k] != '{') return {};
  const size_t close = s_.find('}', k);
  if (close == std::string_view::npos) return {};
  std::string_view inner = s_.substr(k + 1, close - k - 1);
  while (!inner.empty() && inner.front() == ' ') inner.remove_prefix(1);
  while (!inner.empty() && inner.back() == ' ') inner.remove_suffix(1);
  if (inner != "or" && inner != "and") return {};
  return std::pair{close + 1 - i_, inner == "or"};
}

uint32_t latex_reader::add(math_kind kind, std::vector<uint32_t> kids, std::string text) {
  if (ast_.nodes.size() >= lim_.max_nodes) fail(math_parse_status::too_complex);
  ast_.nodes.push_back(math_node{kind, 0, std::move(text), std::move(kids)});
  return static_cast<uint32_t>(ast_.nodes.size() - 1);
}

void latex_reader::enter() {
  if (++depth_ > lim_.max_depth) fail(math_parse_status::too_complex);
}

math_ast latex_reader::read() {
  ws();
  if (at_end()) fail();
  ast_.root = sequence(/*top=*/true);
  ws();
  if (!at_end()) fail();
  for (uint32_t k = 0; k < ast_.nodes.size(); ++k) {
    if (ast_.nodes[k].kind == math_kind::text && k != ast_.root) fail();
  }
  return std::move(ast_);
}

uint32_t latex_reader::sequence(bool top) {
  std::vector<uint32_t> items{relation()};
  bool any_or = false;
  for (;;) {
    if (eat(',') || eat(';')) {
      if (const auto sep = top ? separator_at() : std::nullopt) {  // "1, 2, and 3"
        i_ += sep->first;
        any_or = any_or || sep->second;
      }
    } else if (const auto sep = top ? separator_at() : std::nullopt) {
      i_ += sep->first;
      any_or = any_or || sep->second;
    } else {
      break;
    }
    items.push_back(relation());
    if (items.size() > lim_.max_elements) fail(math_parse_status::too_complex);
  }
  if (items.size() == 1) return items[0];
  return add(math_kind::list, std::move(items), any_or ? "or" : "");
}

uint32_t latex_reader::relation() {
  static constexpr std::array<std::pair<std::string_view, char>, 18> kOps = {{
      {"\\leqslant", 'l'}, {"\\geqslant", 'g'}, {"\\leq", 'l'}, {"\\geq", 'g'},
      {"\\le", 'l'},       {"\\ge", 'g'},       {"\\neq", 'n'}, {"\\ne", 'n'},
      {"\\lt", '<'},       {"\\gt", '>'},       {"\\in", 'e'},  {"<=", 'l'},
      {">=", 'g'},         {"!=", 'n'},         {"\\approx", 'a'}, {"=", '='},
      {"<", '<'},          {">", '>'},
  }};
  std::vector<uint32_t> kids{union_of()};
  std::string ops;
  for (bool more = true; more;) {
    more = false;
    ws();
    for (const auto& [spelling, op] : kOps) {
      const std::string_view rest = s_.substr(i_);
      const bool command = spelling[0] == '\\';
      if (!rest.starts_with(spelling)) continue;
      if (command && rest.size() > spelling.size() && is_alpha(rest[spelling.size()]))
        continue;  // "\int", "\left"
      i_ += spelling.size();
      ops += op;
      kids.push_back(union_of());
      more = true;
      break;
    }
    if (kids.size() > lim_.max_elements) fail(math_parse_status::too_complex);
  }
  if (ops.empty()) return kids[0];
  // "x = 1/3 \approx 0.33" states x = 1/3: what follows the first \approx after an equation
  // goes; "x \approx 11" alone states x = 11.
  if (const size_t approx = ops.find('a'); approx != std::string::npos) {
    if (approx == 0) {
      ops[0] = '=';
      const size_t next = ops.find('a', 1);
      if (next != std::string::npos) ops.resize(next);
    } else {
      ops.resize(approx);
    }
    kids.resize(ops.size() + 1);
  }
  // A chain of equations "x = 5 + 5 + 1 = 11" states its first and last sides: x = 11.
  if (ops.size() >= 2 && ops.find_first_not_of('=') == std::string::npos) {
    kids = {kids.front(), kids.back()};
    ops.assign(1, '=');
  }
  // "-x > -1" is "x < 1": a negated variable against a constant moves the sign across.
  if (ops.size() == 1 && ops[0] != 'e') {
    for (int side = 0; side < 2; ++side) {
      const math_node& n = ast_.at(kids[side]);
      if (n.kind != math_kind::negate || ast_.at(n.kids[0]).kind != math_kind::symbol ||
          !is_constant(ast_, kids[1 - side]))
        continue;
      const uint32_t variable = n.kids[0];
      kids[1 - side] = add(math_kind::negate, {kids[1 - side]});
      kids[side] = variable;
      char& op = ops[0];
      op = op == '<' ? '>' : op == '>' ? '<' : op == 'l' ? 'g' : op == 'g' ? 'l' : op;
      break;
    }
  }
  return add(math_kind::relation, std::move(kids), std::move(ops));
}

uint32_t latex_reader::union_of() {
  std::vector<uint32_t> kids{sum()};
  while (eat_command("cup")) {
    kids.push_back(sum());
    if (kids.size() > lim_.max_elements) fail(math_parse_status::too_complex);
  }
  if (kids.size() == 1) return kids[0];
  return add(math_kind::set_union, std::move(kids));
}

uint32_t latex_reader::sum() {
  std::vector<uint32_t> terms;
  if (eat('-')) {
    terms.push_back(add(math_kind::negate, {term()}));
  } else if (eat_command("pm") || eat_command("mp")) {
    terms.push_back(add(math_kind::plus_minus, {term()}));
  } else {
    eat('+');
    terms.push_back(term());
  }
  for (;;) {
    if (eat('+')) {
      terms.push_back(term());
    } else if (eat('-')) {
      terms.push_back(add(math_kind::negate, {term()}));
    } else if (eat_command("pm") || eat_command("mp")) {
      const uint32_t left = terms.size() == 1 ? terms[0] : add(math_kind::add, terms);
      terms = {add(math_kind::plus_minus, {left, term()})};
    } else {
      break;
    }
    if (terms.size() > lim_.max_nodes) fail(math_parse_status::too_complex);
  }
  if (terms.size() == 1) return terms[0];
  if (const auto m = matrix_sum(terms)) return *m;
  return add(math_kind::add, std::move(terms));
}

uint32_t latex_reader::term() {
  std::vector<uint32_t> factors{power()};
  const auto is_integer = [&](uint32_t n) {
    const math_node& x = ast_.at(n);
    return x.kind == math_kind::number && x.text.find('.') == std::string::npos;
  };
  for (;;) {
    if (eat_command("cdot") || eat_command("times") || eat_command("ast") || eat('*')) {
      factors.push_back(signed_power());
    } else if (const bool colon = ratio_colon(); colon || eat('/') || eat_command("div")) {
      const uint32_t left =
          factors.size() == 1 ? factors[0] : add(math_kind::multiply, factors);
      factors = {add(math_kind::divide, {left, signed_power()}, colon ? "ratio" : "")};
    } else if (separator_at() || unit_tail(factors) || !starts_atom()) {
      break;
    } else if (factors.size() == 1 && is_integer(factors[0]) && mixed_fraction_ahead()) {
      ws();  // "4 4/9": a whole number, a blank and a fraction of whole numbers
      const uint32_t num = number();
      expect('/');
      ws();
      if (!is_digit(peek())) fail();
      const uint32_t den = number();
      factors[0] = add(math_kind::add, {factors[0], add(math_kind::divide, {num, den})});
    } else if (is_digit(peek()) || peek() == '.') {
      fail();  // "2 3" is not a product
    } else {
      const uint32_t right = power();
      const math_node& r = ast_.at(right);
      const bool mixed = factors.size() == 1 && is_integer(factors[0]) &&
                         r.kind == math_kind::divide && r.text == "frac" &&
                         is_integer(r.kids[0]) && is_integer(r.kids[1]);
      if (mixed)
        factors[0] = add(math_kind::add, {factors[0], right});  // 2\frac{1}{2} = 5/2
      else
        factors.push_back(right);
    }
    if (factors.size() > lim_.max_nodes) fail(math_parse_status::too_complex);
  }
  if (factors.size() == 1) return factors[0];
  if (const auto m = matrix_product(factors)) return *m;
  return add(math_kind::multiply, std::move(factors));
}

// A ':' between two terms is a ratio, read as a quotient marked "ratio" ("3:4",
// "V_1:V_2 = 11:21"; two ratios compare as written, see math_equivalence.hpp); ":=" and a
// ':' with nothing after it are not.
bool latex_reader::ratio_colon() {
  ws();
  if (peek() != ':' || peek(1) == '=') return false;
  ++i_;
  if (!starts_atom() && peek() != '-' && peek() != '+') fail();
  return true;
}

// At the cursor, after the digits of a whole number: a blank, digits, '/', digits and
// then neither a digit, '.', '^' nor '/' ("4 4/9"; not "4 4/9.5", "(11) 4/9").
bool latex_reader::mixed_fraction_ahead() const {
  size_t k = i_;  // the cursor may already be past the blank
  while (k > 0 && s_[k - 1] == ' ') --k;
  size_t j = i_;
  while (j < s_.size() && s_[j] == ' ') ++j;
  if (k == 0 || !is_digit(s_[k - 1]) || j == k) return false;
  while (j < s_.size() && s_[j] == ' ') ++j;
  const size_t num = j;
  while (j < s_.size() && is_digit(s_[j])) ++j;
  if (j == num || j >= s_.size() || s_[j] != '/') return false;
  const size_t den = ++j;
  while (j < s_.size() && is_digit(s_[j])) ++j;
  if (j == den) return false;
  return j == s_.size() || (s_[j] != '.' && s_[j] != '^' && s_[j] != '/');
}

uint32_t latex_reader::signed_power() {
  enter();
  uint32_t out;
  if (eat('-'))
    out = add(math_kind::negate, {signed_power()});
  else if (eat('+'))
    out = signed_power();
  else
    out = power();
  leave();
  return out;
}

uint32_t latex_reader::power() {
  uint32_t base = postfix();
  while (eat('^')) base = add(math_kind::power, {base, script_arg()});
  return base;
}

uint32_t latex_reader::postfix() {
  uint32_t a = atom();
  for (;;) {
    ws();
    if (peek() == '!' && peek(1) != '=') {
      ++i_;
      a = add(math_kind::factorial, {a});
    } else if (peek() == '\'') {
      ++i_;
      if (ast_.at(a).kind != math_kind::symbol) fail();
      ast_.nodes[a].text += '\'';
    } else if (eat_command("circ")) {  // degrees: radians where an angle is taken
      if (trig_depth_ > 0) {
        const uint32_t radian =
            add(math_kind::divide, {add(math_kind::pi), add(math_kind::number, {}, "180")});
        a = add(math_kind::multiply, {a, radian});
      }
    } else {
      return a;
    }
  }
}

// Where the unit word at s[j] ends: a \text{...}-like group holding a letter, a word of
// three or more letters, or a short unit ("cm"); npos when there is none.
size_t latex_reader::unit_word_end(size_t j) const {
  if (s_[j] == '\\' && is_text_command(command_name(j))) {
    const size_t open = j + 1 + command_name(j).size();
    if (open >= s_.size() || s_[open] != '{') return std::string_view::npos;
    const size_t close = s_.find('}', open);
    if (close == std::string_view::npos) return close;
    std::string_view inner = s_.substr(open + 1, close - open - 1);
    while (!inner.empty() && inner.front() == ' ') inner.remove_prefix(1);
    bool letter = false;
    for (char c : inner) letter = letter || is_alpha(c);
    if (!letter || inner.starts_with("or") || inner.starts_with("and")) return std::string_view::npos;
    return close + 1;
  }
  size_t end = j;
  while (end < s_.size() && is_alpha(s_[end])) ++end;
  const std::string_view word = s_.substr(j, end - j);
  if (word.empty() || listed(kNotUnits, word) || (word.size() < 3 && !listed(kShortUnits, word)))
    return std::string_view::npos;
  return end;
}

// A unit after a number ends the term: unit words (unit_word_end), and "^2", "/" or "."
// between them, up to the end or a closing bracket or separator. Only when what precedes
// names no variable and is no text.
bool latex_reader::unit_tail(const std::vector<uint32_t>& factors) {
  for (const uint32_t f : factors) {
    if (!is_constant(ast_, f) || ast_.at(f).kind == math_kind::text) return false;
  }
  size_t j = i_;
  bool saw_word = false;
  for (;;) {
    while (j < s_.size() && s_[j] == ' ') ++j;
    if (j == s_.size() || s_[j] == ',' || s_[j] == ';' || s_[j] == ')' || s_[j] == ']' ||
        s_[j] == '}' || s_.substr(j).starts_with("\\}"))
      break;
    if (saw_word && (s_[j] == '/' || s_[j] == '.' || s_[j] == '-')) {
      ++j;
    } else if (saw_word && s_[j] == '^') {
      ++j;
      if (j < s_.size() && s_[j] == '{') ++j;
      if (j >= s_.size() || !is_digit(s_[j])) return false;
      while (j < s_.size() && (is_digit(s_[j]) || s_[j] == '}')) ++j;
    } else if (const size_t end = unit_word_end(j); end != std::string_view::npos) {
      saw_word = true;
      j = end;
    } else {
      return false;
    }
  }
  if (!saw_word) return false;
  i_ = j;
  return true;
}

}  // namespace detail

math_parse_result parse_math_latex(std::string_view text, const math_limits& limits) {
  if (text.size() > limits.max_answer_chars) return {math_parse_status::too_complex, {}};
  try {
    detail::latex_reader reader(text, limits);
    return {math_parse_status::ok, reader.read()};
  } catch (const detail::reader_stop& stop) {
    return {stop.status, {}};
  }
}

}  // namespace adarl
