#include "tasks/expr_lang.hpp"

#include <algorithm>
#include <limits>

namespace adarl {

std::string_view to_string(expr_errc code) {
  constexpr std::string_view names[] = {"parse_error", "size_limit", "step_limit",
                                        "div_by_zero", "overflow"};
  const auto index = static_cast<size_t>(code);
  return index < std::size(names) ? names[index] : "unknown";
}

namespace {

// Invariant: the comparison tokens lt..ne are in the order of expr_program::op's.
enum class tok : uint8_t {
  end,
  num,
  x,
  kw_if,
  kw_then,
  kw_else,
  plus,
  minus,
  star,
  slash,
  percent,
  lparen,
  rparen,
  lt,
  le,
  gt,
  ge,
  eq,
  ne,
  big,
  bad
};

/// Operator tokens; a two-character one before its one-character prefix.
struct op_token {
  std::string_view text;
  tok kind;
};
constexpr op_token op_tokens[] = {
    {"<=", tok::le},   {">=", tok::ge},   {"==", tok::eq},     {"!=", tok::ne},
    {"<", tok::lt},    {">", tok::gt},    {"+", tok::plus},    {"-", tok::minus},
    {"*", tok::star},  {"/", tok::slash}, {"%", tok::percent}, {"(", tok::lparen},
    {")", tok::rparen}};

bool is_comparison(tok t) {
  return t >= tok::lt && t <= tok::ne;
}

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}
bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || is_digit(c);
}

}  // namespace

/// Recursive descent over the grammar in expr_lang.hpp with a one-token lookahead.
/// Errors are recorded once (the first wins) and unwind through `false` returns.
class expr_parser {
 public:
  expr_parser(std::string_view src, const expr_limits& limits)
      : src_(src),
        max_nodes_(limits.max_nodes),
        max_depth_(std::min(limits.max_depth, expr_limits::hard_max_depth)) {}

  expr_result<expr_program> run() {
    prog_.nodes_.reserve(std::min<size_t>(max_nodes_, src_.size() / 2 + 2));
    advance();
    int32_t root = -1;
    if (parse_expr(root) && cur_ != tok::end)
      fail_at(tok_pos_, "expected end of program");
    if (failed_) return std::move(error_);
    prog_.root_ = root;
    prog_.depth_ = *std::max_element(depths_.begin(), depths_.end());
    return std::move(prog_);
  }

 private:
  using op = expr_program::op;

  bool fail(expr_errc code, std::string message) {
    if (!failed_) error_ = expr_error{code, std::move(message)};
    failed_ = true;
    return false;
  }
  bool fail_at(size_t pos, std::string_view what) {
    return fail(expr_errc::parse_error,
                "at offset " + std::to_string(pos) + ": " + std::string(what));
  }

  void advance() {
    while (pos_ < src_.size() && is_space(src_[pos_])) ++pos_;
    tok_pos_ = pos_;
    if (pos_ >= src_.size()) {
      cur_ = tok::end;
      return;
    }
    const char c = src_[pos_];
    if (is_digit(c)) return lex_number();
    if (is_name_char(c)) return lex_name();
    const std::string_view rest = src_.substr(pos_);
    for (const auto& [text, kind] : op_tokens) {
      if (rest.starts_with(text)) {
        cur_ = kind;
        pos_ += text.size();
        return;
      }
    }
    cur_ = tok::bad;
    ++pos_;
  }

  void lex_number() {
    // Magnitudes up to 2^63 are kept so that "-9223372036854775808" parses; the
    // parser rejects 2^63 where no minus precedes it.
    constexpr uint64_t max_mag = uint64_t{1} << 63;
    uint64_t v = 0;
    bool too_big = false;
    while (pos_ < src_.size() && is_digit(src_[pos_])) {
      const uint64_t d = static_cast<uint64_t>(src_[pos_] - '0');
      if (v > (max_mag - d) / 10) too_big = true;
      if (!too_big) v = v * 10 + d;
      ++pos_;
    }
    cur_ = too_big ? tok::big : tok::num;
    num_ = v;
    if (pos_ < src_.size() && is_name_char(src_[pos_])) cur_ = tok::bad;  // "2x"
  }

  void lex_name() {
    const size_t start = pos_;
    while (pos_ < src_.size() && is_name_char(src_[pos_])) ++pos_;
    const std::string_view name = src_.substr(start, pos_ - start);
    if (name == "x")
      cur_ = tok::x;
    else if (name == "if")
      cur_ = tok::kw_if;
    else if (name == "then")
      cur_ = tok::kw_then;
    else if (name == "else")
      cur_ = tok::kw_else;
    else
      cur_ = tok::bad;
  }

  bool add(op kind, int64_t value, int32_t a, int32_t b, int32_t c, int32_t& out) {
    if (prog_.nodes_.size() >= max_nodes_) {
      return fail(expr_errc::size_limit,
                  "more than " + std::to_string(max_nodes_) + " nodes");
    }
    uint32_t d = 0;
    for (int32_t child : {a, b, c}) {
      if (child >= 0) d = std::max(d, depths_[static_cast<size_t>(child)]);
    }
    if (d + 1 > max_depth_) {
      return fail(expr_errc::size_limit, "deeper than " + std::to_string(max_depth_));
    }
    out = static_cast<int32_t>(prog_.nodes_.size());
    prog_.nodes_.push_back({kind, a, b, c, value});
    depths_.push_back(d + 1);
    return true;
  }

  bool enter() {
    if (++nest_ > max_depth_) {
      return fail(expr_errc::size_limit,
                  "nested deeper than " + std::to_string(max_depth_));
    }
    return true;
  }

  bool parse_expr(int32_t& out) {
    if (!enter()) return false;
    int32_t lhs = -1;
    if (!parse_sum(lhs)) return false;
    if (!is_comparison(cur_)) {
      out = lhs;
      --nest_;
      return true;
    }
    const auto kind = static_cast<op>(static_cast<int>(op::lt) + static_cast<int>(cur_) -
                                      static_cast<int>(tok::lt));
    advance();
    int32_t rhs = -1;
    if (!parse_sum(rhs) || !add(kind, 0, lhs, rhs, -1, out)) return false;
    if (is_comparison(cur_))
      return fail_at(tok_pos_, "chained comparison (use parentheses)");
    --nest_;
    return true;
  }

  bool parse_sum(int32_t& out) {
    if (!parse_term(out)) return false;
    while (cur_ == tok::plus || cur_ == tok::minus) {
      const op kind = cur_ == tok::plus ? op::add : op::sub;
      advance();
      int32_t rhs = -1;
      if (!parse_term(rhs) || !add(kind, 0, out, rhs, -1, out)) return false;
    }
    return true;
  }

  bool parse_term(int32_t& out) {
    if (!parse_unary(out)) return false;
    while (cur_ == tok::star || cur_ == tok::slash || cur_ == tok::percent) {
      const op kind = cur_ == tok::star    ? op::mul
                      : cur_ == tok::slash ? op::div
                                           : op::mod;
      advance();
      int32_t rhs = -1;
      if (!parse_unary(rhs) || !add(kind, 0, out, rhs, -1, out)) return false;
    }
    return true;
  }

  bool parse_unary(int32_t& out) {
    if (cur_ != tok::minus) return parse_primary(out, /*negated=*/false);
    if (!enter()) return false;
    advance();
    // "-<literal>" is one negative literal, so the 64-bit minimum is writable; this
    // changes no value: negation commutes with truncating `/` and `%`.
    if (cur_ == tok::num) {
      if (!parse_primary(out, /*negated=*/true)) return false;
    } else {
      int32_t operand = -1;
      if (!parse_unary(operand) || !add(op::neg, 0, operand, -1, -1, out)) return false;
    }
    --nest_;
    return true;
  }

  bool parse_primary(int32_t& out, bool negated) {
    switch (cur_) {
      case tok::num: {
        const uint64_t mag = num_;
        if (!negated && mag > uint64_t{std::numeric_limits<int64_t>::max()}) {
          return fail_at(tok_pos_, "integer literal out of range");
        }
        const int64_t v =
            negated ? static_cast<int64_t>(0 - mag) : static_cast<int64_t>(mag);
        advance();
        return add(op::lit, v, -1, -1, -1, out);
      }
      case tok::x:
        advance();
        return add(op::var, 0, -1, -1, -1, out);
      case tok::lparen: {
        advance();
        if (!parse_expr(out)) return false;
        if (cur_ != tok::rparen) return fail_at(tok_pos_, "expected ')'");
        advance();
        return true;
      }
      case tok::kw_if:
        return parse_if(out);
      case tok::end:
        return fail_at(tok_pos_, "unexpected end of program");
      case tok::big:
        return fail_at(tok_pos_, "integer literal out of range");
      case tok::bad:
        return fail_at(tok_pos_, "unknown token");
      default:
        return fail_at(tok_pos_, "expected a number, x, '(' or if");
    }
  }

  bool parse_if(int32_t& out) {
    advance();
    int32_t c = -1, a = -1, b = -1;
    if (!parse_expr(c)) return false;
    if (cur_ != tok::kw_then) return fail_at(tok_pos_, "expected 'then'");
    advance();
    if (!parse_expr(a)) return false;
    if (cur_ != tok::kw_else) return fail_at(tok_pos_, "expected 'else'");
    advance();
    if (!parse_expr(b)) return false;
    return add(op::cond, 0, c, a, b, out);
  }

  std::string_view src_;
  uint32_t max_nodes_;
  uint32_t max_depth_;
  size_t pos_ = 0;      ///< Next unread byte.
  size_t tok_pos_ = 0;  ///< Offset of the current token.
  tok cur_ = tok::end;
  uint64_t num_ = 0;   ///< Magnitude of the current tok::num.
  uint32_t nest_ = 0;  ///< Current recursion nesting, bounded by max_depth_.
  expr_program prog_;
  std::vector<uint32_t> depths_;  ///< Depth of each node of prog_.
  bool failed_ = false;
  expr_error error_;
};

expr_result<expr_program> expr_program::parse(std::string_view source,
                                              const expr_limits& limits) {
  if (source.size() > limits.max_source) {
    return expr_error{
        expr_errc::size_limit,
        "program longer than " + std::to_string(limits.max_source) + " bytes"};
  }
  return expr_parser(source, limits).run();
}

struct expr_program::eval_state {
  int64_t x;
  uint64_t steps_left;
  expr_errc err = expr_errc::overflow;
};

bool expr_program::eval_node(int32_t index, eval_state& s, int64_t& out) const {
  if (s.steps_left == 0) {
    s.err = expr_errc::step_limit;
    return false;
  }
  --s.steps_left;
  const node& n = nodes_[static_cast<size_t>(index)];
  switch (n.kind) {
    case op::lit:
      out = n.value;
      return true;
    case op::var:
      out = s.x;
      return true;
    case op::cond: {
      int64_t c = 0;
      if (!eval_node(n.a, s, c)) return false;
      return eval_node(c != 0 ? n.b : n.c, s, out);
    }
    default:
      break;
  }
  int64_t a = 0, b = 0;
  if (!eval_node(n.a, s, a)) return false;
  if (n.kind == op::neg) {
    if (__builtin_sub_overflow(int64_t{0}, a, &out)) return false;
    return true;
  }
  if (!eval_node(n.b, s, b)) return false;
  switch (n.kind) {
    case op::add:
      return !__builtin_add_overflow(a, b, &out);
    case op::sub:
      return !__builtin_sub_overflow(a, b, &out);
    case op::mul:
      return !__builtin_mul_overflow(a, b, &out);
    case op::div:
    case op::mod:
      if (b == 0) {
        s.err = expr_errc::div_by_zero;
        return false;
      }
      if (b == -1) {  // INT64_MIN / -1 overflows; x % -1 is always 0.
        out = 0;
        return n.kind == op::mod || !__builtin_sub_overflow(int64_t{0}, a, &out);
      }
      out = n.kind == op::div ? a / b : a % b;
      return true;
    default: {  // comparisons, in the order of op
      const bool holds[] = {a<b, a <= b, a> b, a >= b, a == b, a != b};
      out = holds[static_cast<int>(n.kind) - static_cast<int>(op::lt)];
      return true;
    }
  }
}

expr_result<int64_t> expr_program::eval(int64_t x, uint64_t max_steps) const {
  eval_state s{x, max_steps};
  int64_t out = 0;
  if (root_ >= 0 && eval_node(root_, s, out)) return out;
  if (root_ < 0) return expr_error{expr_errc::parse_error, "empty program"};
  switch (s.err) {
    case expr_errc::step_limit:
      return expr_error{s.err, "more than " + std::to_string(max_steps) + " steps"};
    case expr_errc::div_by_zero:
      return expr_error{s.err, "division by zero"};
    default:
      return expr_error{expr_errc::overflow, "64-bit integer overflow"};
  }
}

}  // namespace adarl
