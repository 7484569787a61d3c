// parse_math_latex: sums and products of matrices written out ("A + B", "A B" with A and B
// pmatrix literals) folded into the matrix they denote, so that they compare with it.
#include "math/math_latex_reader.hpp"

namespace adarl::detail {

// A sum of matrices of one shape ("\begin{pmatrix}1\\2\end{pmatrix} - \begin{pmatrix}...")
// as one matrix whose cells are the sums of cells; `terms` unchanged when they are not all
// (possibly negated) matrices. Cells are shared, not copied: O(cells * terms) new nodes,
// bounded by limits.max_nodes (past it: too_complex).
std::optional<uint32_t> latex_reader::matrix_sum(const std::vector<uint32_t>& terms) {
  std::vector<std::pair<uint32_t, bool>> matrices;  // {matrix, negated}
  for (const uint32_t t : terms) {
    const math_node& n = ast_.at(t);
    const bool negated = n.kind == math_kind::negate;
    const uint32_t m = negated ? n.kids[0] : t;
    if (ast_.at(m).kind != math_kind::matrix) return std::nullopt;
    matrices.push_back({m, negated});
  }
  const math_node& first = ast_.at(matrices[0].first);
  const uint32_t cols = first.cols;
  const size_t cells = first.kids.size();
  for (const auto& [m, negated] : matrices) {
    if (ast_.at(m).cols != cols || ast_.at(m).kids.size() != cells) fail();  // shapes differ
  }
  std::vector<uint32_t> sums;
  for (size_t c = 0; c < cells; ++c) {
    std::vector<uint32_t> parts;
    for (const auto& [m, negated] : matrices) {
      const uint32_t cell = ast_.at(m).kids[c];
      parts.push_back(negated ? add(math_kind::negate, {cell}) : cell);
    }
    sums.push_back(add(math_kind::add, std::move(parts)));
  }
  const uint32_t out = add(math_kind::matrix, std::move(sums));
  ast_.nodes[out].cols = cols;
  return out;
}

// A product of matrices ("AB", "A \cdot B") as one matrix; nullopt when `factors` are not
// all matrices. Inner dimensions that differ are unparsable. O(rows * cols * inner) new
// nodes per product, bounded by limits.max_nodes.
std::optional<uint32_t> latex_reader::matrix_product(const std::vector<uint32_t>& factors) {
  for (const uint32_t f : factors) {
    if (ast_.at(f).kind != math_kind::matrix) return std::nullopt;
  }
  uint32_t left = factors[0];
  for (size_t k = 1; k < factors.size(); ++k) {
    const uint32_t right = factors[k];
    const uint32_t inner = ast_.at(left).cols;
    const uint32_t cols = ast_.at(right).cols;
    const size_t rows = ast_.at(left).kids.size() / inner;
    if (ast_.at(right).kids.size() / cols != inner) fail();  // (r x n)(n x c) only
    std::vector<uint32_t> cells;
    for (size_t r = 0; r < rows; ++r) {
      for (size_t c = 0; c < cols; ++c) {
        std::vector<uint32_t> terms;
        for (size_t j = 0; j < inner; ++j) {
          terms.push_back(add(math_kind::multiply, {ast_.at(left).kids[r * inner + j],
                                                    ast_.at(right).kids[j * cols + c]}));
        }
        cells.push_back(terms.size() == 1 ? terms[0] : add(math_kind::add, std::move(terms)));
      }
    }
    left = add(math_kind::matrix, std::move(cells));
    ast_.nodes[left].cols = cols;
  }
  return left;
}

}  // namespace adarl::detail
