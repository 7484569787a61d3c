#include "math/math_equivalence.hpp"

#include <optional>
#include <string>
#include <vector>

namespace adarl {
namespace {

/// One end of an interval: a node, or an infinity of the given sign.
struct end_point {
  math_ref at;
  int infinity = 0;
};

/// One piece of a region: an interval, or a point (lo == hi, both closed).
struct piece {
  end_point lo, hi;
  bool lo_closed = false, hi_closed = false;
};

/// The variable of a region bounded around a name that is no variable ("0 < f(x) < 1").
constexpr std::string_view kNameless = "\\name";

bool is_relation_op(char op) {
  return op == '<' || op == 'l' || op == '>' || op == 'g';
}

/// The comparison of one reference with one answer; owns the GiNaC engine (and so the
/// GiNaC mutex) for its lifetime.
class comparer {
 public:
  comparer(const math_ast& reference, const math_ast& answer,
           const math_compare_settings& settings)
      : asts_{&reference, &answer}, limits_(settings.limits),
        engine_(reference, answer, settings) {}

  math_status run() {
    return compare({math_side::reference, asts_[0]->root}, {math_side::answer, asts_[1]->root});
  }

 private:
  const math_ast& ast(math_ref r) const { return *asts_[static_cast<int>(r.side)]; }
  const math_node& node(math_ref r) const { return ast(r).at(r.node); }
  math_ref kid(math_ref r, size_t k) const { return {r.side, node(r).kids[k]}; }
  bool is_variable(math_ref r) const { return node(r).kind == math_kind::symbol; }
  bool is_name(math_ref r, int depth = 0) const;
  bool mentions(math_ref r, const std::string& name) const;
  bool is_constant_ref(math_ref r) const { return is_constant(ast(r), r.node); }

  math_status compare(math_ref g, math_ref a);
  math_status relation_reference(math_ref g, math_ref a);
  math_status collection(math_ref g, math_ref a);
  math_status regions(math_ref g, math_ref a, bool answer_may_be_relation);
  math_status in_order(math_ref g, math_ref a);
  math_status as_sets(const std::vector<math_ref>& g, const std::vector<math_ref>& a);
  math_status scalars(math_ref g, math_ref a);
  bool has_ratio(math_ref r) const;
  math_status as_written(math_ref g, math_ref a);
  std::optional<math_ref> coerce(math_ref a) const;
  std::vector<math_ref> variants(math_ref r) const;
  std::vector<math_ref> elements(math_ref r) const;
  bool region_of(math_ref r, bool relations, std::string& variable,
                 std::vector<piece>& out) const;
  bool relation_region(math_ref r, std::string& variable, std::vector<piece>& out) const;
  end_point end_at(math_ref r) const { return {r, infinity_sign(ast(r), r.node)}; }
  math_status same_end(const end_point& x, const end_point& y);
  math_status same_piece(const piece& x, const piece& y);

  const math_ast* asts_[2];
  math_limits limits_;
  math_scalar_engine engine_;
  bool in_definitions_ = false;  ///< Comparing the items of a list of equations.
};

math_status comparer::compare(math_ref g, math_ref a) {
  const math_node& G = node(g);
  const math_node& A = node(a);
  if (A.kind == math_kind::relation && G.kind != math_kind::relation) {
    const auto value = coerce(a);
    return value ? compare(g, *value) : math_status::different;
  }
  switch (G.kind) {
    case math_kind::relation:
      return relation_reference(g, a);
    case math_kind::interval:
    case math_kind::set_union:
      return regions(g, a, /*answer_may_be_relation=*/false);
    case math_kind::tuple:
      if (A.kind == math_kind::tuple) return in_order(g, a);
      // "{1, 3}" for the pair (1, 3): its elements in the order written.
      if (A.kind == math_kind::set && !A.kids.empty()) return in_order(g, a);
      if (A.kind == math_kind::interval || A.kind == math_kind::set_union)
        return regions(g, a, false);
      return math_status::different;
    case math_kind::matrix:
      if (A.kind != math_kind::matrix || A.cols != G.cols) return math_status::different;
      return in_order(g, a);
    case math_kind::list:
    case math_kind::set:
      return collection(g, a);
    case math_kind::text:
      return math_status::different;  // text answers are compared by their keys
    default:
      if (is_scalar(A.kind) && has_ratio(g) && has_ratio(a)) return as_written(g, a);
      if (is_scalar(A.kind)) return scalars(g, a);
      if (A.kind == math_kind::list || A.kind == math_kind::set)
        return as_sets(variants(g), elements(a));
      return math_status::different;
  }
}

// A reference set or list: "x < 1 \text{ or } x > 3" is a region, "x = 1, x = 2" and
// "1, 2" sets of values.
math_status comparer::collection(math_ref g, math_ref a) {
  const math_node& G = node(g);
  const math_node& A = node(a);
  bool all_relations = !G.kids.empty(), any_inequality = false;
  for (size_t k = 0; k < G.kids.size(); ++k) {
    const math_node& item = node(kid(g, k));
    all_relations = all_relations && item.kind == math_kind::relation;
    for (char op : item.text) any_inequality = any_inequality || op != '=';
  }
  if (G.kind == math_kind::list && all_relations && any_inequality)
    return regions(g, a, /*answer_may_be_relation=*/true);
  if (A.kind == math_kind::list && G.kind == math_kind::list && all_relations) {
    in_definitions_ = true;
    const math_status s = as_sets(elements(g), elements(a));
    in_definitions_ = false;
    return s;
  }
  if (A.kind == math_kind::set || A.kind == math_kind::list || is_scalar(A.kind))
    return as_sets(elements(g), elements(a));
  if (A.kind == math_kind::set_union) return regions(g, a, false);
  return math_status::different;
}

// What names a quantity on the left of "name = value": a variable, and products,
// quotients, absolute values and tuples of names ("x", "AB", "f(x)", "|AB|",
// "\frac{NO}{BO}", "(p, q)"); never a number, sum or power ("a + 3z", "a^2").
bool comparer::is_name(math_ref r, int depth) const {
  if (depth > 8) return false;
  const math_node& n = node(r);
  switch (n.kind) {
    case math_kind::symbol:
      return true;
    case math_kind::multiply:
    case math_kind::divide:
    case math_kind::tuple:
      for (size_t k = 0; k < n.kids.size(); ++k) {
        if (!is_name(kid(r, k), depth + 1)) return false;
      }
      return true;
    case math_kind::function:
      return n.text == "abs" && is_name(kid(r, 0), depth + 1);
    default:
      return false;
  }
}

// True when the subtree at `r` names the variable `name`.
bool comparer::mentions(math_ref r, const std::string& name) const {
  const math_node& n = node(r);
  if (n.kind == math_kind::symbol) return n.text == name;
  for (size_t k = 0; k < n.kids.size(); ++k) {
    if (mentions(kid(r, k), name)) return true;
  }
  return false;
}

// "x = 3" -> 3, "(x, y) = (1, 2)" -> (1, 2), "2 + 3 = 5" -> 5, "x \in S" -> S.
std::optional<math_ref> comparer::coerce(math_ref a) const {
  const math_node& A = node(a);
  if (A.text == "e") return kid(a, 1);
  if (A.text.find_first_not_of('=') != std::string::npos) return std::nullopt;
  const math_ref lhs = kid(a, 0);
  if (!is_name(lhs) && !is_constant_ref(lhs)) return std::nullopt;
  return kid(a, A.kids.size() - 1);
}

math_status comparer::relation_reference(math_ref g, math_ref a) {
  const math_node& G = node(g);
  const math_node& A = node(a);
  if (G.text == "e") return compare(kid(g, 1), a);
  if (G.text == "=") {
    if (A.kind == math_kind::relation && A.text == "=") {
      // "D = (0, 1)" against "D = (0, 1)": a name given a value that is no scalar.
      const bool shaped = !is_scalar(node(kid(g, 1)).kind) || !is_scalar(node(kid(a, 1)).kind);
      if (shaped && is_name(kid(g, 0)) && is_name(kid(a, 0))) {
        const math_status names = compare(kid(g, 0), kid(a, 0));
        return names == math_status::equal ? compare(kid(g, 1), kid(a, 1)) : names;
      }
      return engine_.same_equation(kid(g, 0), kid(g, 1), kid(a, 0), kid(a, 1));
    }
    if (is_name(kid(g, 0)) && is_constant_ref(kid(g, 1))) return compare(kid(g, 1), a);
    // "y_1 = -2x^2 + 4x + 3, y_2 = ...": in a list of such definitions, a variable given
    // an expression of others stands for it (alone, an equation needs an equation).
    if (in_definitions_ && G.kids.size() == 2 && is_variable(kid(g, 0)) && is_scalar(A.kind) &&
        is_scalar(node(kid(g, 1)).kind) && !mentions(kid(g, 1), node(kid(g, 0)).text))
      return compare(kid(g, 1), a);
    if (is_variable(kid(g, 1)) && is_constant_ref(kid(g, 0))) return compare(kid(g, 0), a);
    return math_status::different;
  }
  // "f(2) < f(1) < f(4)" against itself: the same chain, side by side.
  if (A.kind == math_kind::relation && A.text == G.text && A.kids.size() == G.kids.size() &&
      in_order(g, a) == math_status::equal)
    return math_status::equal;
  return regions(g, a, /*answer_may_be_relation=*/true);
}

math_status comparer::in_order(math_ref g, math_ref a) {
  const math_node& G = node(g);
  if (G.kids.size() != node(a).kids.size()) return math_status::different;
  for (size_t k = 0; k < G.kids.size(); ++k) {
    const math_status s = compare(kid(g, k), kid(a, k));
    if (s != math_status::equal) return s;
  }
  return math_status::equal;
}

math_status comparer::as_sets(const std::vector<math_ref>& g, const std::vector<math_ref>& a) {
  if (g.size() != a.size()) return math_status::different;
  std::vector<bool> used(a.size(), false);
  for (const math_ref& x : g) {
    bool found = false;
    for (size_t k = 0; k < a.size() && !found; ++k) {
      if (used[k]) continue;
      const math_status s = compare(x, a[k]);
      if (s != math_status::equal && s != math_status::different) return s;
      found = used[k] = s == math_status::equal;
    }
    if (!found) return math_status::different;
  }
  return math_status::equal;
}

// True when the subtree at `r` holds a ratio "a:b".
bool comparer::has_ratio(math_ref r) const {
  const math_node& n = node(r);
  if (n.kind == math_kind::divide && n.text == "ratio") return true;
  for (size_t k = 0; k < n.kids.size(); ++k) {
    if (has_ratio(kid(r, k))) return true;
  }
  return false;
}

// Two scalars that both hold ratios: the same shape around them and each ratio's terms
// equal as written, so clock times are not reduced ("1:10" is not "3:30", "12:00" is
// itself); the parts without a ratio compare by value. O(nodes * depth).
math_status comparer::as_written(math_ref g, math_ref a) {
  const bool rg = has_ratio(g), ra = has_ratio(a);
  if (!rg && !ra) return scalars(g, a);
  const math_node& G = node(g);
  const math_node& A = node(a);
  if (!rg || !ra || G.kind != A.kind || G.text != A.text || G.kids.size() != A.kids.size())
    return math_status::different;
  for (size_t k = 0; k < G.kids.size(); ++k) {
    const math_status s = as_written(kid(g, k), kid(a, k));
    if (s != math_status::equal) return s;
  }
  return math_status::equal;
}

math_status comparer::scalars(math_ref g, math_ref a) {
  const auto vg = variants(g);
  const auto va = variants(a);
  if (vg.size() == 1 && va.size() == 1) return engine_.equal(vg[0], va[0]);
  return as_sets(vg, va);
}

// The values of a scalar with k "\pm" signs: 2^k refs (one when k is past the limit,
// which the engine then refuses as too complex).
std::vector<math_ref> comparer::variants(math_ref r) const {
  if (r.chosen) return {r};
  const size_t k = plus_minus_nodes(ast(r), r.node).size();
  if (k == 0 || k > limits_.max_plus_minus) return {r};
  std::vector<math_ref> out;
  for (uint32_t mask = 0; mask < (1u << k); ++mask) out.push_back({r.side, r.node, mask, true});
  return out;
}

std::vector<math_ref> comparer::elements(math_ref r) const {
  const math_node& n = node(r);
  if (n.kind != math_kind::list && n.kind != math_kind::set) return variants(r);
  std::vector<math_ref> out;
  for (size_t k = 0; k < n.kids.size(); ++k) {
    const auto v = variants(kid(r, k));
    out.insert(out.end(), v.begin(), v.end());
  }
  return out;
}

math_status comparer::regions(math_ref g, math_ref a, bool answer_may_be_relation) {
  std::string gv, av;
  std::vector<piece> gp, ap;
  if (!region_of(g, /*relations=*/true, gv, gp)) return math_status::different;
  if (!region_of(a, answer_may_be_relation, av, ap)) return math_status::different;
  // "t > 5" against "x > 5"; two regions of names are never matched by their bounds alone.
  if (!av.empty() && (av != gv || av == kNameless)) return math_status::different;
  if (gp.size() != ap.size()) return math_status::different;
  std::vector<bool> used(ap.size(), false);
  for (const piece& x : gp) {
    bool found = false;
    for (size_t k = 0; k < ap.size() && !found; ++k) {
      if (used[k]) continue;
      const math_status s = same_piece(x, ap[k]);
      if (s != math_status::equal && s != math_status::different) return s;
      found = used[k] = s == math_status::equal;
    }
    if (!found) return math_status::different;
  }
  return math_status::equal;
}

math_status comparer::same_end(const end_point& x, const end_point& y) {
  if (x.infinity != 0 || y.infinity != 0)
    return x.infinity == y.infinity ? math_status::equal : math_status::different;
  return engine_.equal(x.at, y.at);
}

math_status comparer::same_piece(const piece& x, const piece& y) {
  if (x.lo_closed != y.lo_closed || x.hi_closed != y.hi_closed) return math_status::different;
  const math_status lo = same_end(x.lo, y.lo);
  return lo == math_status::equal ? same_end(x.hi, y.hi) : lo;
}

// The pieces of an interval, "(a, b)", a set of points, a union of those, or (when
// `relations`) an inequality or "or"-list of them, whose variable goes to `variable`.
bool comparer::region_of(math_ref r, bool relations, std::string& variable,
                         std::vector<piece>& out) const {
  const math_node& n = node(r);
  switch (n.kind) {
    case math_kind::interval:
      out.push_back({end_at(kid(r, 0)), end_at(kid(r, 1)), n.text[0] == '[', n.text[1] == ']'});
      return true;
    case math_kind::tuple:
      if (n.kids.size() != 2) return false;
      out.push_back({end_at(kid(r, 0)), end_at(kid(r, 1)), false, false});
      return true;
    case math_kind::set:
      for (size_t k = 0; k < n.kids.size(); ++k) {
        if (!is_scalar(node(kid(r, k)).kind)) return false;
        out.push_back({end_at(kid(r, k)), end_at(kid(r, k)), true, true});
      }
      return true;
    case math_kind::set_union:
      for (size_t k = 0; k < n.kids.size(); ++k) {
        if (node(kid(r, k)).kind == math_kind::relation) return false;
        if (!region_of(kid(r, k), false, variable, out)) return false;
      }
      return true;
    case math_kind::list:
      if (!relations) return false;
      for (size_t k = 0; k < n.kids.size(); ++k) {
        std::string v;
        if (node(kid(r, k)).kind != math_kind::relation || !relation_region(kid(r, k), v, out))
          return false;
        if (v == kNameless || (!variable.empty() && v != variable)) return false;
        variable = v;
      }
      return n.text == "or";
    case math_kind::relation:
      return relations && relation_region(r, variable, out);
    default:
      return false;
  }
}

// "x < c", "c \le x", "a < x \le b", "x \ne c", "x = c", "x \in S".
bool comparer::relation_region(math_ref r, std::string& variable,
                               std::vector<piece>& out) const {
  const math_node& n = node(r);
  const end_point minus_inf{{}, -1}, plus_inf{{}, 1};
  if (n.kids.size() == 2 && n.text == "e") {
    if (!is_variable(kid(r, 0))) return false;
    variable = node(kid(r, 0)).text;
    std::string inner;
    return region_of(kid(r, 1), false, inner, out);
  }
  if (n.kids.size() == 3) {
    // The middle may be a name other than a variable ("0 < f(x) < 1"): its region has
    // no variable, so it meets intervals only, never an inequality of a variable.
    if (!is_name(kid(r, 1)) || !is_constant_ref(kid(r, 0)) || !is_constant_ref(kid(r, 2)))
      return false;
    variable = is_variable(kid(r, 1)) ? node(kid(r, 1)).text : std::string(kNameless);
    const char a = n.text[0], b = n.text[1];
    const bool up = (a == '<' || a == 'l') && (b == '<' || b == 'l');
    const bool down = (a == '>' || a == 'g') && (b == '>' || b == 'g');
    if (up) out.push_back({end_at(kid(r, 0)), end_at(kid(r, 2)), a == 'l', b == 'l'});
    if (down) out.push_back({end_at(kid(r, 2)), end_at(kid(r, 0)), b == 'g', a == 'g'});
    return up || down;
  }
  if (n.kids.size() != 2) return false;
  const bool left_var = is_variable(kid(r, 0)) && is_constant_ref(kid(r, 1));
  const bool right_var = is_variable(kid(r, 1)) && is_constant_ref(kid(r, 0));
  if (!left_var && !right_var) return false;
  variable = node(kid(r, left_var ? 0 : 1)).text;
  const end_point c = end_at(kid(r, left_var ? 1 : 0));
  char op = n.text[0];
  if (!left_var && is_relation_op(op)) op = op == '<' ? '>' : op == '>' ? '<' : op == 'l' ? 'g' : 'l';
  switch (op) {
    case '<': out.push_back({minus_inf, c, false, false}); return true;
    case 'l': out.push_back({minus_inf, c, false, true}); return true;
    case '>': out.push_back({c, plus_inf, false, false}); return true;
    case 'g': out.push_back({c, plus_inf, true, false}); return true;
    case '=': out.push_back({c, c, true, true}); return true;
    case 'n':
      out.push_back({minus_inf, c, false, false});
      out.push_back({c, plus_inf, false, false});
      return true;
    default: return false;
  }
}

}  // namespace

math_status compare_math_answers(const math_ast& reference, const math_ast& answer,
                                 const math_compare_settings& settings) {
  return comparer(reference, answer, settings).run();
}

}  // namespace adarl
