#pragma once
// Internal to math/math_latex_*.cpp: the cursor and grammar of parse_math_latex.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "math/math_latex_parser.hpp"

namespace adarl::detail {

/// Thrown inside the reader only, caught by parse_math_latex.
struct reader_stop {
  math_parse_status status;
};

/// One pass over a normalized answer. Not thread-safe (one per call); read() throws
/// reader_stop (caught by parse_math_latex, never crossing the API).
class latex_reader {
 public:
  latex_reader(std::string_view s, const math_limits& limits) : s_(s), lim_(limits) {}
  /// The whole answer; throws reader_stop.
  math_ast read();

 private:
  // Grammar levels (math_latex_parser.cpp).
  uint32_t sequence(bool top);
  uint32_t relation();
  uint32_t union_of();
  uint32_t sum();
  uint32_t term();
  uint32_t signed_power();
  uint32_t power();
  uint32_t postfix();
  bool unit_tail(const std::vector<uint32_t>& factors);
  bool mixed_fraction_ahead() const;
  bool ratio_colon();
  // Matrix arithmetic (math_latex_matrices.cpp).
  std::optional<uint32_t> matrix_sum(const std::vector<uint32_t>& terms);
  std::optional<uint32_t> matrix_product(const std::vector<uint32_t>& factors);
  size_t unit_word_end(size_t j) const;
  // Atoms (math_latex_atoms.cpp).
  uint32_t atom();
  uint32_t number();
  uint32_t letters();
  uint32_t bracket();
  uint32_t set_braces();
  uint32_t group();
  uint32_t command(std::string_view name);
  uint32_t text_command();
  uint32_t function(std::string name);
  uint32_t function_argument();
  uint32_t matrix();
  uint32_t brace_arg();
  uint32_t script_arg();
  std::string subscript();
  bool starts_atom() const;
  // Cursor.
  void ws();
  bool at_end() const { return i_ >= s_.size(); }
  char peek(size_t ahead = 0) const {
    return i_ + ahead < s_.size() ? s_[i_ + ahead] : '\0';
  }
  bool eat(char c);
  bool eat(std::string_view word);
  std::string_view command_name(size_t at) const;  ///< Letters after s_[at] == '\\'.
  bool eat_command(std::string_view name);
  void expect(char c);
  std::optional<std::pair<size_t, bool>> separator_at() const;  ///< {length, is "or"}
  std::string_view raw_group();  ///< Content of the {...} at the cursor.
  [[noreturn]] void fail(math_parse_status why = math_parse_status::unparsable) const;
  uint32_t add(math_kind kind, std::vector<uint32_t> kids = {}, std::string text = {});
  void enter();
  void leave() { --depth_; }

  std::string_view s_;
  size_t i_ = 0;
  const math_limits& lim_;
  math_ast ast_;
  uint32_t depth_ = 0;
  uint32_t abs_depth_ = 0;   ///< Inside |...|: a '|' closes rather than opens.
  uint32_t trig_depth_ = 0;  ///< Inside a trigonometric argument: degrees are pi/180.
};

}  // namespace adarl::detail
