#include "math/math_ast.hpp"

namespace adarl {

bool is_scalar(math_kind kind) {
  switch (kind) {
    case math_kind::tuple:
    case math_kind::set:
    case math_kind::list:
    case math_kind::interval:
    case math_kind::set_union:
    case math_kind::relation:
    case math_kind::matrix:
    case math_kind::text:
      return false;
    default:
      return true;
  }
}

bool is_constant(const math_ast& ast, uint32_t node) {
  const math_node& n = ast.at(node);
  if (n.kind == math_kind::symbol) return false;
  for (const uint32_t kid : n.kids) {
    if (!is_constant(ast, kid)) return false;
  }
  return true;
}

namespace {

void collect_plus_minus(const math_ast& ast, uint32_t node, std::vector<uint32_t>& out) {
  const math_node& n = ast.at(node);
  for (const uint32_t kid : n.kids) collect_plus_minus(ast, kid, out);
  if (n.kind == math_kind::plus_minus) out.push_back(node);
}

}  // namespace

std::vector<uint32_t> plus_minus_nodes(const math_ast& ast, uint32_t node) {
  std::vector<uint32_t> out;
  collect_plus_minus(ast, node, out);
  return out;
}

int infinity_sign(const math_ast& ast, uint32_t node) {
  const math_node& n = ast.at(node);
  if (n.kind == math_kind::infinity) return 1;
  if (n.kind == math_kind::negate && ast.at(n.kids[0]).kind == math_kind::infinity) return -1;
  return 0;
}

}  // namespace adarl
